// How a watched object names the workload it belongs to, for the drivers' watch declarations
// (shared/workloads/driver.ts, WatchDeclaration.workloadOf).
import type { KubeObject } from '../../kube/types.ts';

/** The object is the workload itself. */
export function itself(obj: KubeObject): string | null {
  return obj.metadata?.name ?? null;
}

/** The workload is the object's controlling owner of `kind` (a Deployment's ReplicaSets, a StatefulSet's ControllerRevisions). */
export function controllingOwner(kind: string): (obj: KubeObject) => string | null {
  return (obj) => obj.metadata?.ownerReferences?.find((o) => o.controller === true && o.kind === kind)?.name ?? null;
}
