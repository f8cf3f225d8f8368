// The workqueue of the controller (docs/architecture.md, "Data flow"), made of SQS: a FIFO queue keyed by rollout (per-key
// order, duplicate collapse) and a standard trigger queue (per-message delays, EventBridge targets),
// each with its dead-letter queue.
import type { Duration } from 'aws-cdk-lib';
import { DeduplicationScope, FifoThroughputLimit } from 'aws-cdk-lib/aws-sqs';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DLQ_RETENTION, secureQueue } from './secureQueue.ts';

export interface ReconcileQueuesProps {
  /**
   * How long a received message stays hidden; must cover the reconcile function's timeout.
   * AWS recommends 6× the function timeout for Lambda event sources.
   */
  readonly visibilityTimeout: Duration;
  /**
   * Receives before a message is dead-lettered. 5 rides out transient faults (an apiserver blip,
   * throttling, a lost optimistic-concurrency race) while a poison message leaves its FIFO group
   * (which it blocks) after 5 visibility timeouts. Dead-lettering loses nothing: reconcile is
   * level-triggered and the sweep re-enqueues due rollouts every minute.
   * @default 5
   */
  readonly maxReceiveCount?: number;
}

export class ReconcileQueues extends Construct {
  /** FIFO, MessageGroupId = rollout key; explicit deduplication ids (sent by sweep and api). */
  readonly work: Queue;
  readonly workDlq: Queue;
  /** Standard: delayed re-runs (FIFO has no per-message delay) and watch events from the bus rule. */
  readonly trigger: Queue;
  readonly triggerDlq: Queue;

  constructor(scope: Construct, id: string, props: ReconcileQueuesProps) {
    super(scope, id);
    const maxReceiveCount = props.maxReceiveCount ?? 5;

    this.workDlq = secureQueue(this, 'WorkDlq', { fifo: true, retentionPeriod: DLQ_RETENTION });
    this.work = secureQueue(this, 'Work', {
      fifo: true,
      // Senders set MessageDeduplicationId themselves, so they decide what counts as a duplicate;
      // content-based dedup would also collapse legitimate repeats whose bodies happen to be equal.
      contentBasedDeduplication: false,
      // High-throughput FIFO: dedup and throughput are per rollout key, not per queue.
      deduplicationScope: DeduplicationScope.MESSAGE_GROUP,
      fifoThroughputLimit: FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
      visibilityTimeout: props.visibilityTimeout,
      deadLetterQueue: { queue: this.workDlq, maxReceiveCount },
    });

    this.triggerDlq = secureQueue(this, 'TriggerDlq', { retentionPeriod: DLQ_RETENTION });
    this.trigger = secureQueue(this, 'Trigger', {
      visibilityTimeout: props.visibilityTimeout,
      deadLetterQueue: { queue: this.triggerDlq, maxReceiveCount },
    });
  }
}
