// Defaults every queue of the stack shares: encrypted at rest and reachable over TLS only.
import { Duration } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { QueueProps } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/**
 * SSE-SQS rather than a customer KMS key: messages carry only rollout keys and reasons (no secrets),
 * EventBridge rules and Scheduler can deliver to SSE-SQS queues without key-policy grants, and the
 * high-throughput FIFO queue makes no KMS calls (no KMS request cost or throttling to plan for).
 */
export function secureQueue(scope: Construct, id: string, props: QueueProps = {}): Queue {
  return new Queue(scope, id, { ...props, encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true });
}

/** Dead-letter queues keep messages for the SQS maximum, so a failure found late can still be inspected. */
export const DLQ_RETENTION = Duration.days(14);
