// EventPublisher that keeps events in memory. Engine integration tests assert on rollout events;
// the EventBridge path itself is covered by the AWS wiring tests against the emulator.
import type { EventPublisher } from '../../../shared/ports.ts';
import type { FleetEvent } from '../../../shared/fleet/types.ts';
import type { RolloutEvent } from '../../../shared/rollout/types.ts';

export class CollectingPublisher implements EventPublisher {
  readonly events: RolloutEvent[] = [];

  readonly fleetEvents: FleetEvent[] = [];

  async publish(events: RolloutEvent[]): Promise<void> {
    this.events.push(...events);
  }

  async publishFleet(events: FleetEvent[]): Promise<void> {
    this.fleetEvents.push(...events);
  }

  types(): string[] {
    return this.events.map((e) => e.type);
  }
}
