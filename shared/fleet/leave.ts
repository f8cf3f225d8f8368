// A cluster leaving (`rollouts clusters deregister`, DELETE /v1/clusters/<name>): what the API
// decides from the rollouts stored for that cluster (shared/api/clusterRoutes.ts). The rule: a
// cluster never leaves a workload held. Every rollout stored for it must hand its workload back
// first, which needs the registration to reach the cluster, so the registration is removed last
// (shared/reconcile/clusterLeave.ts). A fleet member at rest hands its workload back as any deleted
// Rollout does (its template is the one it runs: nothing rolls). A member with a release in flight
// cannot: handed back mid-release, the native controller would roll the rest of the pods at once, so
// the leave is refused, naming the member and what it is doing. A Rollout that is not a fleet's is
// the user's to delete: the leave is refused, naming it.
import type { FieldIssue } from '../errors.ts';
import type { ReleaseState, RolloutKey, RolloutSpec } from '../rollout/types.ts';

/** A rollout stored for the leaving cluster: its key, SPEC (null when half-deleted) and STATE. */
export interface StoredRolloutOfCluster {
  key: RolloutKey;
  spec: RolloutSpec | null;
  state: ReleaseState;
}

/**
 * Why a member cannot hand its workload back now (a release or rollback in flight, or its fleet's
 * change written to the workload and not yet seen), or null when it is at rest. A permit recorded
 * but not yet applied is no obstacle: a delete drops pending commands (shared/rollout/plan.ts
 * planRemoval), so the change is never written.
 */
export function inFlight(state: ReleaseState): string | null {
  if (state.removing) return null;
  const rel = state.release;
  if (rel !== null) {
    const what = rel.kind === 'release' ? `a release of revision ${rel.targetRevision}` : `a ${rel.kind} to revision ${rel.targetRevision}`;
    return `${what} is in flight (${state.phase}${state.message ? `: ${state.message}` : ''})`;
  }
  if (state.permit?.status === 'Applied') return `its fleet's change (permit ${state.permit.id}) is written to the workload and not yet seen`;
  return null;
}

/** The issues that refuse the leave (409), each naming the rollout and the reason; [] when it may go. */
export function leaveIssues(cluster: string, stored: readonly StoredRolloutOfCluster[]): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const r of stored) {
    const where = `${r.key.namespace}/${r.key.name}`;
    const fleet = r.spec?.fleet?.name;
    if (r.spec === null) continue;
    if (fleet === undefined) {
      issues.push({ path: 'name', reason: `cluster ${cluster} has rollout ${where}, which no fleet owns: delete it first (rollouts delete ${r.key.name} -n ${r.key.namespace} --cluster ${cluster} hands its workload back)` });
      continue;
    }
    const why = inFlight(r.state);
    if (why !== null) {
      issues.push({ path: 'name', reason: `fleet ${fleet}'s member ${where} in cluster ${cluster} is mid-release: ${why}; deregister once it has finished, or after rollouts fleet abort ${fleet} has rolled it back` });
    }
  }
  return issues;
}

/**
 * A member the fleet no longer wants (its cluster left, or its labels) is asked to go only once
 * nothing its fleet permitted is in flight: a release or rollback under a permit finishes first
 * (its end enqueues the fleet, shared/reconcile/fleet/notify.ts), so no workload is handed back
 * halfway through a batch. A template it holds without a permit does not delay it.
 */
export function mayDropMember(state: ReleaseState | null): boolean {
  if (state === null || state.removing) return true;
  if (state.release?.permit) return false;
  return state.permit?.status !== 'Applied';
}
