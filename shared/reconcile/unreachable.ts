// A pass that cannot reach the cluster (no connection, TLS, credentials refused, the EKS lookup
// failing) still says why: the reason becomes `cluster "prod" unreachable: <error>` with a
// ClusterUnreachable cause, and a "Cluster Unreachable" transition the first time. Written only when
// the reason changes (a retry that fails the same way writes nothing) and conditional on the version
// read, like any STATE write; a lost race changes nothing. The next pass that reaches the cluster
// plans as usual, which replaces the reason (plan.ts emits "Cluster Reachable").
import { EVENT, rolloutEvent } from '../rollout/events.ts';
import { unreachableReason } from '../rollout/message.ts';
import type { ReleaseState, RolloutKey, RolloutSpec } from '../rollout/types.ts';
import { historyEntries } from './history.ts';
import { flushOutbox } from './outbox.ts';
import { type ReconcileDeps } from './deps.ts';

export async function recordUnreachable(deps: ReconcileDeps, key: RolloutKey, spec: RolloutSpec, state: ReleaseState, version: number, err: unknown): Promise<void> {
  const now = deps.clock.now();
  const why = unreachableReason(spec, state.cause, errorChain(err), now);
  if (why.message === state.message) return;
  const next: ReleaseState = { ...state, message: why.message, cause: why.cause };
  const events = state.cause?.kind === 'ClusterUnreachable' ? [] : [
    rolloutEvent(spec, EVENT.ClusterUnreachable, {
      releaseId: state.release?.id ?? state.lastRelease?.id ?? null, phase: state.phase, stepIndex: state.release?.stepIndex ?? null,
      message: why.message, at: now, reason: why.message, cause: why.cause,
    }),
  ];
  const outbox = { history: historyEntries(events, version + 1), events };
  try {
    const saved = await deps.store.saveState(key, { state: next, outbox }, version);
    await flushOutbox(deps, key, next, outbox, saved);
  } catch {
    // Someone else wrote first (a conflict: they and the next pass decide), or the store fails too:
    // either way the pass fails with the cluster's error, which is what the caller reports and retries.
  }
}

/** "get …: fetch failed: connect ECONNREFUSED 127.0.0.1:6443": the error and what it wraps, each once. */
export function errorChain(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 5; depth += 1) {
    const message = e instanceof Error ? e.message : String(e);
    if (message && !parts.some((p) => p.includes(message))) parts.push(message);
    e = e instanceof Error ? e.cause : undefined;
  }
  return parts.join(': ');
}
