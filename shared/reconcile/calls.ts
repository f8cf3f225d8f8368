// The hook and gate calls of one pass (shared/rollout/hooks.ts, gates.ts): record each hook call
// Started on STATE before making it (conditional on the version, so of two concurrent passes only
// one calls, and a crash leaves the record for the planner to see), make the calls, then record
// their outcomes, again conditionally. The next pass plans from the recorded outcomes: a hook's
// success is on STATE before any write it allows (a pod replaced), so a crash between the two
// never runs the hook again. Only between the end of a call and the write of its outcome can a
// crash lose an outcome; the planner then delivers the call again with the same idempotency key.
import { ConflictError, TerminalError } from '../errors.ts';
import { markStarted, recordResults } from '../rollout/results.ts';
import type { PlanResult, ReleaseState, RolloutKey, RolloutSpec } from '../rollout/types.ts';
import { historyEntries } from './history.ts';
import type { Outbox } from './ports.ts';
import type { ReconcileDeps } from './reconcile.ts';

export interface CallsOutcome {
  /** The STATE version after the outcomes were recorded, or null when another writer won (run again). */
  version: number | null;
  state: ReleaseState;
}

/**
 * `version`: the STATE version planned.nextState (already persisted by the caller when it changed)
 * is stored at; `persist` writes a state and its outbox conditionally and flushes it.
 */
export async function makeCalls(
  key: RolloutKey, spec: RolloutSpec, deps: ReconcileDeps, planned: PlanResult, version: number,
  persist: (state: ReleaseState, outbox: Outbox, expected: number) => Promise<number>,
): Promise<CallsOutcome> {
  const crash = deps.crashPoint ?? (() => {});
  if (!deps.calls) throw new TerminalError('this Rollout has hooks or gates, and this deployment of serverless-rollouts has no way to call them');
  let state = planned.nextState;
  try {
    if (planned.invocations.some((c) => c.type === 'run-hook')) {
      state = markStarted(state, planned.invocations, deps.clock.now());
      version = await persist(state, { history: [], events: [] }, version);
      await crash('calls-started');
    }
    const results = await deps.calls.run(spec.cluster, spec.namespace, planned.invocations);
    await crash('called');
    const recorded = recordResults(spec, state, results, deps.clock.now());
    state = recorded.state;
    version = await persist(state, { history: historyEntries(recorded.events, version + 1), events: recorded.events }, version);
    await crash('calls-recorded');
    return { version, state };
  } catch (err) {
    if (err instanceof ConflictError) return { version: null, state };
    throw err;
  }
}
