// ReconcileQueue on SQS (docs/architecture.md, "Data flow"). "Now" goes to the FIFO queue: MessageGroupId = the rollout key,
// so one key is never reconciled twice at once. "Later" goes to the standard trigger queue, because
// FIFO queues have no per-message delay; reconcile is safe under concurrency, so losing per-key
// order for delayed re-runs costs nothing.
// Deduplication: SQS drops a FIFO message whose deduplication id was sent in the last 5 minutes,
// whether or not the first was already received and deleted. So only the sweep's sends, which all
// stand for one tick, share an id (key + "sweep" + one-second bucket: a retried tick, or a key both
// due and resynced, is one message). Every other send has an id of its own: a command recorded
// after the previous message was consumed needs a pass of its own (with a shared id, `rollouts
// pause` then `rollouts resume` within a second lost the resume until the next resync; the
// LocalStack wiring test showed it, test/integration/wiring.test.ts).
// No endpoint option: the SDK reads AWS_ENDPOINT_URL(_SQS) itself (emulators, LocalStack).
import { createHash, randomUUID } from 'node:crypto';
import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { RolloutsError } from '../../errors.ts';
import { NO_METER, type Meter } from '../../meter.ts';
import type { Clock, ReconcileQueue } from '../../ports.ts';
import { encodeReconcileMessage } from './messages.ts';
import { queueKeyString, type QueueKey } from '../../fleet/key.ts';
import { SYSTEM_CLOCK } from '../../clock.ts';

/** SQS refused some entries of a batch even after a retry. */
export class QueueSendError extends RolloutsError {}

export interface SqsReconcileQueueOptions {
  client: SQSClient;
  /** FIFO queue (ROLLOUTS_QUEUE_URL). */
  queueUrl: string;
  /** Standard queue for delayed re-runs (ROLLOUTS_TRIGGER_QUEUE_URL). */
  triggerQueueUrl: string;
  clock?: Clock;
  meter?: Meter;
}

/** SQS's largest DelaySeconds. Longer waits: one-off Scheduler schedules (shared/adapters/scheduler/wakeSchedules.ts), the sweep as backstop. */
export const MAX_DELAY_SECONDS = 900;
const BATCH_SIZE = 10;
/** SQS limit for MessageGroupId and MessageDeduplicationId. */
const MAX_ID_LENGTH = 128;

export class SqsReconcileQueue implements ReconcileQueue {
  private readonly clock: Clock;
  private readonly meter: Meter;

  constructor(private readonly opts: SqsReconcileQueueOptions) {
    this.clock = opts.clock ?? SYSTEM_CLOCK;
    this.meter = opts.meter ?? NO_METER;
  }

  async enqueue(key: QueueKey, opts: { delaySeconds?: number; reason?: string } = {}): Promise<void> {
    const reason = opts.reason ?? 'unspecified';
    const delay = Math.min(MAX_DELAY_SECONDS, Math.ceil(opts.delaySeconds ?? 0));
    this.meter.add('queue.send');
    if (delay > 0) {
      await this.opts.client.send(new SendMessageCommand({ QueueUrl: this.opts.triggerQueueUrl, MessageBody: encodeReconcileMessage(key, reason), DelaySeconds: delay }));
      return;
    }
    await this.opts.client.send(new SendMessageCommand({ QueueUrl: this.opts.queueUrl, ...this.fifoEntry(key, reason, randomUUID()) }));
  }

  /** Many keys now (the sweep): SendMessageBatch, 10 per request, one message per key and tick; entries SQS refuses are sent once more. */
  async enqueueAll(keys: QueueKey[], opts: { reason: string }): Promise<void> {
    const bucket = () => String(Math.floor(this.clock.now().getTime() / 1000));
    await this.sendBatches(keys.map((key) => ({ key })), opts.reason, bucket);
  }

  /**
   * Many keys now, each a message of its own (the watch-proxy's notices): the same batches, but no
   * deduplication id shared with an earlier send, so a notice after one already consumed is never
   * dropped as its duplicate (the file header).
   */
  async enqueueEach(items: { key: QueueKey; causes?: string[] }[], opts: { reason: string }): Promise<void> {
    await this.sendBatches(items, opts.reason, () => randomUUID());
  }

  private async sendBatches(items: { key: QueueKey; causes?: string[] }[], reason: string, instance: () => string): Promise<void> {
    for (let i = 0; i < items.length; i += BATCH_SIZE) {
      const id = instance();
      let entries = items.slice(i, i + BATCH_SIZE).map((item, j) => ({ Id: String(j), ...this.fifoEntry(item.key, reason, id, item.causes) }));
      for (let attempt = 1; entries.length > 0; attempt++) {
        this.meter.add('queue.send');
        const out = await this.opts.client.send(new SendMessageBatchCommand({ QueueUrl: this.opts.queueUrl, Entries: entries }));
        const failed = out.Failed ?? [];
        if (failed.length === 0) break;
        if (attempt >= 2) {
          throw new QueueSendError(`SQS refused ${failed.length} reconcile messages: ${failed.map((f) => `${f.Code}: ${f.Message ?? ''}`).join('; ')}`);
        }
        const retry = new Set(failed.filter((f) => !f.SenderFault).map((f) => f.Id));
        if (retry.size < failed.length) throw new QueueSendError(`SQS rejected reconcile messages as malformed: ${failed.map((f) => f.Message ?? f.Code).join('; ')}`);
        entries = entries.filter((e) => retry.has(e.Id));
      }
    }
  }

  /** `instance` tells this send apart from others of the key and reason (see the file header). */
  private fifoEntry(key: QueueKey, reason: string, instance: string, causes: string[] = []) {
    const group = queueKeyString(key);
    return {
      MessageBody: encodeReconcileMessage(key, reason, causes),
      // Keys are DNS names and "/", all valid group-id characters; only the length can be too much.
      MessageGroupId: group.length <= MAX_ID_LENGTH ? group : sha256(group),
      MessageDeduplicationId: sha256(`${group}\n${reason}\n${instance}`),
    };
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
