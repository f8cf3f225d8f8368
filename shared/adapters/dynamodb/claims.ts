// One Rollout per workload (Kruise's validateRolloutConflict), race-free without a scan: a CLAIM item
// per workload, written conditionally before the SPEC that points at it and removed with the rollout.
//   pk `W#<cluster>#<ns>#<kind>#<name>`, sk `CLAIM`, owner = the rollout's name (same namespace).
// A claim whose owner no longer points at the workload (its SPEC was changed or deleted and a crash
// lost the clean-up) is stale and is taken over, so a leftover never blocks anyone for good.
// Pure (no SDK): the in-memory fake store follows exactly the same rules.
import { WorkloadClaimedError } from '../../errors.ts';
import type { RolloutKey, WorkloadRef } from '../../rollout/types.ts';

export const SK_CLAIM = 'CLAIM';
const CLAIM_PREFIX = 'W#';

export function claimPk(key: Pick<RolloutKey, 'cluster' | 'namespace'>, ref: Pick<WorkloadRef, 'kind' | 'name'>): string {
  return `${CLAIM_PREFIX}${key.cluster}#${key.namespace}#${ref.kind}#${ref.name}`;
}

/** The owner's SPEC still points at the workload: the claim is live. */
export function claimIsLive(claimedRef: Pick<WorkloadRef, 'kind' | 'name'>, ownerRef: Pick<WorkloadRef, 'kind' | 'name'> | null): boolean {
  return ownerRef !== null && ownerRef.kind === claimedRef.kind && ownerRef.name === claimedRef.name;
}

export function claimedError(key: RolloutKey, ref: Pick<WorkloadRef, 'kind' | 'name'>, owner: string): WorkloadClaimedError {
  return new WorkloadClaimedError(
    `${ref.kind} ${key.namespace}/${ref.name} is already managed by rollout ${owner} (cluster ${key.cluster}); one Rollout per workload: change or delete that one`,
    owner,
  );
}

/** How many times a claim is re-read and retried when another apply races it. */
export const CLAIM_ATTEMPTS = 5;
