// The two StatefulSets one driver serves: the native apps/v1 one and OpenKruise's Advanced
// StatefulSet (apps.kruise.io/v1beta1). Both update pods by ordinal beyond spec.updateStrategy.
// rollingUpdate.partition and keep their revisions in ControllerRevisions named like the pods'
// controller-revision-hash; Kruise's adds an in-place podUpdatePolicy (InPlaceIfPossible,
// InPlaceOnly; we never change it), rollingUpdate.paused (honoured: never written, a paused set
// blocks the batch and the rollout says so) and keeps minReadySeconds under rollingUpdate.
import type { KubeObject } from '../../kube/types.ts';
import type { WorkloadType } from '../../rollout/workloadType.ts';
import { num, spec } from '../common/objects.ts';
import { rollingUpdateOf } from '../common/partition.ts';
import { ADVANCED_STATEFULSET_TYPE, STATEFULSET_TYPE } from './type.ts';

export interface StatefulSetFlavor {
  readonly kind: 'StatefulSet' | 'AdvancedStatefulSet';
  readonly apiVersion: string;
  /** What the rollout core may know of it (./type.ts). */
  readonly type: WorkloadType;
  readonly apiGroup: string;
  /** For messages: "StatefulSet", "Advanced StatefulSet". */
  readonly title: string;
  minReadySeconds(set: KubeObject): number;
  /** Why the set itself will not update pods now, or null. */
  blocked(set: KubeObject): string | null;
}

export const NATIVE_STATEFULSET: StatefulSetFlavor & { kind: 'StatefulSet' } = {
  kind: 'StatefulSet',
  apiVersion: STATEFULSET_TYPE.apiVersion,
  type: STATEFULSET_TYPE,
  apiGroup: 'apps',
  title: 'StatefulSet',
  minReadySeconds: (set) => num(spec(set).minReadySeconds),
  blocked: () => null,
};

export const ADVANCED_STATEFULSET: StatefulSetFlavor & { kind: 'AdvancedStatefulSet' } = {
  kind: 'AdvancedStatefulSet',
  apiVersion: ADVANCED_STATEFULSET_TYPE.apiVersion,
  type: ADVANCED_STATEFULSET_TYPE,
  apiGroup: 'apps.kruise.io',
  title: 'Advanced StatefulSet',
  minReadySeconds: (set) => num(rollingUpdateOf(set).minReadySeconds),
  blocked: (set) => rollingUpdateOf(set).paused === true
    ? 'the Advanced StatefulSet has spec.updateStrategy.rollingUpdate.paused: true, so it updates no pod; unpause it to go on'
    : null,
};
