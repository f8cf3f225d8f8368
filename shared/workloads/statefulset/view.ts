// Observation → WorkloadView for a StatefulSet (native or Advanced, ./flavor.ts). Revisions are
// the controller's own ControllerRevisions (id = their name, which is also the pods'
// controller-revision-hash label); per-revision counts come from the pods themselves, as Kruise
// counts them, with Available honouring the set's minReadySeconds (as the controller's own
// availableReplicas does) and, for Kruise's in-place updates, the InPlaceUpdateReady gate.
//  - RollingUpdate: held by the partition (32767 at rest); a batch lowers it.
//  - OnDelete (the user's choice): nothing rolls by itself, so it is always held; the batch deletes
//    pods highest ordinal first (spec.onDeletePolicy Automatic) or waits for the user to (Manual).
import { scaledValue } from '../../rollout/arithmetic.ts';
import { asIntOrPercent } from '../../rollout/intOrPercent.ts';
import type { WorkloadView } from '../../rollout/types.ts';
import type { KubeObject } from '../../kube/types.ts';
import type { Observation } from '../driver.ts';
import { missingView } from '../common/missingView.ts';
import { isAvailable, nextAvailableAt } from '../common/pods.ts';
import { isPartitionHeld } from '../common/partition.ts';
import { podBlockers, replicaFailure } from '../common/blockers.ts';
import { unavailableFirst } from '../common/deletions.ts';
import { canonicalJson, images, num, replicasOf, selectorString, spec, status, templateOf } from '../common/objects.ts';
import { revisionStoring, revisionViews } from '../common/revisions.ts';
import { NATIVE_STATEFULSET, type StatefulSetFlavor } from './flavor.ts';
import {
  STATEFULSET_PARTITION, byOrdinalDescending, currentRevisionOf, isObserved, isTerminating, maxUnavailableOf, ownedPods, ownedRevisions,
  partitionOf, podRevision, revisionNumberOf, storedTemplate, updateRevisionOf, updateStrategyType,
} from './statefulSetObjects.ts';

export function statefulSetView(obs: Observation, flavor: StatefulSetFlavor = NATIVE_STATEFULSET): WorkloadView {
  if (obs.ref.apiVersion !== flavor.apiVersion) {
    // observe() read nothing: a Rollout stored before Advanced StatefulSets had their own kind.
    return { ...missingView(flavor.kind), exists: true, problems: [`${obs.ref.apiVersion} StatefulSet is an AdvancedStatefulSet now: apply the Rollout again`] };
  }
  const set = obs.workload;
  if (!set) return missingView(flavor.kind);
  const total = replicasOf(set);
  const revisions = ownedRevisions(set, obs.children);
  const observed = isObserved(set);
  const template = templateRevision(set, revisions, observed);
  const now = obs.now;
  const minReady = flavor.minReadySeconds(set);
  const pods = ownedPods(set, obs.pods).filter((p) => !isTerminating(p));
  const onDelete = updateStrategyType(set) === 'OnDelete';
  const meant = onDelete ? null : asked(set, total);
  const available = (p: KubeObject) => isAvailable(p, minReady, now);
  return {
    kind: flavor.kind,
    exists: true,
    replicas: total,
    templateRevision: template ?? '',
    templateImages: images(templateOf(set)),
    revisions: revisionViews(
      revisions.map((cr) => ({ id: cr.metadata.name, number: revisionNumberOf(cr), images: images(storedTemplate(cr) ?? {}) })),
      // OnDelete: the controller keeps the pods each revision has (a deleted one comes back on the update revision).
      { pods, revisionOf: podRevision, minReadySeconds: minReady, now, desired: (id, current) => (meant ? (meant.get(id) ?? 0) : current) },
    ),
    held: isHeld(set),
    observed,
    nativeComplete: nativeComplete(set, total, observed, onDelete),
    maxSurge: 0, // a StatefulSet replaces pods in place: never more than spec.replicas
    maxUnavailable: maxUnavailable(set, total),
    problems: problems(set, template, flavor),
    strategy: null,
    nextAvailableAt: nextAvailableAt(pods, minReady, now),
    // RollingUpdate: the controller replaces by ordinal, highest first, whatever their availability;
    // OnDelete: our deletions take the pods that cost no availability first.
    toReplace: ((old) => (onDelete ? unavailableFirst(old, available) : old))(pods.filter((p) => podRevision(p) !== template).sort(byOrdinalDescending(set.metadata.name))).map((p) => p.metadata.name),
    blocked: flavor.blocked(set),
    // Every pod is listed anyway (the counts come from them): naming the blockers reads nothing more.
    blockers: [replicaFailure(set, null) ?? [], podBlockers(pods, podRevision)].flat(),
  };
}

