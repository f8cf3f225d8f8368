// Watch events → the rollout keys they concern. Pods are not watched: a Deployment's ReplicaSets
// carry replicas/ready/available in their status, which changes whenever a pod's readiness does,
// and the Deployment driver reads nothing else (it lists no pods). Watching pods would multiply
// the traffic by the replica count for no information the reconcile uses.
import type { KubeObject } from '../kube/types.ts';
import type { RolloutKey } from '../rollout/types.ts';

/** What the proxy watches per namespace, and how an object of it names its Deployment. */
export const WATCHED_RESOURCES = [
  { resource: 'deployments', kind: 'Deployment' },
  { resource: 'replicasets', kind: 'ReplicaSet' },
] as const;

export type WatchedKind = (typeof WATCHED_RESOURCES)[number]['kind'];

export interface ManagedLookup {
  keysFor(cluster: string, namespace: string, kind: 'Deployment', name: string): RolloutKey[];
}

/** The Deployment an object belongs to: itself, or a ReplicaSet's controlling owner; null for an orphan ReplicaSet. */
export function owningDeployment(kind: WatchedKind, obj: KubeObject): string | null {
  if (kind === 'Deployment') return obj.metadata?.name ?? null;
  const owner = obj.metadata?.ownerReferences?.find((o) => o.controller === true && o.kind === 'Deployment');
  return owner?.name ?? null;
}

export interface MappedEvent {
  keys: RolloutKey[];
  reason: string;
}

/** The rollouts an event concerns (often none: most objects in a namespace are not managed). */
export function mapWatchEvent(
  lookup: ManagedLookup,
  cluster: string,
  namespace: string,
  kind: WatchedKind,
  type: string,
  obj: KubeObject,
): MappedEvent {
  const deployment = owningDeployment(kind, obj);
  if (deployment === null) return { keys: [], reason: '' };
  return { keys: lookup.keysFor(cluster, namespace, 'Deployment', deployment), reason: `${kind} ${obj.metadata.name} ${type}` };
}

/** Watch path of `resource` in one namespace. */
export function watchPathOf(namespace: string, resource: string): string {
  return `/apis/apps/v1/namespaces/${encodeURIComponent(namespace)}/${resource}`;
}
