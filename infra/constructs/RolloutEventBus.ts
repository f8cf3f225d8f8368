// The product's event bus: transition events for subscribers (source `serverless-rollouts`), which
// RolloutNotifications and the users' own rules read. The watch-proxy does not publish here: its
// notices go straight to the work queue (shared/watch/queueSink.ts), one hop instead of PutEvents →
// rule → trigger queue (bench/lib/reactionModel.ts).
//
// No archive: the table's history items are the durable record of every transition, and replaying
// transitions would notify subscribers a second time.
import { EventBus } from 'aws-cdk-lib/aws-events';
import { Construct } from 'constructs';

export interface RolloutEventBusProps {
  /** @default 'serverless-rollouts' */
  readonly eventBusName?: string;
}

export class RolloutEventBus extends Construct {
  readonly bus: EventBus;

  constructor(scope: Construct, id: string, props: RolloutEventBusProps = {}) {
    super(scope, id);
    this.bus = new EventBus(this, 'Bus', { eventBusName: props.eventBusName ?? 'serverless-rollouts' });
  }
}
