// Planned actions → the desired-state writes for a CloneSet: one merge patch of the partition (and
// its records, ../common/partition.ts) guarded by the observed resourceVersion, then a pod-template
// change requested by a command. Pods of an interrupted revision are old pods like the stable
// ones: later batches update them to the newest revision (as Kruise Rollout leaves them). Converged → [].
import type { KubeWrite } from '../../kube/types.ts';
import type { Action, WorkloadView } from '../../rollout/types.ts';
import type { Observation } from '../driver.ts';
import { replicasOf } from '../common/objects.ts';
import { describePartition, partitionPatch, planPartition } from '../common/partition.ts';
import { ownedRevisions, storedTemplate } from '../common/revisions.ts';
import { CLONESET_PARTITION, updateRevisionOf } from './cloneSetObjects.ts';
import { cloneSetView } from './view.ts';

export function cloneSetWrites(obs: Observation, actions: Action[], view: WorkloadView = cloneSetView(obs)): KubeWrite[] {
  const cs = obs.workload;
  if (!cs || !view.exists) return [];
  const plan = planPartition(cs, actions, {
    field: CLONESET_PARTITION, total: replicasOf(cs), observed: view.observed, updateRevision: updateRevisionOf(cs),
    storedTemplate: (revision) => {
      const cr = ownedRevisions(cs, obs.children).find((r) => r.metadata.name === revision);
      return cr ? storedTemplate(cr) : null;
    },
  });
  const moving = `${String(plan.want.partition)} pods stay old, the CloneSet updates the rest to ${updateRevisionOf(cs)}`;
  const patch = partitionPatch(cs, CLONESET_PARTITION, plan, describePartition(cs, CLONESET_PARTITION, plan, moving));
  return [...(patch ? [patch] : []), ...plan.templateWrites];
}
