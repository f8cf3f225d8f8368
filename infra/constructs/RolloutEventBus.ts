// The product's event bus: transition events for subscribers (source `serverless-rollouts`) and
// watch events from the watch-proxy (source `serverless-rollouts.watch`), which a rule forwards to
// the trigger queue so they wake the controller.
//
// No archive: the table's history items are the durable record of every transition, watch events are
// level-trigger hints that are worthless once reconciled, and replaying transitions would notify
// subscribers a second time.
import { Duration } from 'aws-cdk-lib';
import { EventBus, Rule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface RolloutEventBusProps {
  /** @default 'serverless-rollouts' */
  readonly eventBusName?: string;
  /** Source of the watch-proxy's events, which the rule forwards. */
  readonly watchEventSource: string;
  /** Where watch events go (a standard queue: an SQS-FIFO rule target takes only a static group id). */
  readonly triggerQueue: IQueue;
  /** Where events the rule could not deliver end up. */
  readonly deadLetterQueue: IQueue;
}

export class RolloutEventBus extends Construct {
  readonly bus: EventBus;
  readonly watchRule: Rule;

  constructor(scope: Construct, id: string, props: RolloutEventBusProps) {
    super(scope, id);
    this.bus = new EventBus(this, 'Bus', { eventBusName: props.eventBusName ?? 'serverless-rollouts' });
    this.watchRule = new Rule(this, 'WatchEventsToTrigger', {
      eventBus: this.bus,
      description: 'Watch-proxy events wake the controller through the trigger queue',
      eventPattern: { source: [props.watchEventSource] },
      targets: [new SqsQueue(props.triggerQueue, {
        deadLetterQueue: props.deadLetterQueue,
        // A watch event is a hint; the sweep catches up anyway, so an old one is not worth delivering.
        maxEventAge: Duration.hours(1),
        retryAttempts: 10,
      })],
    });
  }
}
