// ControllerRevisions and the pods of revisioned workloads (StatefulSet, DaemonSet, CloneSet and
// their Kruise siblings all keep their pod templates in ControllerRevisions, and label each pod
// with `controller-revision-hash`). Pure reads of wire-format JSON, shared by those drivers.
import type { KubeObject } from '../../kube/types.ts';
import type { RevisionView, WorkloadView } from '../../rollout/types.ts';
import type { RevisionMembers } from '../driver.ts';
import { isRecord } from '../../json.ts';
import { images, isControlledBy, num, spec, status } from './objects.ts';
import { isAvailable, isPodReady } from './pods.ts';

/** Pod (and ControllerRevision) label naming the revision: a StatefulSet/CloneSet revision's name, a DaemonSet's hash. */
export const REVISION_LABEL = 'controller-revision-hash';

/**
 * The pod template a ControllerRevision stores. The controllers save it as a strategic merge patch
 * `{spec: {template: {..., $patch: replace}}}`; nulls (creationTimestamp) are dropped so a merge
 * diff against the live template does not carry them.
 */
export function storedTemplate(cr: KubeObject): Record<string, unknown> | null {
  const data = (cr as KubeObject & { data?: unknown }).data;
  const specPart = isRecord(data) ? data.spec : undefined;
  const template = isRecord(specPart) ? specPart.template : undefined;
  if (!isRecord(template)) return null;
  const { $patch: _replace, ...rest } = template;
  return withoutNulls(rest) as Record<string, unknown>;
}

export function revisionNumberOf(cr: KubeObject): number {
  return num((cr as KubeObject & { revision?: unknown }).revision, 0);
}

/** ControllerRevisions of this workload (its controller adopts matching orphans, so they count too). */
export function ownedRevisions(workload: KubeObject, children: KubeObject[]): KubeObject[] {
  return children.filter(
    (cr) => cr.kind === 'ControllerRevision' && !cr.metadata.deletionTimestamp &&
      (isControlledBy(cr, workload) || !(cr.metadata.ownerReferences ?? []).some((r) => r.controller)),
  );
}

/** Pods controlled by the workload (or orphans it would adopt, when `adoptable` says so). */
export function controlledPods(workload: KubeObject, pods: KubeObject[], adoptable: (pod: KubeObject) => boolean = () => false): KubeObject[] {
  return pods.filter((p) => isControlledBy(p, workload) || (!(p.metadata.ownerReferences ?? []).some((r) => r.controller) && adoptable(p)));
}

export function podRevisionLabel(pod: KubeObject): string {
  return pod.metadata.labels?.[REVISION_LABEL] ?? '';
}

export function isTerminating(pod: KubeObject): boolean {
  return pod.metadata.deletionTimestamp !== undefined;
}

/** The controller has observed the latest spec: its status describes it. */
export function isObserved(workload: KubeObject): boolean {
  return num(status(workload).observedGeneration, -1) >= num(workload.metadata.generation);
}

/** One revision as the views count it: its id (what pods are labelled with), number and images. */
export interface RevisionInfo {
  id: string;
  number: number;
  images: Record<string, string>;
}

export interface PodCounting {
  /** Live (not terminating) pods of the workload. */
  pods: KubeObject[];
  /** The revision id of a pod ('' when unknown). */
  revisionOf(pod: KubeObject): string;
  minReadySeconds: number;
  now: Date;
  /** Pods each revision is meant to have (what a ReplicaSet's spec.replicas says for a Deployment). */
  desired(id: string, current: number): number;
}

/**
 * Per-revision counts from the pods themselves, as Kruise counts partition-style workloads: a pod
 * is Available once Ready for minReadySeconds and not in the middle of an in-place update. Newest first.
 */
export function revisionViews(revisions: readonly RevisionInfo[], c: PodCounting): RevisionView[] {
  const byId = new Map<string, RevisionView>();
  for (const r of revisions) byId.set(r.id, { id: r.id, number: r.number, images: r.images, desired: 0, current: 0, ready: 0, available: 0 });
  for (const pod of c.pods) {
    const id = c.revisionOf(pod);
    const view = byId.get(id) ?? { id, number: 0, images: images({ spec: spec(pod) }), desired: 0, current: 0, ready: 0, available: 0 };
    view.current += 1;
    if (isPodReady(pod)) view.ready += 1;
    if (isAvailable(pod, c.minReadySeconds, c.now)) view.available += 1;
    byId.set(id, view);
  }
  for (const view of byId.values()) view.desired = c.desired(view.id, view.current);
  return [...byId.values()].sort((a, b) => b.number - a.number || a.id.localeCompare(b.id));
}

/**
 * The ControllerRevision holding the live pod template, when the controller has not reported it
 * yet: the newest stored revision equal to it (a controller reuses an equal revision rather than
 * making a new one, which is what abort and undo rely on). null when none is.
 */
export function revisionStoring(template: Record<string, unknown>, revisions: KubeObject[], canonical: (v: unknown) => string): KubeObject | null {
  const live = canonical(template);
  return revisions
    .filter((cr) => canonical(storedTemplate(cr)) === live)
    .sort((a, b) => revisionNumberOf(b) - revisionNumberOf(a))[0] ?? null;
}

function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = withoutNulls(v);
  return out;
}

/** The API's revision → pods tree: each revision of the view with the ControllerRevision holding it and its pods. */
export function revisionMembersOf(
  view: WorkloadView, revisions: readonly KubeObject[], holderId: (cr: KubeObject) => string, pods: readonly KubeObject[], revisionOf: (pod: KubeObject) => string,
): RevisionMembers[] {
  return view.revisions.map((r) => ({
    id: r.id, holder: revisions.find((cr) => holderId(cr) === r.id) ?? null, pods: pods.filter((p) => revisionOf(p) === r.id),
  }));
}
