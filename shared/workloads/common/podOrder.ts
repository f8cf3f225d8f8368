// The order in which Kubernetes controllers pick pods among equals, k8s controller.ActivePods:
// unscheduled before scheduled, Pending before Unknown before Running, not Ready before Ready, the
// most recently Ready first, more restarts first, newer first. The ReplicaSet controller deletes an
// old ReplicaSet's pods in this order (ActivePodsWithRanks, which puts a lower
// `controller.kubernetes.io/pod-deletion-cost` first: how pod-level hooks can steer a Deployment),
// and Kruise's CloneSet updates its old pods in it before its priority and scatter strategies.
import type { KubeObject } from '../../kube/types.ts';
import { num, spec, status } from './objects.ts';
import { readySince } from './pods.ts';

export const POD_DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';

const PHASE_RANK: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

export function activePodsOrder(pods: readonly KubeObject[], opts: { deletionCost: boolean }): KubeObject[] {
  return [...pods].sort((a, b) =>
    Number(Boolean(spec(a).nodeName)) - Number(Boolean(spec(b).nodeName)) ||
    phaseRank(a) - phaseRank(b) ||
    Number(readySince(a) !== null) - Number(readySince(b) !== null) ||
    (opts.deletionCost ? deletionCost(a) - deletionCost(b) : 0) ||
    (readySince(b) ?? 0) - (readySince(a) ?? 0) ||
    restarts(b) - restarts(a) ||
    created(b) - created(a) ||
    a.metadata.name.localeCompare(b.metadata.name));
}

function phaseRank(pod: KubeObject): number {
  return PHASE_RANK[String(status(pod).phase)] ?? 0;
}

function deletionCost(pod: KubeObject): number {
  const raw = pod.metadata.annotations?.[POD_DELETION_COST];
  const v = raw === undefined ? 0 : Number(raw);
  return Number.isFinite(v) ? v : 0;
}

function restarts(pod: KubeObject): number {
  const statuses = status(pod).containerStatuses;
  return Array.isArray(statuses) ? statuses.reduce((n: number, c) => n + num((c as { restartCount?: unknown }).restartCount), 0) : 0;
}

function created(pod: KubeObject): number {
  const t = Date.parse(String(pod.metadata.creationTimestamp ?? ''));
  return Number.isNaN(t) ? 0 : t;
}
