// The AWS side of the wiring tests: real LocalStack (localstack.ts, started here or handed in) with
// the product's messaging resources created as the CDK stack creates them: the FIFO work queue,
// the standard trigger queue, their DLQs, the event bus, the rule routing `<source>.watch` events
// to the trigger queue, and (for assertions) a rule copying our transition events to an inspection
// queue. LocalStack serves every AWS API these tests use; what it cannot do (fire a Scheduler
// schedule, run a Lambda function) is listed in README.md, "The test bed".
import { randomBytes } from 'node:crypto';
import { EventBridgeClient, CreateEventBusCommand, DeleteEventBusCommand, DeleteRuleCommand, PutRuleCommand, PutTargetsCommand, RemoveTargetsCommand } from '@aws-sdk/client-eventbridge';
import { CreateQueueCommand, DeleteQueueCommand, GetQueueAttributesCommand, SetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Config } from '../../../shared/app/config.ts';
import { startLocalStack, type LocalStack } from './localstack.ts';
import { TEST_CREDENTIALS, TEST_REGION } from './testAccount.ts';

export { TEST_CREDENTIALS, TEST_REGION };

export interface Queue {
  url: string;
  arn: string;
}

export interface AwsEmulator {
  endpoint: string;
  localstack: LocalStack;
  region: string;
  credentials: typeof TEST_CREDENTIALS;
  sqs: SQSClient;
  eventBridge: EventBridgeClient;
  work: Queue;
  trigger: Queue;
  workDlq: Queue;
  triggerDlq: Queue;
  /** Receives every event of `eventSource` (our transition events), for assertions. */
  published: Queue;
  eventBusName: string;
  eventSource: string;
  /** The product configuration pointing at these resources (the table is the caller's). */
  config(tableName: string): Config;
  stop(): Promise<void>;
}

export interface AwsEmulatorOptions {
  eventSource?: string;
  /** Use this LocalStack (its owner stops it) instead of starting one for this emulator. */
  localstack?: LocalStack;
}

export async function startAwsEmulator(opts: AwsEmulatorOptions = {}): Promise<AwsEmulator> {
  const localstack = opts.localstack ?? await startLocalStack();
  const endpoint = localstack.endpoint;
  const clientConfig = { endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS };
  const sqs = new SQSClient(clientConfig);
  const eventBridge = new EventBridgeClient(clientConfig);
  // Unique names: a shared LocalStack may hold other emulators' resources.
  const prefix = `rollouts-${randomBytes(4).toString('hex')}`;
  const eventSource = opts.eventSource ?? 'serverless-rollouts';
  const created: (() => Promise<unknown>)[] = [];

  const stop = async (): Promise<void> => {
    if (opts.localstack) for (const undo of created.reverse()) await undo().catch(() => undefined);
    sqs.destroy();
    eventBridge.destroy();
    if (!opts.localstack) await localstack.stop();
  };

  try {
    const queue = async (name: string, attributes: Record<string, string> = {}): Promise<Queue> => {
      const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
      const url = QueueUrl as string;
      created.push(() => sqs.send(new DeleteQueueCommand({ QueueUrl: url })));
      const attrs = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
      return { url, arn: attrs.Attributes?.QueueArn as string };
    };
    const redrive = (dlq: Queue) => JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount: 5 });

    const workDlq = await queue(`${prefix}-work-dlq.fifo`, { FifoQueue: 'true' });
    const triggerDlq = await queue(`${prefix}-trigger-dlq`);
    const work = await queue(`${prefix}-work.fifo`, { FifoQueue: 'true', VisibilityTimeout: '30', RedrivePolicy: redrive(workDlq) });
    const trigger = await queue(`${prefix}-trigger`, { VisibilityTimeout: '30', RedrivePolicy: redrive(triggerDlq) });
    const published = await queue(`${prefix}-published`);

    const eventBusName = `${prefix}-bus`;
    await eventBridge.send(new CreateEventBusCommand({ Name: eventBusName }));
    created.push(() => eventBridge.send(new DeleteEventBusCommand({ Name: eventBusName })));
    const route = async (ruleName: string, source: string, target: Queue): Promise<void> => {
      const rule = await eventBridge.send(new PutRuleCommand({ Name: ruleName, EventBusName: eventBusName, EventPattern: JSON.stringify({ source: [source] }) }));
      created.push(() => eventBridge.send(new DeleteRuleCommand({ Name: ruleName, EventBusName: eventBusName })));
      // What real EventBridge needs to deliver to SQS (LocalStack does not check it).
      await sqs.send(new SetQueueAttributesCommand({ QueueUrl: target.url, Attributes: { Policy: allowEventBridge(target.arn, rule.RuleArn as string) } }));
      await eventBridge.send(new PutTargetsCommand({ Rule: ruleName, EventBusName: eventBusName, Targets: [{ Id: 'queue', Arn: target.arn }] }));
      created.push(() => eventBridge.send(new RemoveTargetsCommand({ Rule: ruleName, EventBusName: eventBusName, Ids: ['queue'] })));
    };
    await route(`${prefix}-published`, eventSource, published);

    return {
      endpoint, localstack, region: TEST_REGION, credentials: TEST_CREDENTIALS, sqs, eventBridge,
      work, trigger, workDlq, triggerDlq, published, eventBusName, eventSource,
      config: (tableName) => ({
        tableName, queueUrl: work.url, triggerQueueUrl: trigger.url, eventBusName, eventSource, maxBodyBytes: 64 * 1024, watchMarginSeconds: 1,
        resyncPeriodSeconds: 300, sweepIntervalSeconds: 60, watcherSeconds: 880,
      }),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

function allowEventBridge(queueArn: string, ruleArn: string): string {
  return JSON.stringify({
    Version: '2012-10-17',
    Statement: [{
      Effect: 'Allow', Principal: { Service: 'events.amazonaws.com' }, Action: 'sqs:SendMessage', Resource: queueArn,
      Condition: { ArnEquals: { 'aws:SourceArn': ruleArn } },
    }],
  });
}
