// EventPublisher on EventBridge: one event per planner transition, detail-type = the event type
// ("Release Started", "Batch Ready"...), detail = the event itself, so rules can match on
// rollout, phase or type with no code (schemas/rollout-event.schema.json).
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { NO_METER, type Meter } from '../../meter.ts';
import type { EventPublisher } from '../../ports.ts';
import type { FleetEvent } from '../../fleet/types.ts';
import type { RolloutEvent } from '../../rollout/types.ts';
import { putEventsReliably } from './putEvents.ts';

export interface EventBridgePublisherOptions {
  client: EventBridgeClient;
  eventBusName: string;
  /** ROLLOUTS_EVENT_SOURCE. */
  source: string;
  meter?: Meter;
}

export class EventBridgePublisher implements EventPublisher {
  constructor(private readonly opts: EventBridgePublisherOptions) {}

  /** A fleet's transitions go the same way: detail-type "Fleet …", detail the FleetEvent (schemas/fleet-event.schema.json). */
  async publishFleet(events: FleetEvent[]): Promise<void> {
    await this.publish(events);
  }

  async publish(events: readonly (RolloutEvent | FleetEvent)[]): Promise<void> {
    if (events.length === 0) return;
    const entries = events.map((e) => ({
      EventBusName: this.opts.eventBusName,
      Source: this.opts.source,
      DetailType: e.type,
      Detail: JSON.stringify(e),
      // The transition's own time, so a retried flush carries the original instant.
      Time: new Date(e.at),
    }));
    await putEventsReliably(this.opts.client, entries, { meter: this.opts.meter ?? NO_METER });
  }
}
