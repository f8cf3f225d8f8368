// The key a fleet is stored and queued under: `F#<name>` beside the rollouts' `R#<cluster>#<ns>#<name>`
// (docs/fleet.md, "State"). A fleet name is a DNS-1123 subdomain, so it never contains "#" or "/".
// The queue, the wake-ups and the batch run either kind of key (QueueKey) and tell them apart only
// here: the string form of a key is its FIFO message group and its unit of work.
import { rolloutKeyString } from '../rollout/key.ts';
import type { RolloutKey } from '../rollout/types.ts';

export const FLEET_KEY_PREFIX = 'F#';

export function fleetKey(name: string): string {
  return `${FLEET_KEY_PREFIX}${name}`;
}

/** The fleet's name from its key, or null when the key is not a fleet's. */
export function fleetNameOf(key: string): string | null {
  return key.startsWith(FLEET_KEY_PREFIX) ? key.slice(FLEET_KEY_PREFIX.length) : null;
}

/** A fleet pass in the queue. */
export interface FleetQueueKey {
  fleet: string;
}

/** What the queue and the pipeline run: one rollout's pass, or one fleet's. */
export type QueueKey = RolloutKey | FleetQueueKey;

export function isFleetQueueKey(key: QueueKey): key is FleetQueueKey {
  return 'fleet' in key;
}

/** "cluster/namespace/name" for a rollout, "F#name" for a fleet: they never collide (names have no "#"). */
export function queueKeyString(key: QueueKey): string {
  return isFleetQueueKey(key) ? fleetKey(key.fleet) : rolloutKeyString(key);
}

/** The rollout's or the fleet's own name. */
export function queueKeyName(key: QueueKey): string {
  return isFleetQueueKey(key) ? key.fleet : key.name;
}
