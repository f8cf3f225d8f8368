// The AWS side of the wiring tests: an emulator endpoint (moto server started here, or the endpoint
// in AWS_ENDPOINT_URL, e.g. LocalStack at http://localhost:4566) with the product's messaging
// resources created as the CDK stack creates them: the FIFO work queue, the standard trigger
// queue, their DLQs, the event bus, the rule routing `<source>.watch` events to the trigger queue,
// and (for assertions) a rule copying our transition events to an inspection queue.
import { randomBytes } from 'node:crypto';
import { EventBridgeClient, CreateEventBusCommand, DeleteEventBusCommand, DeleteRuleCommand, PutRuleCommand, PutTargetsCommand, RemoveTargetsCommand } from '@aws-sdk/client-eventbridge';
import { CreateQueueCommand, DeleteQueueCommand, GetQueueAttributesCommand, SetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { watchEventSource } from '../../../shared/adapters/eventbridge/watchEventSink.ts';
import type { Config } from '../../../shared/config.ts';
import { startMotoServer, type MotoServer } from './motoServer.ts';

/** Well-formed test credentials (moto and LocalStack accept any). */
export const TEST_CREDENTIALS = { accessKeyId: 'test', secretAccessKey: 'test' };
export const TEST_REGION = 'us-east-1';

export interface Queue {
  url: string;
  arn: string;
}

export interface AwsEmulator {
  endpoint: string;
  /** True when we started moto (false: an external endpoint such as LocalStack). */
  ownsServer: boolean;
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

export async function startAwsEmulator(opts: { eventSource?: string } = {}): Promise<AwsEmulator> {
  const external = process.env.AWS_ENDPOINT_URL;
  const moto: MotoServer | null = external ? null : await startMotoServer();
  const endpoint = external ?? (moto as MotoServer).endpoint;
  const clientConfig = { endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS };
  const sqs = new SQSClient(clientConfig);
  const eventBridge = new EventBridgeClient(clientConfig);
  // Unique names: a shared LocalStack may hold resources of other runs.
  const prefix = `rollouts-${randomBytes(4).toString('hex')}`;
  const eventSource = opts.eventSource ?? 'serverless-rollouts';
  const created: (() => Promise<unknown>)[] = [];

  const stop = async (): Promise<void> => {
    if (!moto) for (const undo of created.reverse()) await undo().catch(() => undefined);
    sqs.destroy();
    eventBridge.destroy();
    await moto?.stop();
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
      // What real EventBridge needs to deliver to SQS (emulators may not check it).
      await sqs.send(new SetQueueAttributesCommand({ QueueUrl: target.url, Attributes: { Policy: allowEventBridge(target.arn, rule.RuleArn as string) } }));
      await eventBridge.send(new PutTargetsCommand({ Rule: ruleName, EventBusName: eventBusName, Targets: [{ Id: 'queue', Arn: target.arn }] }));
      created.push(() => eventBridge.send(new RemoveTargetsCommand({ Rule: ruleName, EventBusName: eventBusName, Ids: ['queue'] })));
    };
    await route(`${prefix}-watch`, watchEventSource(eventSource), trigger);
    await route(`${prefix}-published`, eventSource, published);

    return {
      endpoint, ownsServer: moto !== null, region: TEST_REGION, credentials: TEST_CREDENTIALS, sqs, eventBridge,
      work, trigger, workDlq, triggerDlq, published, eventBusName, eventSource,
      config: (tableName) => ({
        tableName, queueUrl: work.url, triggerQueueUrl: trigger.url, eventBusName, eventSource, maxBodyBytes: 64 * 1024, watchMarginSeconds: 1,
        resyncPeriodSeconds: 300, sweepIntervalSeconds: 60,
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
