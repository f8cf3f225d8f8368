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

/** A STATE item with the commands the API appends to it (a rollout's, a fleet's). */
interface Stored<S, O> {
  state: S;
  outbox: O;
  version: number;
}

type WithCommands<C> = { commands: C[] };

/** One item's conditional write and read, as the store offers them. */
export interface ItemAccess<S, O> {
  save(next: { state: S; outbox: O }, expectedVersion: number): Promise<number>;
  load(): Promise<Stored<S, O>>;
}

/**
 * Writes `next` conditionally on `base.version`; on a conflict caused only by appended commands,
 * writes it again with them kept. Returns what is now stored.
 */
export async function saveKeepingCommands<C extends { id: string }, S extends WithCommands<C>, O>(item: ItemAccess<S, O>, next: { state: S; outbox: O }, base: Stored<S, O>): Promise<Stored<S, O>> {
  let read = base;
  let writing = next;
  for (let merges = 0; ; merges += 1) {
    try {
      const version = await item.save(writing, read.version);
      return { ...writing, version };
    } catch (err) {
      if (!(err instanceof ConflictError) || merges >= MAX_MERGES) throw err;
      const current = await item.load();
      const added = appendedCommands(read, current);
      if (added === null) throw err;
      writing = { ...writing, state: { ...writing.state, commands: [...writing.state.commands, ...added] } };
      read = current;
    }
  }
}

/** A rollout's STATE, written by a pass. */
export function saveStateKeepingCommands(store: StateStore, key: RolloutKey, next: { state: ReleaseState; outbox: Outbox }, base: StoredState): Promise<StoredState> {
  return saveKeepingCommands<Command, ReleaseState, Outbox>({ save: (n, v) => store.saveState(key, n, v), load: async () => (await store.load(key)).state }, next, base);
}

/** The commands `current` has beyond `base`, when that is all that differs; otherwise null. */
export function appendedCommands<C extends { id: string }, S extends WithCommands<C>, O>(base: Stored<S, O>, current: Stored<S, O>): C[] | null {
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
