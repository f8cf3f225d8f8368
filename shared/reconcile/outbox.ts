// The transactional outbox's second half: after a STATE write that recorded a transition, its
// history items and events go out, then the outbox is cleared (conditionally, keeping commands the
// API recorded meanwhile: saveState.ts). Every pass flushes a leftover outbox first (reconcile.ts).
import { ConflictError } from '../errors.ts';
import type { Outbox, StoredState } from '../ports.ts';
import type { ReleaseState, RolloutKey } from '../rollout/types.ts';
import type { ReconcileDeps } from './deps.ts';
import { saveStateKeepingCommands } from './saveState.ts';

const EMPTY_OUTBOX: Outbox = { history: [], events: [] };

/**
 * Write the history items, publish the events, then clear the outbox. Returns what is now stored,
 * or null when someone else wrote STATE first (their item keeps the outbox or has moved on; either
 * way the items and events just sent are idempotent, and the next pass sees the current STATE).
 * Commands recorded meanwhile are kept (saveState.ts).
 */
export async function flushOutbox(deps: ReconcileDeps, key: RolloutKey, state: ReleaseState, outbox: Outbox, version: number): Promise<StoredState | null> {
  await deps.store.putHistory(key, outbox.history);
  if (outbox.events.length > 0) await deps.events.publish(outbox.events);
  try {
    return await saveStateKeepingCommands(deps.store, key, { state, outbox: EMPTY_OUTBOX }, { state, version, outbox });
  } catch (err) {
    if (err instanceof ConflictError) return null;
    throw err;
  }
}
