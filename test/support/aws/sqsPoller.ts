// A stand-in for Lambda's SQS event source mapping: ReceiveMessage from a queue, turn the messages
// into exactly the SQSEvent Lambda would deliver, invoke the handler, then delete the messages the
// handler did not report in batchItemFailures (all of them stay when it throws, as with Lambda).
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord, SQSRecordAttributes } from 'aws-lambda';
import type { Queue } from './emulator.ts';

export type SqsHandler = (event: SQSEvent) => Promise<SQSBatchResponse | void>;

export interface Delivery {
  event: SQSEvent;
  response: SQSBatchResponse | void;
  deleted: string[];
}

export class EventSourceMappingPoller {
  readonly deliveries: Delivery[] = [];

  constructor(
    private readonly sqs: SQSClient,
    private readonly queue: Queue,
    private readonly opts: { region: string; batchSize?: number; waitTimeSeconds?: number },
  ) {}

  /** One poll: the SQSEvent for what ReceiveMessage returned, or null when nothing was there. */
  async receive(): Promise<SQSEvent | null> {
    const out = await this.sqs.send(new ReceiveMessageCommand({
      QueueUrl: this.queue.url,
      MaxNumberOfMessages: this.opts.batchSize ?? 10,
      WaitTimeSeconds: this.opts.waitTimeSeconds ?? 1,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
    }));
    const messages = out.Messages ?? [];
    return messages.length === 0 ? null : { Records: messages.map((m) => this.record(m)) };
  }

  /** Poll once and deliver to `handler`; null when the queue was empty. */
  async deliverOnce(handler: SqsHandler): Promise<Delivery | null> {
    const event = await this.receive();
    if (!event) return null;
    const response = await handler(event);
    const failed = new Set((response ?? { batchItemFailures: [] }).batchItemFailures.map((f) => f.itemIdentifier));
    const done = event.Records.filter((r) => !failed.has(r.messageId));
    if (done.length > 0) {
      await this.sqs.send(new DeleteMessageBatchCommand({
        QueueUrl: this.queue.url,
        Entries: done.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })),
      }));
    }
    const delivery = { event, response, deleted: done.map((r) => r.messageId) };
    this.deliveries.push(delivery);
    return delivery;
  }

  /** Deliver until `until()` holds (after a delivery or an empty poll), or fail after `timeoutMs` (a hung-test safety net). */
  async deliverUntil(handler: SqsHandler, until: () => boolean | Promise<boolean>, opts: { timeoutMs?: number; message: string }): Promise<void> {
    const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
    while (!(await until())) {
      if (Date.now() > deadline) throw new Error(`timed out delivering from ${this.queue.url}: ${opts.message}`);
      await this.deliverOnce(handler);
    }
  }

  private record(m: Message): SQSRecord {
    const a = m.Attributes ?? {};
    const attributes: SQSRecordAttributes = {
      ApproximateReceiveCount: a.ApproximateReceiveCount ?? '1',
      SentTimestamp: a.SentTimestamp ?? '',
      SenderId: a.SenderId ?? '',
      ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? '',
      ...(a.AWSTraceHeader ? { AWSTraceHeader: a.AWSTraceHeader } : {}),
      ...(a.SequenceNumber ? { SequenceNumber: a.SequenceNumber } : {}),
      ...(a.MessageGroupId ? { MessageGroupId: a.MessageGroupId } : {}),
      ...(a.MessageDeduplicationId ? { MessageDeduplicationId: a.MessageDeduplicationId } : {}),
    };
    const messageAttributes: SQSMessageAttributes = {};
    for (const [name, v] of Object.entries(m.MessageAttributes ?? {})) {
      // Lambda's shape: lower camel case, binary as base64, the reserved list fields empty.
      messageAttributes[name] = {
        dataType: v.DataType ?? 'String',
        ...(v.StringValue !== undefined ? { stringValue: v.StringValue } : {}),
        ...(v.BinaryValue !== undefined ? { binaryValue: Buffer.from(v.BinaryValue).toString('base64') } : {}),
        stringListValues: [],
        binaryListValues: [],
      };
    }
    return {
      messageId: m.MessageId as string,
      receiptHandle: m.ReceiptHandle as string,
      body: m.Body ?? '',
      attributes,
      messageAttributes,
      md5OfBody: m.MD5OfBody ?? '',
      ...(m.MD5OfMessageAttributes ? { md5OfMessageAttributes: m.MD5OfMessageAttributes } : {}),
      eventSource: 'aws:sqs',
      eventSourceARN: this.queue.arn,
      awsRegion: this.opts.region,
    };
  }
}
