// A release that cannot go on (a missed batch deadline, a failed gate or hook, a pod that did not
// update in time): automatic rollback when the Rollout asks for it, else frozen with the reason
// until retry, abort or a new revision. Rollbacks and undos do not fail: they are the way back.
import type { Cause } from './cause.ts';
import type { Draft } from './draft.ts';
import { EVENT } from './events.ts';
import type { Release } from './types.ts';

/**
 * `because`: the structured cause when it is not the batch deadline (a gate's last value, a hook's
 * output, the pod that timed out); the rollback keeps it, so the rollout says why once rolled back.
 */
export function failRelease(d: Draft, rel: Release, why: string, because: Cause | null = null): void {
  const failedBecause = because === null ? null : { message: why, cause: because };
  if (d.spec.rollbackOnFailure) {
    d.emit(EVENT.ReleaseFailed, `${why}; rolling back to the stable revision`);
    const rollback = d.startRelease('rollback', rel.stableRevision, rel.stableRevision, { id: rel.id, endPhase: 'Failed' });
    if (failedBecause !== null) rollback.failedBecause = failedBecause;
    d.emit(EVENT.RollbackStarted, 'automatic rollback after failure');
    return;
  }
  rel.failure = why;
  if (failedBecause !== null) rel.failedBecause = failedBecause;
  d.emit(EVENT.ReleaseFailed, `${why}; waiting for retry, abort or a new revision`);
}
