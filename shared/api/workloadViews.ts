// The live workload as `rollouts get` draws it: revisions (newest first), each with the object that
// holds its pods (a Deployment's ReplicaSet, the other kinds' ControllerRevision) and those pods.
// Pure: built from a driver's observation (its own GET and LISTs) with the driver's own view and
// revision membership, so the counts are exactly the ones the reconcile plans with.
import type { KubeObject } from '../kube/types.ts';
import type { RevisionView, WorkloadKind } from '../rollout/types.ts';
import { num, spec as specOf, status as statusOf } from '../workloads/common/objects.ts';
import { isPodReady } from '../workloads/common/pods.ts';
import type { Observation, RevisionMembers, WorkloadDriver } from '../workloads/driver.ts';

export interface WorkloadPod {
  name: string;
  /** The PodReady condition. */
  ready: boolean;
  readyContainers: number;
  containers: number;
  /** status.phase: Pending, Running, Succeeded, Failed, Unknown. */
  phase: string;
  /** What kubectl's STATUS column would say when it is not the phase (Terminating, ContainerCreating, CrashLoopBackOff…), else null. */
  reason: string | null;
  ageSeconds: number;
  restarts: number;
}

export interface WorkloadRevision {
  /** deployment.kubernetes.io/revision, or the ControllerRevision's revision (0 if unknown). */
  number: number;
  /** Our revision id (the ids in the rollout's status). */
  id: string;
  images: Record<string, string>;
  /**
   * The name of the object that holds this revision (WorkloadView.holderKind: a Deployment's
   * ReplicaSet, the other kinds' ControllerRevision); the newest if two; the revision id when none is left.
   */
  holder: string;
  desired: number;
  current: number;
  ready: number;
  available: number;
  ageSeconds: number;
  pods: WorkloadPod[];
}

export interface WorkloadView {
  kind: WorkloadKind;
  name: string;
  /** N: replicas, or the nodes a DaemonSet schedules. */
  replicas: number;
  /** The kind of object holding each revision: ReplicaSet or ControllerRevision. */
  holderKind: string;
  /** Newest first. */
  revisions: WorkloadRevision[];
}

/** `obs.pods` must hold the workload's pods (the route lists them when the driver did not). */
export function workloadView(driver: WorkloadDriver, obs: Observation, now: number): WorkloadView {
  const view = driver.view(obs);
  const members = new Map(driver.revisionMembers(obs).map((m) => [m.id, m]));
  return {
    kind: obs.ref.kind, name: obs.ref.name, replicas: view.replicas, holderKind: driver.revisionHolder,
    revisions: view.revisions.map((r) => revision(r, members.get(r.id), now)),
  };
}

/** web-2 before web-10 (StatefulSet ordinals), and any names in a stable order. */
const byName = (a: KubeObject, b: KubeObject) => a.metadata.name.localeCompare(b.metadata.name, 'en', { numeric: true });

function revision(r: RevisionView, members: RevisionMembers | undefined, now: number): WorkloadRevision {
  const holder = members?.holder ?? undefined;
  return {
    number: r.number, id: r.id, images: r.images,
    holder: holder?.metadata.name ?? r.id,
    desired: r.desired, current: r.current, ready: r.ready, available: r.available,
    ageSeconds: holder ? ageSeconds(holder, now) : 0,
    pods: [...(members?.pods ?? [])].sort(byName).map((p) => podView(p, now)),
  };
}

export function podView(pod: KubeObject, now: number): WorkloadPod {
  const st = statusOf(pod);
  const containers = Array.isArray(st.containerStatuses) ? (st.containerStatuses as Record<string, unknown>[]) : [];
  const declared = Array.isArray(specOf(pod).containers) ? (specOf(pod).containers as unknown[]).length : containers.length;
  return {
    name: pod.metadata.name,
    ready: isPodReady(pod),
    readyContainers: containers.filter((c) => c.ready === true).length,
    containers: declared,
    phase: typeof st.phase === 'string' ? st.phase : 'Unknown',
    reason: podReason(pod, containers),
    ageSeconds: ageSeconds(pod, now),
    restarts: containers.reduce((n, c) => n + num(c.restartCount), 0),
  };
}

/** kubectl's STATUS when it says more than the phase: being deleted, or a container waiting/terminated reason. */
function podReason(pod: KubeObject, containers: Record<string, unknown>[]): string | null {
  if (pod.metadata.deletionTimestamp) return 'Terminating';
  for (const c of containers) {
    const state = (c.state ?? {}) as Record<string, { reason?: unknown } | undefined>;
    const reason = state.waiting?.reason ?? state.terminated?.reason;
    if (typeof reason === 'string' && reason !== '') return reason;
  }
  const podReasonText = statusOf(pod).reason;
  if (typeof podReasonText === 'string' && podReasonText !== '') return podReasonText;
  // Scheduled but no container status yet: what kubectl shows as ContainerCreating.
  if (statusOf(pod).phase === 'Pending' && containers.length === 0 && specOf(pod).nodeName) return 'ContainerCreating';
  return null;
}

function created(o: KubeObject): number {
  const t = Date.parse(String(o.metadata.creationTimestamp ?? ''));
  return Number.isNaN(t) ? 0 : t;
}

function ageSeconds(o: KubeObject, now: number): number {
  const t = created(o);
  return t === 0 ? 0 : Math.max(0, Math.floor((now - t) / 1000));
}
