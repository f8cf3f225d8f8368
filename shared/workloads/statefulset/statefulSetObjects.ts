// Typed reads of the StatefulSet fields the StatefulSet drivers (native apps/v1 and Kruise's
// Advanced StatefulSet, apps.kruise.io/v1beta1) use, from wire-format JSON. What every revisioned
// kind shares (ControllerRevisions, pod revisions, the partition records) is in ../common/.
import type { KubeObject } from '../../kube/types.ts';
import { isControlledBy, num, status } from '../common/objects.ts';
import { rollingUpdateOf, rollingUpdatePartition } from '../common/partition.ts';
import { podRevisionLabel } from '../common/revisions.ts';

export { BATCH_PARTITION, ORIGINAL_PARTITION } from '../common/partition.ts';
export { isPodReady } from '../common/pods.ts';
export { isObserved, isTerminating, ownedRevisions, REVISION_LABEL, revisionNumberOf, storedTemplate } from '../common/revisions.ts';

/**
 * The hold: Kruise's MaxInt16 rather than spec.replicas, so pods a scale-up adds while held are
 * still created from the current revision (the controller creates ordinals below the partition
 * from currentRevision).
 */
export const HELD_PARTITION = 32767;

/** spec.updateStrategy.rollingUpdate.partition (ordinals at or above it run the update revision). */
export const STATEFULSET_PARTITION = rollingUpdatePartition(HELD_PARTITION);

export type UpdateStrategyType = 'RollingUpdate' | 'OnDelete' | string;

export function updateStrategyType(set: KubeObject): UpdateStrategyType {
  const s = set.spec?.updateStrategy;
  const type = typeof s === 'object' && s !== null ? (s as { type?: unknown }).type : undefined;
  return typeof type === 'string' ? type : 'RollingUpdate'; // the apiserver's default
}

/** spec.updateStrategy.rollingUpdate.partition; 0 when unset (the apiserver's default). */
export function partitionOf(set: KubeObject): number {
  return num(rollingUpdateOf(set).partition, 0);
}

export function maxUnavailableOf(set: KubeObject): unknown {
  return rollingUpdateOf(set).maxUnavailable;
}

export function updateRevisionOf(set: KubeObject): string {
  const v = status(set).updateRevision;
  return typeof v === 'string' ? v : '';
}

export function currentRevisionOf(set: KubeObject): string {
  const v = status(set).currentRevision;
  return typeof v === 'string' ? v : '';
}

/** Pods of this StatefulSet: controlled by it, or orphans named like its pods (it would adopt them). */
export function ownedPods(set: KubeObject, pods: KubeObject[]): KubeObject[] {
  return pods.filter(
    (p) => isControlledBy(p, set) ||
      (!(p.metadata.ownerReferences ?? []).some((r) => r.controller) && ordinalOf(p, set.metadata.name) !== null),
  );
}

/** `<set>-<ordinal>` → ordinal; null for a pod not named like one of the set's. */
export function ordinalOf(pod: KubeObject, setName: string): number | null {
  const name = pod.metadata.name;
  if (!name.startsWith(`${setName}-`)) return null;
  const rest = name.slice(setName.length + 1);
  return /^\d+$/.test(rest) ? Number(rest) : null;
}

/** A StatefulSet pod's revision: its controller-revision-hash label, the name of its ControllerRevision. */
export function podRevision(pod: KubeObject): string {
  return podRevisionLabel(pod);
}

/** Highest ordinal first: the order the controller updates a partitioned set, and the order OnDelete batches delete. */
export function byOrdinalDescending(setName: string): (a: KubeObject, b: KubeObject) => number {
  return (a, b) => (ordinalOf(b, setName) ?? -1) - (ordinalOf(a, setName) ?? -1);
}
