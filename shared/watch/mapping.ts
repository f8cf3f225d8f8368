// Watch events → the rollout keys they concern. What is watched is not listed here: each workload
// driver declares its watches (shared/workloads/driver.ts, WatchDeclaration), each traffic provider
// its own and the Services' (shared/traffic/registry.ts, ROUTING_WATCHES), and the catalogue of
// watch targets is derived from those registries. Two declarations of one resource (two drivers, or
// the nginx and ALB providers' Ingresses) share one watch per namespace, and each event is mapped
// through every declaration of it: a workload's to the rollouts of that workload, a routing's through
// `routingOf` to the rollouts whose trafficRoutings name that object (docs/traffic.md).
import type { KubeObject } from '../kube/types.ts';
import type { RolloutKey, WorkloadKind } from '../rollout/types.ts';
import type { TrafficWatch } from '../traffic/provider.ts';
import type { RoutingSubject, RoutingWatch } from '../traffic/registry.ts';
import type { WatchDeclaration, WorkloadDriver } from '../workloads/driver.ts';

/** One resource to watch per namespace, and the workload kinds whose drivers asked for it. */
export interface WatchTarget {
  /** "<apiVersion> <resource>", e.g. "apps/v1 replicasets". */
  id: string;
  apiVersion: string;
  resource: string;
  kind: string;
  consumers: { workloadKind: WorkloadKind; workloadOf: WatchDeclaration['workloadOf'] }[];
  /** The routings' declarations of it: the subject their `routingOf` names an object under. */
  routings: { subject: RoutingSubject; routingOf: TrafficWatch['routingOf'] }[];
}

export interface ManagedLookup {
  keysFor(cluster: string, namespace: string, kind: WorkloadKind, name: string): RolloutKey[];
  /** Rollouts whose trafficRoutings name object `name` under `subject` (routingNames, shared/traffic/registry.ts). */
  keysForRouting(cluster: string, namespace: string, subject: RoutingSubject, name: string): RolloutKey[];
}

/**
 * The watch targets of a set of drivers (normally WORKLOAD_DRIVERS) and of routing watches (normally
 * ROUTING_WATCHES), one per resource.
 */
export function watchTargets(
  drivers: Readonly<Partial<Record<WorkloadKind, WorkloadDriver>>>,
  routingWatches: readonly RoutingWatch[] = [],
): WatchTarget[] {
  const targets = new Map<string, WatchTarget>();
  const targetOf = (w: { apiVersion: string; resource: string; kind: string }): WatchTarget => {
    const id = `${w.apiVersion} ${w.resource}`;
    const target = targets.get(id) ?? { id, apiVersion: w.apiVersion, resource: w.resource, kind: w.kind, consumers: [], routings: [] };
    targets.set(id, target);
    return target;
  };
  for (const driver of Object.values(drivers)) {
    if (!driver) continue;
    for (const w of driver.watches) targetOf(w).consumers.push({ workloadKind: driver.kind, workloadOf: w.workloadOf });
  }
  for (const { subject, watch } of routingWatches) targetOf(watch).routings.push({ subject, routingOf: watch.routingOf });
  return [...targets.values()];
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
  target: WatchTarget,
  type: string,
  obj: KubeObject,
): MappedEvent {
  const keys: RolloutKey[] = [];
  for (const { workloadKind, workloadOf } of target.consumers) {
    const workload = workloadOf(obj);
    if (workload !== null) keys.push(...lookup.keysFor(cluster, namespace, workloadKind, workload));
  }
  for (const { subject, routingOf } of target.routings) {
    const name = routingOf(obj);
    if (name !== null) keys.push(...lookup.keysForRouting(cluster, namespace, subject, name));
  }
  return { keys, reason: keys.length === 0 ? '' : `${target.kind} ${obj.metadata.name} ${type}` };
}

/** Watch path of `resource` (of `apiVersion`) in one namespace: /api/v1/... for the core group. */
export function watchPathOf(apiVersion: string, namespace: string, resource: string): string {
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return `${base}/namespaces/${encodeURIComponent(namespace)}/${resource}`;
}
