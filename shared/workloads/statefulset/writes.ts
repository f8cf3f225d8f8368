// Planned actions → the desired-state writes for a StatefulSet held by its partition. The partition
// says how many pods keep the old revision (Kruise: partition = N − batch) and the native
// controller updates the rest, highest ordinal first, within its own maxUnavailable; pods are
// deleted only when an interrupted release left strays below the partition (strays.ts). Everything
// for the set goes into one merge patch guarded by the observed resourceVersion, then pod deletes,
// then a pod-template change requested by a command. Converged → [].
import { objectRef, templateOf } from '../common/objects.ts';
import { templateChangeWrite } from '../common/templateChange.ts';
import type { KubeObject, KubeWrite } from '../../kube/types.ts';
import type { Action, WorkloadView } from '../../rollout/types.ts';
import type { Observation } from '../driver.ts';
import { mergePatchDiff } from '../common/mergePatch.ts';
import { BATCH_PARTITION, HELD_PARTITION, ownedRevisions, partitionOf, recordedPartition, storedTemplate, updateRevisionOf, updateStrategyType } from './statefulSetObjects.ts';
import { strayDeletions } from './strays.ts';
import { statefulSetView } from './view.ts';

/** What one pass wants the partition (and its record) to be; undefined record = no annotation. */
interface PartitionIntent {
  partition: number;
  record: number | undefined;
}

export function statefulSetWrites(obs: Observation, actions: Action[], view: WorkloadView = statefulSetView(obs)): KubeWrite[] {
  const set = obs.workload;
  // No problem check: a Degraded rollout plans no actions, except the hand-back of a deleted rollout,
  // which must go through whatever is wrong with the workload.
  if (!set || !view.exists) return [];
  // On OnDelete the native controller never updates a pod by itself: there is no partition to move.
  const partitioned = updateStrategyType(set) === 'RollingUpdate';
  const live: PartitionIntent = { partition: partitionOf(set), record: recordedPartition(set) };
  let want: PartitionIntent = live;
  let template: unknown;
  const templateWrites: KubeWrite[] = [];
  let deletions: KubeWrite[] = [];

  for (const action of actions) {
    switch (action.type) {
      case 'hold':
        if (partitioned) want = { partition: HELD_PARTITION, record: undefined };
        break;
      case 'release-hold':
        // Hand back: the native controller owns the partition again (Kruise finalize: partition null).
        if (partitioned) want = { partition: 0, record: undefined };
        break;
      case 'set-template':
        // A new template must never land on a lowered partition (the controller would roll it to
        // every pod above the partition at once): raise it first, in the patch sent before the template.
        if (partitioned) want = { partition: HELD_PARTITION, record: undefined };
        templateWrites.push(templateChangeWrite(objectRef(set), action.change));
        deletions = [];
        break;
      case 'restore-template': {
        const cr = ownedRevisions(set, obs.children).find((r) => r.metadata.name === action.revision);
        const stored = cr ? storedTemplate(cr) : null;
        if (stored) template = mergePatchDiff(templateOf(set), stored);
        break;
      }
      case 'distribute': {
        // Only for the revision the controller rolls to, and only once it has observed the latest
        // spec: lowering the partition under a template it has not seen yet would roll that one.
        // Nor in the pass that changes the template: its raised partition must stay until observed.
        if (!partitioned || !view.observed || action.target !== updateRevisionOf(set) || templateWrites.length > 0) break;
        // Never moves backwards within a release (Kruise: a partition only goes down): pods already
        // updated stay updated, e.g. the new ordinals a scale-up created above the partition. From
        // our own last batch (its record): a partition someone else lowered is no floor.
        const floor = recordedPartition(set) ?? partitionOf(set);
        const partition = Math.max(0, Math.min(floor, view.replicas - (action.distribution[action.target] ?? 0)));
        want = { partition, record: partition };
        deletions = strayDeletions({
          set, pods: obs.pods, partition, target: action.target, distribution: action.distribution, maxUnavailable: view.maxUnavailable,
        });
        break;
      }
    }
  }

  const specPatch: Record<string, unknown> = {};
  if (want.partition !== live.partition) specPatch.updateStrategy = { rollingUpdate: { partition: want.partition } };
  if (template !== undefined) specPatch.template = template;
  const recordChanged = want.record !== live.record || (want.record === undefined && set.metadata.annotations?.[BATCH_PARTITION] !== undefined);
  const writes: KubeWrite[] = [];
  if (Object.keys(specPatch).length > 0 || recordChanged) {
    writes.push({
      verb: 'patch', ref: objectRef(set), patchType: 'merge', resourceVersion: set.metadata.resourceVersion,
      patch: {
        ...(recordChanged ? { metadata: { annotations: { [BATCH_PARTITION]: want.record === undefined ? null : String(want.record) } } } : {}),
        ...(Object.keys(specPatch).length > 0 ? { spec: specPatch } : {}),
      },
      reason: describe(want, live, template !== undefined, set),
    });
  }
  return [...writes, ...deletions, ...templateWrites];
}



function describe(want: PartitionIntent, live: PartitionIntent, restoresTemplate: boolean, set: KubeObject): string {
  const parts: string[] = [];
  if (want.partition !== live.partition) {
    if (want.partition === HELD_PARTITION && want.record === undefined) parts.push(`hold (partition ${HELD_PARTITION})`);
    else if (want.partition === 0 && want.record === undefined) parts.push('hand back to the StatefulSet controller (partition 0)');
    else parts.push(`partition ${want.partition}: pods from ordinal ${want.partition} up move to ${updateRevisionOf(set)}`);
  }
  if (restoresTemplate) parts.push('restore pod template');
  return parts.join(', ') || (want.record === undefined ? `drop ${BATCH_PARTITION}` : `record batch partition ${want.record}`);
}