/**
 * The revision of the live pod template. Once the controller has observed the latest generation it
 * is status.updateRevision. Before that, a template equal to a stored revision is that revision
 * (the controller reuses an equal revision rather than making a new one: abort and undo land here);
 * a template the controller has not recorded yet is reported as the last update revision, so the
 * new revision shows up one pass later, once observed; writes lower no partition meanwhile.
 * null when the controller has never reported a revision.
 */
export function templateRevision(set: KubeObject, revisions: KubeObject[], observed: boolean): string | null {
  const reported = updateRevisionOf(set);
  if (observed && reported !== '') return reported;
  return revisionStoring(templateOf(set), revisions, canonicalJson)?.metadata.name ?? (reported === '' ? null : reported);
}

/**
 * The native controller cannot update more pods than we asked: the partition keeps at least the
 * pods our batch recorded, or the hold itself. OnDelete: nothing is updated until deleted, held by nature.
 */
export function isHeld(set: KubeObject): boolean {
  const type = updateStrategyType(set);
  if (type === 'OnDelete') return true;
  return type === 'RollingUpdate' && isPartitionHeld(set, STATEFULSET_PARTITION, replicasOf(set));
}

/**
 * The controller's own completion: it moves currentRevision to updateRevision once every replica
 * is updated and ready (completeRollingUpdate). That stays true after the hold returns to 32767.
 * OnDelete sets never move currentRevision: every replica updated and ready is completion there.
 */
function nativeComplete(set: KubeObject, total: number, observed: boolean, onDelete: boolean): boolean {
  const st = status(set);
  const allUpdated = num(st.replicas) === total && num(st.updatedReplicas) === total && num(st.readyReplicas) === total;
  return observed && updateRevisionOf(set) !== '' && allUpdated && (onDelete || currentRevisionOf(set) === updateRevisionOf(set));
}

/**
 * Pods each revision is meant to have: the controller puts the update revision on every ordinal at
 * or above the partition and the current revision below it (a pod of another revision there is a
 * stray the driver replaces, strays.ts). What a Deployment's ReplicaSet spec.replicas says.
 */
function asked(set: KubeObject, total: number): Map<string, number> {
  const update = updateRevisionOf(set);
  const current = currentRevisionOf(set) || update;
  const above = Math.max(0, Math.min(total, total - partitionOf(set)));
  const out = new Map<string, number>();
  out.set(current, (out.get(current) ?? 0) + (total - above));
  out.set(update, (out.get(update) ?? 0) + above);
  return out;
}

/** k8s getStatefulSetMaxUnavailable (Kruise's the same): default 1, a percent rounds down, never below 1. */
function maxUnavailable(set: KubeObject, total: number): number {
  return Math.max(1, scaledValue(asIntOrPercent(maxUnavailableOf(set), 1), total, false));
}

function problems(set: KubeObject, template: string | null, flavor: StatefulSetFlavor): string[] {
  const out: string[] = [];
  if (selectorString(spec(set).selector) === '') out.push('spec.selector selects every pod in the namespace; a non-empty selector is required');
  if (set.metadata.deletionTimestamp) out.push(`the ${flavor.title} is being deleted`);
  const type = updateStrategyType(set);
  if (type !== 'RollingUpdate' && type !== 'OnDelete') out.push(`spec.updateStrategy.type ${type} is unknown; use RollingUpdate or OnDelete`);
  if (template === null) out.push(`the ${flavor.title} controller has not recorded a revision of the pod template yet`);
  return out;
}
