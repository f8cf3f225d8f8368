// Observation → WorkloadView for a DaemonSet: the native one (held by switching to OnDelete) or
// Kruise's Advanced DaemonSet (held by its node partition). N is status.desiredNumberScheduled,
// the pods on nodes; counts come from the pods (native DaemonSet status does not split them per
// revision), a pod Available once Ready for spec.minReadySeconds with any in-place update finished.
//
// A node that joins mid-release gets its pod from the CURRENT template (both controllers create
// every new pod so), which during a release is the target revision: nothing can make it start on
// the stable one without changing the template. So its pod counts toward the batch: N grows, the
// batch restarts against it (as for an HPA scale of a Deployment), and the new pod is one of the
// batch's — later batches replace fewer old pods. During a rollback the template is the stable
// one, so a joining node runs stable.
import type { WorkloadView } from '../../rollout/types.ts';
import type { KubeObject } from '../../kube/types.ts';
import type { Observation } from '../driver.ts';
import { unavailableFirst } from '../common/deletions.ts';
import { canonicalJson, images, num, selectorString, spec, status, templateOf } from '../common/objects.ts';
import { missingView } from '../common/missingView.ts';
import { podBlockers } from '../common/blockers.ts';
import { isPartitionHeld, rollingUpdatePartition } from '../common/partition.ts';
import { isAvailable, nextAvailableAt } from '../common/pods.ts';
import { controlledPods, isObserved, isTerminating, ownedRevisions, revisionNumberOf, revisionStoring, revisionViews, storedTemplate } from '../common/revisions.ts';
import { byNodeDescending, daemonSetBudget, desiredNumberScheduled, originalStrategy, podRevision, revisionHash, strategyType, userStrategy } from './daemonSetObjects.ts';
import type { DaemonSetFlavor } from './flavor.ts';

/** Kruise's Advanced DaemonSet partition: the nodes kept on old revisions (the hold: more nodes than any cluster has). */
export const ADVANCED_DAEMONSET_PARTITION = rollingUpdatePartition(32767);

export function daemonSetView(obs: Observation, flavor: DaemonSetFlavor): WorkloadView {
  const ds = obs.workload;
  if (!ds) return missingView(flavor.kind);
  const total = desiredNumberScheduled(ds);
  const revisions = ownedRevisions(ds, obs.children);
  const observed = isObserved(ds);
  const template = templateHash(ds, revisions, flavor);
  const now = obs.now;
  const minReady = num(spec(ds).minReadySeconds);
  const pods = controlledPods(ds, obs.pods).filter((p) => !isTerminating(p));
  const partitioned = flavor.holdsBy === 'partition' && strategyType(ds) === 'RollingUpdate';
  const updated = partitioned ? Math.max(0, total - ADVANCED_DAEMONSET_PARTITION.kept(ADVANCED_DAEMONSET_PARTITION.read(ds), total)) : 0;
  const budget = daemonSetBudget(userStrategy(ds), total);
  const available = (p: KubeObject) => isAvailable(p, minReady, now);
  return {
    kind: flavor.kind,
    exists: true,
    replicas: total,
    templateRevision: template ?? '',
    templateImages: images(templateOf(ds)),
    revisions: revisionViews(
      revisions.map((cr) => ({ id: revisionHash(cr), number: revisionNumberOf(cr), images: images(storedTemplate(cr) ?? {}) })),
      {
        pods, revisionOf: podRevision, minReadySeconds: minReady, now,
        // Pods stay on their revision until replaced; a partition asks the nodes beyond it of the template's.
        desired: (id, current) => (partitioned && id === template ? Math.max(updated, current) : current),
      },
    ),
    held: isHeld(ds, flavor, total),
    observed,
    nativeComplete: observed && template !== null && num(status(ds).updatedNumberScheduled) === total && num(status(ds).numberAvailable) === total &&
      num(status(ds).currentNumberScheduled) === total && pods.every((p) => podRevision(p) === template),
    maxSurge: budget.maxSurge,
    maxUnavailable: budget.maxUnavailable,
    problems: problems(ds, template, flavor),
    strategy: null,
    nextAvailableAt: nextAvailableAt(pods, minReady, now),
    toReplace: unavailableFirst(pods.filter((p) => podRevision(p) !== template).sort(byNodeDescending), available).map((p) => p.metadata.name),
    blocked: flavor.blocked(ds),
    // Every pod is listed anyway (the counts come from them): naming the blockers reads nothing more.
    blockers: podBlockers(pods, podRevision),
  };
}

/**
 * The hash of the live template: the ControllerRevision storing it (the controllers reuse an equal
 * revision, renumbered, for an abort or undo), else the one the controller reports (native: its
 * newest revision; Kruise: status.daemonSetHash), so a template it has not recorded yet shows up
 * one pass later, once observed (the writes delete nothing and move no partition meanwhile).
 * null while the controller has recorded none.
 */
function templateHash(ds: KubeObject, revisions: KubeObject[], flavor: DaemonSetFlavor): string | null {
  const stored = revisionStoring(templateOf(ds), revisions, canonicalJson);
  if (stored) return revisionHash(stored);
  const reported = flavor.reportedHash(ds, revisions);
  return reported === '' ? null : reported;
}

/** Nothing rolls by itself: on OnDelete (ours or the user's), or a partition that keeps what our batch asked. */
function isHeld(ds: KubeObject, flavor: DaemonSetFlavor, total: number): boolean {
  const type = strategyType(ds);
  if (type === 'OnDelete') return true;
  return flavor.holdsBy === 'partition' && type === 'RollingUpdate' && isPartitionHeld(ds, ADVANCED_DAEMONSET_PARTITION, total);
}

function problems(ds: KubeObject, template: string | null, flavor: DaemonSetFlavor): string[] {
  const out: string[] = [];
  if (selectorString(spec(ds).selector) === '') out.push('spec.selector selects every pod in the namespace; a non-empty selector is required');
  if (ds.metadata.deletionTimestamp) out.push(`the ${flavor.title} is being deleted`);
  const type = strategyType(ds);
  if (type !== 'RollingUpdate' && type !== 'OnDelete') out.push(`spec.updateStrategy.type ${type} is unknown; use RollingUpdate or OnDelete`);
  const original = originalStrategy(ds);
  if (original.state === 'broken') out.push(original.problem);
  if (template === null) out.push(`the ${flavor.title} controller has not recorded a revision of the pod template yet`);
  return out;
}
