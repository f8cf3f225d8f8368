// A member's transition is its fleet's business (docs/fleet.md, "What enqueues a fleet"): the member
// pass that persisted a STATE change asks for a pass of its fleet. Nothing depends on it arriving:
// a fleet with a release running is due at every sweep, and every fleet is resynced.
import type { RolloutSpec } from '../../rollout/types.ts';
import type { ReconcileDeps } from '../deps.ts';

export async function notifyFleet(deps: ReconcileDeps, spec: RolloutSpec): Promise<void> {
  const fleet = spec.fleet?.name;
  if (fleet) await deps.queue?.enqueue({ fleet }, { reason: 'member' });
}
