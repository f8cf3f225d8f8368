// The hook and gate calls of one pass (shared/rollout/hooks.ts, gates.ts): record each hook call
// Started on STATE before making it (conditional on the version, so of two concurrent passes only
// one calls, and a crash leaves the record for the planner to see), make the calls, then record
// their outcomes, again conditionally. The next pass plans from the recorded outcomes: a hook's
// success is on STATE before any write it allows (a pod replaced), so a crash between the two
// never runs the hook again. Only between the end of a call and the write of its outcome can a
// crash lose an outcome; the planner then delivers the call again with the same idempotency key.
import { ConflictError, TerminalError } from '../errors.ts';
import type { Invocation } from '../rollout/checkTypes.ts';
import { markStarted, recordResults } from '../rollout/results.ts';
import type { ReleaseState, RolloutSpec } from '../rollout/types.ts';
import { historyEntries } from './history.ts';
import type { Outbox, StoredState } from '../ports.ts';
import type { ReconcileDeps } from './deps.ts';

export interface CallsOutcome {
  /** The STATE version after the outcomes were recorded, or null when another writer won (run again). */
  version: number | null;
  state: ReleaseState;
}

const NO_OUTBOX: Outbox = { history: [], events: [] };

/**
 * `stored`: the STATE the pass planned from, as stored now (its transition persisted and flushed);
 * `persist` writes a state and its outbox conditionally on a stored STATE (keeping commands the API
 * appended meanwhile) and flushes it.
 */
export async function makeCalls(
  spec: RolloutSpec, deps: ReconcileDeps, calls: readonly Invocation[], stored: StoredState,
  persist: (state: ReleaseState, outbox: Outbox, base: StoredState) => Promise<StoredState>,
): Promise<CallsOutcome> {
  const crash = deps.crashPoint ?? (() => {});
  if (!deps.calls) throw new TerminalError('this Rollout has hooks or gates, and this deployment of serverless-rollouts has no way to call them');
  let now = stored;
  try {
    if (calls.some((c) => c.type === 'run-hook')) {
      now = await persist(markStarted(now.state, calls, deps.clock.now()), NO_OUTBOX, now);
      await crash('calls-started');
    }
    const results = await deps.calls.run(spec.cluster, spec.namespace, calls);
    await crash('called');
    const recorded = recordResults(spec, now.state, results, deps.clock.now());
    now = await persist(recorded.state, { history: historyEntries(recorded.events, now.version + 1), events: recorded.events }, now);
    await crash('calls-recorded');
    return { version: now.version, state: now.state };
  } catch (err) {
    if (err instanceof ConflictError) return { version: null, state: now.state };
    throw err;
  }
}
