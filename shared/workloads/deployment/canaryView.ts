// What the CanaryWorkload strategy adds to a Deployment's view (view.ts), read from the canary
// Deployment alone, so a lost STATE changes nothing (docs/traffic.md, "Notes for the canary
// Deployment"):
//  - the canary's pods count under the revision it was made from (its CANARY_REVISION annotation),
//    not under its own template's id, which patchPodTemplateMetadata makes differ; the user's
//    Deployment, paused, keeps its N pods on the stable revision, so the planner's distribute
//    {target: k, stable: N − k} reads as Kruise's canary style: k canary pods beside N stable ones;
//  - while it exists the release strategy in flight is CanaryWorkload, and the user's Deployment
//    counts as held even once the last move has unpaused it (CANARY_FINISHING): the native
//    controller is then rolling it on purpose, and the planner must not pause it again
//    (shared/rollout/plan.ts holds an unheld workload unless it is being handed back).
import type { KubeObject } from '../../kube/types.ts';
import type { RevisionView } from '../../rollout/types.ts';
import { images, num, spec, status, templateOf } from '../common/objects.ts';
import type { CanaryRead } from './canaryObjects.ts';

/** The revisions with the canary's pods added to the one it was made from (a new entry, newest, if the user's Deployment has none). */
export function withCanaryPods(revisions: RevisionView[], read: CanaryRead): RevisionView[] {
  if (read.state !== 'ours' || read.revision === '') return revisions;
  const c = read.canary;
  const st = status(c);
  const counts = { desired: num(spec(c).replicas, 1), current: num(st.replicas), ready: num(st.readyReplicas), available: num(st.availableReplicas) };
  const existing = revisions.find((r) => r.id === read.revision);
  if (existing) {
    return revisions.map((r) => r === existing
      ? { ...r, desired: r.desired + counts.desired, current: r.current + counts.current, ready: r.ready + counts.ready, available: r.available + counts.available }
      : r);
  }
  const number = Math.max(0, ...revisions.map((r) => r.number)) + 1;
  return [{ id: read.revision, number, images: images(templateOf(c)), ...counts }, ...revisions];
}

/** The canary's controller has seen its latest spec (its counts are for the replicas we asked). */
export function canaryObserved(read: CanaryRead): boolean {
  return read.state !== 'ours' || num(status(read.canary).observedGeneration, -1) >= num(read.canary.metadata.generation);
}

/** Held: paused, or unpaused by our own last move while the canary is still there. */
export function canaryHeld(d: KubeObject, read: CanaryRead): boolean {
  return spec(d).paused === true || (read.state === 'ours' && read.finishing);
}

/** The canary Deployment's ReplicaSets (they match the user's selector too, but another Deployment controls them). */
export function canaryReplicaSets(children: readonly KubeObject[], read: CanaryRead): KubeObject[] {
  if (read.state !== 'ours') return [];
  const uid = read.canary.metadata.uid;
  return children.filter((rs) => rs.kind === 'ReplicaSet' && !rs.metadata.deletionTimestamp && (rs.metadata.ownerReferences ?? []).some((o) => o.controller === true && o.uid === uid));
}

/**
 * Someone else's object holds `<name>-canary` while the Deployment is paused on a template none of its
 * ReplicaSets holds (a CanaryWorkload release's steps): the canary cannot be created (canaryWrites.ts
 * creates nothing then), so the step says why it waits. A Partition release meets the same state for
 * the one pass before it creates its ReplicaSet; it then reads as waiting for that pass only.
 */
export function canaryBlocked(d: KubeObject, read: CanaryRead, templateHeld: boolean): string | null {
  if (read.state !== 'foreign' || spec(d).paused !== true || templateHeld) return null;
  const holder = read.holder;
  return `${holder.kind} ${holder.metadata.name} exists and is not this Deployment's canary (no label rollouts.kruise.io/canary-deployment=${d.metadata.name}): a canary-Deployment release cannot create it; rename or delete it`;
}
