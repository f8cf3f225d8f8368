// The live workload as `rollouts get` draws it: revisions (newest first), each with the object that
// holds its pods (a Deployment's ReplicaSet, a StatefulSet's ControllerRevision) and those pods.
// Pure: built from a driver's observation (its own GET and LISTs) and the driver's view, so the
// counts are exactly the ones the reconcile plans with.
import type { KubeObject } from '../kube/types.ts';
import type { RevisionView } from '../rollout/types.ts';
import { num, spec as specOf, status as statusOf, templateOf } from '../workloads/common/objects.ts';
import { deploymentDriver } from '../workloads/deployment/driver.ts';
import { revisionId } from '../workloads/deployment/revision.ts';
import { ownedReplicaSets } from '../workloads/deployment/view.ts';
import type { Observation } from '../workloads/driver.ts';
import { ownedPods, ownedRevisions, podRevision } from '../workloads/statefulset/statefulSetObjects.ts';
import { statefulSetDriver } from '../workloads/statefulset/driver.ts';

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
  /** The ReplicaSet (Deployment) or ControllerRevision (StatefulSet) of this revision; the newest if two. */
  replicaSet: string;
  desired: number;
  current: number;
  ready: number;
  available: number;
  ageSeconds: number;
  pods: WorkloadPod[];
}

export interface WorkloadView {
  kind: 'Deployment' | 'StatefulSet';
  name: string;
  replicas: number;
  /** Newest first. */
  revisions: WorkloadRevision[];
}

/** `pods` are listed by the Deployment's selector (its driver lists none). */
export function deploymentWorkload(obs: Observation, pods: KubeObject[], now: number): WorkloadView {
  const view = deploymentDriver.view(obs);
  const replicaSets = ownedReplicaSets(obs);
  return {
    kind: 'Deployment', name: obs.ref.name, replicas: view.replicas,
    revisions: view.revisions.map((r) => {
      const mine = replicaSets.filter((rs) => revisionId(templateOf(rs)) === r.id).sort((a, b) => created(b) - created(a));
      const uids = new Set(mine.map((rs) => rs.metadata.uid));
      return revision(r, mine[0], pods.filter((p) => (p.metadata.ownerReferences ?? []).some((o) => o.controller === true && uids.has(o.uid))), now, byName);
    }),
  };
}

export function statefulSetWorkload(obs: Observation, now: number): WorkloadView {
  const view = statefulSetDriver.view(obs);
  const set = obs.workload as KubeObject;
  const revisions = ownedRevisions(set, obs.children);
  const pods = ownedPods(set, obs.pods);
  return {
    kind: 'StatefulSet', name: obs.ref.name, replicas: view.replicas,
    revisions: view.revisions.map((r) => revision(r, revisions.find((cr) => cr.metadata.name === r.id), pods.filter((p) => podRevision(p) === r.id), now, byOrdinal)),
  };
}

type PodOrder = (a: KubeObject, b: KubeObject) => number;
const byName: PodOrder = (a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0);
/** web-2 before web-10. */
const byOrdinal: PodOrder = (a, b) => a.metadata.name.localeCompare(b.metadata.name, 'en', { numeric: true });

function revision(r: RevisionView, holder: KubeObject | undefined, pods: KubeObject[], now: number, order: PodOrder): WorkloadRevision {
  return {
    number: r.number, id: r.id, images: r.images,
    replicaSet: holder?.metadata.name ?? r.id,
    desired: r.desired, current: r.current, ready: r.ready, available: r.available,
    ageSeconds: holder ? ageSeconds(holder, now) : 0,
    pods: pods.sort(order).map((p) => podView(p, now)),
  };
}

export function podView(pod: KubeObject, now: number): WorkloadPod {
  const st = statusOf(pod);
  const containers = Array.isArray(st.containerStatuses) ? (st.containerStatuses as Record<string, unknown>[]) : [];
  const declared = Array.isArray(specOf(pod).containers) ? (specOf(pod).containers as unknown[]).length : containers.length;
  const conditions = Array.isArray(st.conditions) ? (st.conditions as Record<string, unknown>[]) : [];
  return {
    name: pod.metadata.name,
    ready: conditions.some((c) => c.type === 'Ready' && c.status === 'True'),
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
