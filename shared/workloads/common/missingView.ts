// The view of a workload that does not exist (or that the driver did not read): the planner then
// reports the rollout Degraded ("… not found") and touches nothing.
import type { WorkloadKind, WorkloadView } from '../../rollout/types.ts';

export function missingView(kind: WorkloadKind): WorkloadView {
  return {
    kind, exists: false, replicas: 0, templateRevision: '', revisions: [], held: false, observed: true, nativeComplete: false,
    maxSurge: 0, maxUnavailable: 0, problems: [], strategy: null, nextAvailableAt: null, toReplace: [], blocked: null, blockers: [],
  };
}
