// Observation → WorkloadView for a StatefulSet held by its partition. Revisions are the
// controller's own ControllerRevisions (id = their name, which is also the pods'
// controller-revision-hash label); per-revision counts come from the pods themselves, as Kruise
// counts them, with Available honouring the set's minReadySeconds (as the controller's own
// availableReplicas does).
import { scaledValue } from '../../rollout/arithmetic.ts';
import { percentValue } from '../../rollout/intOrPercent.ts';
import type { IntOrPercent, RevisionView, WorkloadView } from '../../rollout/types.ts';
import type { KubeObject } from '../../kube/types.ts';
import type { Observation } from '../driver.ts';
import { isAvailable, nextAvailableAt } from '../common/pods.ts';
import { podBlockers, replicaFailure } from '../common/blockers.ts';
import { images, num, replicasOf, selectorString, spec, status, templateOf, canonicalJson } from '../common/objects.ts';
import { HELD_PARTITION, currentRevisionOf, isObserved, isPodReady, isTerminating, maxUnavailableOf, ownedPods, ownedRevisions, partitionOf, podRevision, recordedPartition, revisionNumberOf, storedTemplate, updateRevisionOf, updateStrategyType } from './statefulSetObjects.ts';

/** The only StatefulSet API the typed client binds; Kruise's Advanced StatefulSet needs its CRD. */
export const NATIVE_API_VERSION = 'apps/v1';

const MISSING: WorkloadView = {
  kind: 'StatefulSet', exists: false, replicas: 0, templateRevision: '', revisions: [], held: false,
  observed: true, nativeComplete: false, maxSurge: 0, maxUnavailable: 0, problems: [], strategy: null, nextAvailableAt: null, blockers: [],
};

export function statefulSetView(obs: Observation): WorkloadView {
  if (obs.ref.apiVersion !== NATIVE_API_VERSION) {
    // observe() read nothing: say why instead of reporting the workload missing.
    return { ...MISSING, exists: true, problems: [`${obs.ref.apiVersion} StatefulSet (Kruise Advanced StatefulSet) is not supported yet; only apps/v1 StatefulSets are`] };
  }
  const set = obs.workload;
  if (!set) return MISSING;
  const total = replicasOf(set);
  const revisions = ownedRevisions(set, obs.children);
  const observed = isObserved(set);
  const template = templateRevision(set, revisions, observed);
  const now = obs.now ?? new Date();
  const minReady = num(spec(set).minReadySeconds);
  const pods = ownedPods(set, obs.pods).filter((p) => !isTerminating(p));
  return {
    kind: 'StatefulSet',
    exists: true,
    replicas: total,
    templateRevision: template ?? '',
    revisions: revisionViews(revisions, pods, minReady, now, asked(set, total)),
    held: isHeld(set),
    observed,
    nativeComplete: nativeComplete(set, total, observed),
    maxSurge: 0, // a StatefulSet replaces pods in place: never more than spec.replicas
    maxUnavailable: maxUnavailable(set, total),
    problems: problems(set, template),
    strategy: null,
    nextAvailableAt: nextAvailableAt(pods, minReady, now),
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
  const live = canonicalJson(templateOf(set));
  const equal = revisions
    .filter((cr) => canonicalJson(storedTemplate(cr)) === live)
    .sort((a, b) => revisionNumberOf(b) - revisionNumberOf(a))[0];
  return equal?.metadata.name ?? (reported === '' ? null : reported);
}

/**
 * The native controller cannot update more pods than we asked: the partition is at least the one
 * our batch recorded, or the hold itself. Not on OnDelete: there is no partition of ours to hand
 * back (the rollout is Degraded there, and a deleted rollout must be able to let go).
 */
export function isHeld(set: KubeObject): boolean {
  if (updateStrategyType(set) !== 'RollingUpdate') return false;
  return partitionOf(set) >= (recordedPartition(set) ?? HELD_PARTITION);
}

/**
 * The controller's own completion: it moves currentRevision to updateRevision once every replica
 * is updated and ready (completeRollingUpdate). That stays true after the hold returns to 32767.
 */
function nativeComplete(set: KubeObject, total: number, observed: boolean): boolean {
  const st = status(set);
  return observed && updateRevisionOf(set) !== '' && currentRevisionOf(set) === updateRevisionOf(set) &&
    num(st.replicas) === total && num(st.updatedReplicas) === total && num(st.readyReplicas) === total;
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

function revisionViews(revisions: KubeObject[], pods: KubeObject[], minReadySeconds: number, now: Date, meant: Map<string, number>): RevisionView[] {
  const byId = new Map<string, RevisionView>();
  for (const cr of revisions) {
    byId.set(cr.metadata.name, {
      id: cr.metadata.name, number: revisionNumberOf(cr), images: images(storedTemplate(cr) ?? {}),
      desired: 0, current: 0, ready: 0, available: 0,
    });
  }
  // A terminating pod is on its way out (the caller left it out): the controller will recreate it at its target revision.
  for (const pod of pods) {
    const id = podRevision(pod);
    const view = byId.get(id) ?? { id, number: 0, images: images({ spec: spec(pod) }), desired: 0, current: 0, ready: 0, available: 0 };
    view.current += 1;
    if (isPodReady(pod)) view.ready += 1;
    if (isAvailable(pod, minReadySeconds, now)) view.available += 1;
    byId.set(id, view);
  }
  for (const [id, n] of meant) {
    const view = byId.get(id);
    if (view) view.desired = n;
  }
  return [...byId.values()].sort((a, b) => b.number - a.number || a.id.localeCompare(b.id));
}

/** k8s getStatefulSetMaxUnavailable: default 1, a percent rounds down, never below 1. */
function maxUnavailable(set: KubeObject, total: number): number {
  const raw = maxUnavailableOf(set);
  let value: IntOrPercent = 1;
  if (typeof raw === 'number' && Number.isSafeInteger(raw)) value = raw;
  else if (typeof raw === 'string' && percentValue(raw) !== null) value = raw as IntOrPercent;
  return Math.max(1, scaledValue(value, total, false));
}

function problems(set: KubeObject, template: string | null): string[] {
  const out: string[] = [];
  if (selectorString(spec(set).selector) === '') out.push('spec.selector selects every pod in the namespace; a non-empty selector is required');
  if (set.metadata.deletionTimestamp) out.push('the StatefulSet is being deleted');
  const type = updateStrategyType(set);
  if (type === 'OnDelete') out.push('spec.updateStrategy.type OnDelete is not supported yet; use RollingUpdate (batches move the partition)');
  else if (type !== 'RollingUpdate') out.push(`spec.updateStrategy.type ${type} is unknown; use RollingUpdate`);
  if (template === null) out.push('the StatefulSet controller has not recorded a revision of the pod template yet');
  return out;
}
