// A pass's conditional STATE write that does not lose to commands alone. The API records a command
// by appending it to STATE.commands (a conditional write of its own, shared/adapters/dynamodb/
// stateStore.ts recordCommand). A pass whose write then met the newer version used to throw its work
// away and start over, so a user (or a CI loop) sending commands faster than a pass completes
// starved the rollout for as long as they kept sending: the soak saw rollouts make no progress for
// 14 minutes while ~100 commands piled up. When the only change since the pass read STATE is
// commands appended, the pass's result is written again on the newer version with those commands
// kept for the next pass (which the API's enqueue already asked for). Any other change (another
// pass, a delete under way, an outbox written) is a real conflict: ConflictError, as before.
import { isDeepStrictEqual } from 'node:util';
import { ConflictError } from '../errors.ts';
import type { Command, ReleaseState, RolloutKey } from '../rollout/types.ts';
import type { Outbox, StateStore, StoredState } from '../ports.ts';

/** Commands arriving one by one while a pass runs: a few rounds are plenty. */
const MAX_MERGES = 5;

/**
 * Writes `next` conditionally on `base.version`; on a conflict caused only by appended commands,
 * writes it again with them kept. Returns what is now stored.
 */
export async function saveStateKeepingCommands(store: StateStore, key: RolloutKey, next: { state: ReleaseState; outbox: Outbox }, base: StoredState): Promise<StoredState> {
  let read = base;
  let writing = next;
  for (let merges = 0; ; merges += 1) {
    try {
      const version = await store.saveState(key, writing, read.version);
      return { ...writing, version };
    } catch (err) {
      if (!(err instanceof ConflictError) || merges >= MAX_MERGES) throw err;
      const current = (await store.load(key)).state;
      const added = appendedCommands(read, current);
      if (added === null) throw err;
      writing = { ...writing, state: { ...writing.state, commands: [...writing.state.commands, ...added] } };
      read = current;
    }
  }
}

/** The commands `current` has beyond `base`, when that is all that differs; otherwise null. */
export function appendedCommands(base: StoredState, current: StoredState): Command[] | null {
  if (current.version <= base.version) return null;
  const { commands: before, ...restBefore } = base.state;
  const { commands: after, ...restAfter } = current.state;
  if (after.length < before.length || before.some((c, i) => after[i]?.id !== c.id)) return null;
  if (!isDeepStrictEqual(json(restAfter), json(restBefore)) || !isDeepStrictEqual(json(current.outbox), json(base.outbox))) return null;
  return after.slice(before.length);
}

/** As stored: DynamoDB drops undefined fields. */
function json(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value ?? null));
}
