// spec.onDeletePolicy Manual means "I delete the pods": that only moves a workload whose own
// strategy is OnDelete. A partitioned set would recreate a deleted pod below the partition on the
// old revision, so the API refuses the combination when the Rollout is applied (read from the live
// workload); a set switched to RollingUpdate later is simply released by its partition.
import type { FieldIssue } from '../../errors.ts';
import type { KubeObject } from '../../kube/types.ts';
import type { RolloutSpec } from '../../rollout/types.ts';

export function manualNeedsOnDelete(rollout: RolloutSpec, strategyType: (workload: KubeObject) => string, title: string): ((workload: KubeObject) => FieldIssue[]) | null {
  if (rollout.onDeletePolicy !== 'Manual') return null;
  return (workload) => strategyType(workload) === 'OnDelete' ? [] : [{ path: 'spec.onDeletePolicy', reason: `Manual needs a ${title} with spec.updateStrategy.type OnDelete; ${workload.metadata.namespace ?? ''}/${workload.metadata.name} has ${strategyType(workload)}, which its partition releases: leave onDeletePolicy out, or switch the workload to OnDelete` }];
}
