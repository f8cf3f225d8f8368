// Watch events → the rollout keys they concern. What is watched is not listed here: each workload
// driver declares its watches (shared/workloads/driver.ts, WatchDeclaration), and the catalogue of
// watch targets is derived from the drivers of the registry. Two drivers declaring one resource
// share one watch per namespace, and each event is mapped through every declaration of it.
import type { KubeObject } from '../kube/types.ts';
import type { RolloutKey, WorkloadKind } from '../rollout/types.ts';
import type { WatchDeclaration, WorkloadDriver } from '../workloads/driver.ts';

/** One resource to watch per namespace, and the workload kinds whose drivers asked for it. */
export interface WatchTarget {
  /** "<apiVersion> <resource>", e.g. "apps/v1 replicasets". */
  id: string;
  apiVersion: string;
  resource: string;
  kind: string;
  consumers: { workloadKind: WorkloadKind; workloadOf: WatchDeclaration['workloadOf'] }[];
}

export interface ManagedLookup {
  keysFor(cluster: string, namespace: string, kind: WorkloadKind, name: string): RolloutKey[];
}

/** The watch targets of a set of drivers (normally WORKLOAD_DRIVERS), one per resource. */
export function watchTargets(drivers: Readonly<Partial<Record<WorkloadKind, WorkloadDriver>>>): WatchTarget[] {
  const targets = new Map<string, WatchTarget>();
  for (const driver of Object.values(drivers)) {
    if (!driver) continue;
    for (const w of driver.watches) {
      const id = `${w.apiVersion} ${w.resource}`;
      const target = targets.get(id) ?? { id, apiVersion: w.apiVersion, resource: w.resource, kind: w.kind, consumers: [] };
      target.consumers.push({ workloadKind: driver.kind, workloadOf: w.workloadOf });
      targets.set(id, target);
    }
  }
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
  return { keys, reason: keys.length === 0 ? '' : `${target.kind} ${obj.metadata.name} ${type}` };
}

/** Watch path of `resource` (of `apiVersion`) in one namespace: /api/v1/... for the core group. */
export function watchPathOf(apiVersion: string, namespace: string, resource: string): string {
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return `${base}/namespaces/${encodeURIComponent(namespace)}/${resource}`;
}
