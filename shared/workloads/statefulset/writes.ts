// Planned actions → the desired-state writes for a StatefulSet (native or Advanced).
//  - RollingUpdate: the partition says how many pods keep the old revision (Kruise: partition =
//    N − batch) and the controller updates the rest, highest ordinal first, within its own
//    maxUnavailable (../common/partition.ts). Pods are deleted only when an interrupted release
//    left strays below the partition (strays.ts).
//  - OnDelete (the user's strategy): a batch deletes old pods highest ordinal first, never leaving
//    more pods unavailable than maxUnavailable (1, the default an OnDelete set cannot change);
//    the controller recreates each on the update revision. With spec.onDeletePolicy Manual it
//    deletes nothing: the user does, and the batch waits for them.
// Everything for the set goes into one merge patch guarded by the observed resourceVersion, then
// pod deletes, then a pod-template change requested by a command. Converged → [].
import type { KubeObject, KubeWrite } from '../../kube/types.ts';
import type { Action, WorkloadView } from '../../rollout/types.ts';
import type { Observation } from '../driver.ts';
import { batchDeletions } from '../common/deletions.ts';
import { mergePatchDiff } from '../common/mergePatch.ts';
import { objectRef, replicasOf, templateOf } from '../common/objects.ts';
import { describePartition, partitionPatch, planPartition } from '../common/partition.ts';
import { templateChangeWrite } from '../common/templateChange.ts';
import { NATIVE_STATEFULSET, type StatefulSetFlavor } from './flavor.ts';
import { STATEFULSET_PARTITION, isObserved, ownedPods, ownedRevisions, podRevision, storedTemplate, updateRevisionOf, updateStrategyType } from './statefulSetObjects.ts';
import { strayDeletions } from './strays.ts';
import { statefulSetView } from './view.ts';

export function statefulSetWrites(obs: Observation, actions: Action[], view?: WorkloadView, flavor: StatefulSetFlavor = NATIVE_STATEFULSET): KubeWrite[] {
  const set = obs.workload;
  const v = view ?? statefulSetView(obs, flavor);
  // No problem check: a Degraded rollout plans no actions, except the hand-back of a deleted rollout,
  // which must go through whatever is wrong with the workload.
  if (!set || !v.exists) return [];
  const stored = (revision: string) => {
    const cr = ownedRevisions(set, obs.children).find((r) => r.metadata.name === revision);
    return cr ? storedTemplate(cr) : null;
  };
  const type = updateStrategyType(set);
  if (type === 'OnDelete') return onDeleteWrites(obs, set, actions, v, flavor, stored);
  if (type !== 'RollingUpdate') return [];
  const plan = planPartition(set, actions, {
    field: STATEFULSET_PARTITION, total: replicasOf(set), observed: v.observed, updateRevision: updateRevisionOf(set), storedTemplate: stored,
  });
  const patch = partitionPatch(set, STATEFULSET_PARTITION, plan,
    describePartition(set, STATEFULSET_PARTITION, plan, `pods from ordinal ${String(plan.want.partition)} up move to ${updateRevisionOf(set)}`));
  const deletions = plan.batch === null ? [] : strayDeletions({
    set, pods: obs.pods, partition: Number(plan.want.partition), target: plan.batch.target, distribution: plan.batch.action.distribution, maxUnavailable: v.maxUnavailable,
    minReadySeconds: flavor.minReadySeconds(set), now: obs.now,
  });
  return [...(patch ? [patch] : []), ...deletions, ...plan.templateWrites];
}

/**
 * OnDelete: no partition to move and nothing to hold or hand back. A batch deletes only once the
 * controller has observed the template and rolls to the target (a pod deleted earlier would come
 * back on the previous update revision).
 */
function onDeleteWrites(
  obs: Observation, set: KubeObject, actions: Action[], view: WorkloadView, flavor: StatefulSetFlavor, stored: (revision: string) => Record<string, unknown> | null,
): KubeWrite[] {
  let template: unknown;
  let templateWrites: KubeWrite[] = [];
  let deletions: KubeWrite[] = [];
  for (const action of actions) {
    if (action.type === 'set-template') {
      templateWrites = [templateChangeWrite(set, action.change, stored)];
      deletions = [];
    } else if (action.type === 'restore-template') {
      const t = stored(action.revision);
      if (t) template = mergePatchDiff(templateOf(set), t);
    } else if (action.type === 'distribute') {
      if (action.onDeletePolicy === 'Manual' || !isObserved(set) || action.target !== updateRevisionOf(set) || templateWrites.length > 0) continue;
      deletions = deleteOldPods(obs, set, view, flavor, action.target, action.distribution[action.target] ?? 0);
    }
  }
  const patch: KubeWrite[] = template === undefined ? [] : [{
    verb: 'patch', ref: objectRef(set), patchType: 'merge', resourceVersion: set.metadata.resourceVersion, patch: { spec: { template } }, reason: 'restore pod template',
  }];
  return [...patch, ...deletions, ...templateWrites];
}

function deleteOldPods(obs: Observation, set: KubeObject, view: WorkloadView, flavor: StatefulSetFlavor, target: string, desired: number): KubeWrite[] {
  return batchDeletions({
    pods: ownedPods(set, obs.pods), order: view.toReplace, revisionOf: podRevision, target, desired,
    total: replicasOf(set), minReadySeconds: flavor.minReadySeconds(set), now: obs.now, maxUnavailable: view.maxUnavailable,
    reason: (p) => `delete ${p.metadata.name} (revision ${podRevision(p) || 'unknown'}; OnDelete) so the ${flavor.title} recreates it at ${target}`,
  });
}
