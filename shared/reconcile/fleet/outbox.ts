// The fleet's transactional outbox, second half (docs/fleet.md, "The fleet pass"): after the STATE
// write that recorded a transition, its history items and events go out, each member command is
// recorded on its member (once: recordCommand is idempotent by id) and the member enqueued, then the
// outbox is cleared conditionally. A crash anywhere replays it; every step is idempotent.
import { ConflictError } from '../../errors.ts';
import type { FleetCommand, FleetState } from '../../fleet/types.ts';
import type { FleetOutbox, StateStore, StoredFleetState } from '../../ports.ts';
import type { ReconcileDeps } from '../deps.ts';
import { saveKeepingCommands } from '../saveState.ts';

export const EMPTY_FLEET_OUTBOX: FleetOutbox = { history: [], events: [], memberCommands: [] };

/** What is now stored, or null when someone else wrote the fleet's STATE first. */
export async function flushFleetOutbox(deps: ReconcileDeps, name: string, stored: StoredFleetState): Promise<StoredFleetState | null> {
  const { outbox } = stored;
  await deps.store.putFleetHistory(name, outbox.history);
  if (outbox.events.length > 0) await deps.events.publishFleet(outbox.events);
  for (const { member, command } of outbox.memberCommands) {
    await deps.store.recordCommand(member, command);
    await deps.queue?.enqueue(member, { reason: 'fleet' });
  }
  try {
    return await saveFleetKeepingCommands(deps.store, name, { state: stored.state, outbox: EMPTY_FLEET_OUTBOX }, stored);
  } catch (err) {
    if (err instanceof ConflictError) return null;
    throw err;
  }
}

/**
 * Writes `next` conditionally on `base.version`; when the only change since is commands the API
 * appended, writes it again with them kept (shared/reconcile/saveState.ts says why).
 */
export function saveFleetKeepingCommands(store: StateStore, name: string, next: { state: FleetState; outbox: FleetOutbox }, base: StoredFleetState): Promise<StoredFleetState> {
  return saveKeepingCommands<FleetCommand, FleetState, FleetOutbox>({ save: (n, v) => store.saveFleetState(name, n, v), load: async () => (await store.loadFleet(name)).state }, next, base);
}
