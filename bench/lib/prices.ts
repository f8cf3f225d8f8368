// Published on-demand list prices, us-east-1, as recorded on the date below from the AWS pricing
// pages named. The bench does not fetch them: check the pages before relying on a figure. Free
// tiers are NOT applied (they are per account and shared with everything else in it); they are
// named in `freeTier` for the reader.

export const PRICES_RECORDED_ON = '2026-11-29';

export interface Price {
  usd: number;
  unit: string;
  source: string;
  /** Third-party pages that state the same figure (for a reader without the AWS page at hand). */
  corroboration?: string;
  freeTier?: string;
  note?: string;
}

export const PRICES = {
  dynamodbReadRequestUnit: {
    usd: 0.125 / 1e6, unit: 'USD per read request unit (on-demand, Standard table class)',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
    corroboration: 'https://airbyte.com/data-engineering-resources/dynamodb-pricing ($0.125 per million RRU, US East)',
    note: 'The 50% on-demand price cut of 2024-11-01 included. One RRU = one strongly consistent read of up to 4 KB, or two eventually consistent.',
    freeTier: '25 GB storage only; on-demand requests have no free tier',
  },
  dynamodbWriteRequestUnit: {
    usd: 0.625 / 1e6, unit: 'USD per write request unit (on-demand, Standard table class)',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
    corroboration: 'https://airbyte.com/data-engineering-resources/dynamodb-pricing ($0.625 per million WRU, US East)',
    note: 'One WRU = one write of up to 1 KB; a global secondary index write is billed as well.',
  },
  lambdaArmGbSecond: {
    usd: 0.0000133334, unit: 'USD per GB-second, arm64 (first 7.5 billion GB-s per month)',
    source: 'https://aws.amazon.com/lambda/pricing/',
    corroboration: 'https://cloudchipr.com/blog/aws-lambda-pricing (ARM, first 7.5B GB-s: $0.0000133334)',
    freeTier: '400,000 GB-s per month',
  },
  lambdaRequest: {
    usd: 0.2 / 1e6, unit: 'USD per invocation',
    source: 'https://aws.amazon.com/lambda/pricing/',
    freeTier: '1 million requests per month',
  },
  sqsStandardRequest: {
    usd: 0.4 / 1e6, unit: 'USD per request (standard queue, each 64 KB chunk)',
    source: 'https://aws.amazon.com/sqs/pricing/',
    corroboration: 'https://cloudburn.io/blog/amazon-sqs-pricing (March 2026: standard $0.40/M, FIFO $0.50/M)',
    freeTier: '1 million requests per month (standard and FIFO together)',
  },
  sqsFifoRequest: {
    usd: 0.5 / 1e6, unit: 'USD per request (FIFO queue, each 64 KB chunk)',
    source: 'https://aws.amazon.com/sqs/pricing/',
    corroboration: 'https://cloudburn.io/blog/amazon-sqs-pricing',
  },
  eventBridgeCustomEvent: {
    usd: 1.0 / 1e6, unit: 'USD per custom event published (each 64 KB chunk)',
    source: 'https://aws.amazon.com/eventbridge/pricing/',
    corroboration: 'https://cloudburn.io/blog/amazon-eventbridge-pricing (March 2026: custom events $1.00/M; Scheduler $1.00/M after 14M free)',
    note: 'Delivery to targets in the same account (the rule → trigger queue) is not charged by EventBridge; the SQS send is.',
  },
  schedulerInvocation: {
    usd: 1.0 / 1e6, unit: 'USD per EventBridge Scheduler invocation',
    source: 'https://aws.amazon.com/eventbridge/pricing/ (EventBridge Scheduler)',
    corroboration: 'https://cloudburn.io/blog/amazon-eventbridge-pricing',
    freeTier: '14 million invocations per month',
  },
} satisfies Record<string, Price>;

export type PriceName = keyof typeof PRICES;
