// Observation → WorkloadView for an OpenKruise CloneSet, partition style (Kruise Rollout's
// partitionstyle/cloneset): held at partition "100%" (every pod old, whatever N becomes), a batch
// of k of N lowers it to keep N − k old pods, and the CloneSet controller updates the rest its own
// way — spec.updateStrategy.type ReCreate, InPlaceIfPossible or InPlaceOnly, within its own
// maxUnavailable and maxSurge (we never change them, nor paused: a paused CloneSet blocks the
// batch and the rollout says so). Counts come from the pods, as Kruise's own status does: a pod is
// Available once Ready for spec.minReadySeconds with its in-place update finished.
import { scaledValue } from '../../rollout/arithmetic.ts';
import { asIntOrPercent } from '../../rollout/intOrPercent.ts';
import type { WorkloadView } from '../../rollout/types.ts';
import type { KubeObject } from '../../kube/types.ts';
import type { Observation } from '../driver.ts';
import { unavailableFirst } from '../common/deletions.ts';
import { canonicalJson, images, num, replicasOf, selectorString, spec, status, templateOf } from '../common/objects.ts';
import { missingView } from '../common/missingView.ts';
import { podBlockers, replicaFailure } from '../common/blockers.ts';
import { isPartitionHeld } from '../common/partition.ts';
import { activePodsOrder } from '../common/podOrder.ts';
import { isAvailable, nextAvailableAt } from '../common/pods.ts';
import { controlledPods, isObserved, isTerminating, ownedRevisions, revisionNumberOf, revisionStoring, revisionViews, storedTemplate } from '../common/revisions.ts';
import { CLONESET_PARTITION, currentRevisionOf, podRevisionIn, updateRevisionOf, updateStrategyOf } from './cloneSetObjects.ts';

export function cloneSetView(obs: Observation): WorkloadView {
  const cs = obs.workload;
  if (!cs) return missingView('CloneSet');
  const total = replicasOf(cs);
  const revisions = ownedRevisions(cs, obs.children);
  const observed = isObserved(cs);
  const template = templateRevision(cs, revisions, observed);
  const now = obs.now;
  const minReady = num(spec(cs).minReadySeconds);
  const pods = controlledPods(cs, obs.pods).filter((p) => !isTerminating(p));
  const revisionOf = podRevisionIn(revisions.map((cr) => cr.metadata.name));
  const updated = Math.max(0, total - CLONESET_PARTITION.kept(CLONESET_PARTITION.read(cs), total));
  const budget = rollingBudget(cs, total);
  const old = pods.filter((p) => revisionOf(p) !== template);
  return {
    kind: 'CloneSet',
    exists: true,
    replicas: total,
    templateRevision: template ?? '',
    templateImages: images(templateOf(cs)),
    revisions: revisionViews(
      revisions.map((cr) => ({ id: cr.metadata.name, number: revisionNumberOf(cr), images: images(storedTemplate(cr) ?? {}) })),
      {
        pods, revisionOf, minReadySeconds: minReady, now,
        // The update revision gets what the partition leaves (never fewer than it has: without
        // Kruise's CloneSetPartitionRollback gate a partition raised again rolls nothing back);
        // the old revisions keep what they have until they are updated.
        desired: (id, current) => (id === updateRevisionOf(cs) ? Math.max(updated, current) : current),
      },
    ),
    held: isPartitionHeld(cs, CLONESET_PARTITION, total),
    observed,
    nativeComplete: nativeComplete(cs, total, observed),
    maxSurge: budget.maxSurge,
    maxUnavailable: budget.maxUnavailable,
    problems: problems(cs, template),
    strategy: null,
    nextAvailableAt: nextAvailableAt(pods, minReady, now),
    // The CloneSet's own order (before a priorityStrategy or scatterStrategy of the user's reorders it).
    toReplace: unavailableFirst(activePodsOrder(old, { deletionCost: false }), (p) => isAvailable(p, minReady, now)).map((p) => p.metadata.name),
    blocked: updateStrategyOf(cs).paused === true
      ? 'the CloneSet has spec.updateStrategy.paused: true, so it updates no pod; unpause it to go on'
      : null,
    // Every pod is listed anyway (the counts come from them): naming the blockers reads nothing more.
    blockers: [replicaFailure(cs, null) ?? [], podBlockers(pods, revisionOf)].flat(),
  };
}

/** status.updateRevision once observed; before that the stored revision equal to the live template (abort, undo), else the last reported. */
function templateRevision(cs: KubeObject, revisions: KubeObject[], observed: boolean): string | null {
  const reported = updateRevisionOf(cs);
  if (observed && reported !== '') return reported;
  return revisionStoring(templateOf(cs), revisions, canonicalJson)?.metadata.name ?? (reported === '' ? null : reported);
}

/**
 * Kruise moves currentRevision to updateRevision once every pod is on it (cloneset_status.go);
 * complete when they are also all ready.
 */
function nativeComplete(cs: KubeObject, total: number, observed: boolean): boolean {
  const st = status(cs);
  return observed && updateRevisionOf(cs) !== '' && currentRevisionOf(cs) === updateRevisionOf(cs) &&
    num(st.replicas) === total && num(st.updatedReplicas) === total && num(st.updatedReadyReplicas) === total;
}

/**
 * Kruise calculateDiffsWithExpectation: maxSurge (default 0) rounds up; maxUnavailable (default
 * 20%) rounds up, or down when maxSurge > 0. Reported for people: the CloneSet enforces them itself.
 */
function rollingBudget(cs: KubeObject, total: number): { maxSurge: number; maxUnavailable: number } {
  const s = updateStrategyOf(cs);
  const maxSurge = scaledValue(asIntOrPercent(s.maxSurge, 0), total, true);
  return { maxSurge, maxUnavailable: scaledValue(asIntOrPercent(s.maxUnavailable, '20%'), total, maxSurge === 0) };
}


function problems(cs: KubeObject, template: string | null): string[] {
  const out: string[] = [];
  if (selectorString(spec(cs).selector) === '') out.push('spec.selector selects every pod in the namespace; a non-empty selector is required');
  if (cs.metadata.deletionTimestamp) out.push('the CloneSet is being deleted');
  if (template === null) out.push('the CloneSet controller has not recorded a revision of the pod template yet');
  return out;
}
