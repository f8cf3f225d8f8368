// The watch-proxy's sink on EventBridge: one "Workload Changed" event per rollout key, from source
// `<eventSource>.watch`. A rule on that source targets the trigger queue, which the reconcile
// function consumes (infra/); the event's detail carries the key.
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { NO_METER, type Meter } from '../../meter.ts';
import type { WatchSink, WorkloadChange } from '../../ports.ts';
import { putEventsReliably } from './putEvents.ts';

export interface WatchEventSinkOptions {
  client: EventBridgeClient;
  eventBusName: string;
  /** ROLLOUTS_EVENT_SOURCE; the events' source is this + ".watch". */
  eventSource: string;
  meter?: Meter;
}

/** EventBridge detail-type of the notices; the rule routing them to the trigger queue matches the source. */
export const WORKLOAD_CHANGED = 'Workload Changed';

/** The source of watch events, which the routing rule matches. */
export function watchEventSource(eventSource: string): string {
  return `${eventSource}.watch`;
}

export class WatchEventSink implements WatchSink {
  constructor(private readonly opts: WatchEventSinkOptions) {}

  async send(changes: WorkloadChange[]): Promise<void> {
    if (changes.length === 0) return;
    const entries = changes.map((c) => {
      const detail: WorkloadChange = { cluster: c.cluster, namespace: c.namespace, name: c.name, reasons: c.reasons };
      return { EventBusName: this.opts.eventBusName, Source: watchEventSource(this.opts.eventSource), DetailType: WORKLOAD_CHANGED, Detail: JSON.stringify(detail) };
    });
    await putEventsReliably(this.opts.client, entries, { meter: this.opts.meter ?? NO_METER });
  }
}
