// The kinds the product touches, each bound to client-node's typed API methods, and custom
// resources (the Kruise workloads) through CustomObjectsApi. Both build the URL locally;
// KubernetesObjectApi would first GET /apis/<group>/<version> for discovery on every call,
// doubling the request count we pay for.
import type { AppsV1Api, ConfigurationOptions, CoreV1Api, CustomObjectsApi, V1DeleteOptions } from '@kubernetes/client-node';
import { RolloutsError } from '../../errors.ts';
import type { KubeObject } from '../../kube/types.ts';

/** A kind we have no binding for (a built-in kind missing from the table). */
export class UnsupportedKindError extends RolloutsError {}

type Opts = ConfigurationOptions;
interface Named {
  name: string;
  namespace: string;
}

/** Typed-API calls for one kind. Missing operations are not supported for that kind. */
export interface KindOps {
  read(p: Named, o: Opts): Promise<unknown>;
  list?(p: { namespace: string; labelSelector: string }, o: Opts): Promise<unknown>;
  create?(p: { namespace: string; body: KubeObject }, o: Opts): Promise<unknown>;
  patch?(p: Named & { body: unknown }, o: Opts): Promise<unknown>;
  remove?(p: Named & { body?: V1DeleteOptions }, o: Opts): Promise<unknown>;
}

/**
 * Our plain JSON where the generated method wants its model class. Safe: the generated serializer
 * passes strings through where the model has a Date, and writes only fields the model knows.
 */
function model<T>(o: KubeObject): T {
  return o as unknown as T;
}

/** Key of the table: "apps/v1/Deployment", "v1/Pod". */
export function kindKey(apiVersion: string, kind: string): string {
  return `${apiVersion}/${kind}`;
}

export function kindTable(apps: AppsV1Api, core: CoreV1Api): ReadonlyMap<string, KindOps> {
  const table: Record<string, KindOps> = {
    'apps/v1/Deployment': {
      read: (p, o) => apps.readNamespacedDeployment(p, o),
      list: (p, o) => apps.listNamespacedDeployment(p, o),
      create: (p, o) => apps.createNamespacedDeployment({ namespace: p.namespace, body: model(p.body) }, o),
      patch: (p, o) => apps.patchNamespacedDeployment(p, o),
      remove: (p, o) => apps.deleteNamespacedDeployment(p, o),
    },
    'apps/v1/ReplicaSet': {
      read: (p, o) => apps.readNamespacedReplicaSet(p, o),
      list: (p, o) => apps.listNamespacedReplicaSet(p, o),
      create: (p, o) => apps.createNamespacedReplicaSet({ namespace: p.namespace, body: model(p.body) }, o),
      patch: (p, o) => apps.patchNamespacedReplicaSet(p, o),
      remove: (p, o) => apps.deleteNamespacedReplicaSet(p, o),
    },
    'apps/v1/StatefulSet': {
      read: (p, o) => apps.readNamespacedStatefulSet(p, o),
      list: (p, o) => apps.listNamespacedStatefulSet(p, o),
      create: (p, o) => apps.createNamespacedStatefulSet({ namespace: p.namespace, body: model(p.body) }, o),
      patch: (p, o) => apps.patchNamespacedStatefulSet(p, o),
      remove: (p, o) => apps.deleteNamespacedStatefulSet(p, o),
    },
    'apps/v1/DaemonSet': {
      read: (p, o) => apps.readNamespacedDaemonSet(p, o),
      list: (p, o) => apps.listNamespacedDaemonSet(p, o),
      create: (p, o) => apps.createNamespacedDaemonSet({ namespace: p.namespace, body: model(p.body) }, o),
      patch: (p, o) => apps.patchNamespacedDaemonSet(p, o),
      remove: (p, o) => apps.deleteNamespacedDaemonSet(p, o),
    },
    'apps/v1/ControllerRevision': {
      read: (p, o) => apps.readNamespacedControllerRevision(p, o),
      list: (p, o) => apps.listNamespacedControllerRevision(p, o),
      create: (p, o) => apps.createNamespacedControllerRevision({ namespace: p.namespace, body: model(p.body) }, o),
      patch: (p, o) => apps.patchNamespacedControllerRevision(p, o),
      remove: (p, o) => apps.deleteNamespacedControllerRevision(p, o),
    },
    'v1/Pod': {
      read: (p, o) => core.readNamespacedPod(p, o),
      list: (p, o) => core.listNamespacedPod(p, o),
      create: (p, o) => core.createNamespacedPod({ namespace: p.namespace, body: model(p.body) }, o),
      patch: (p, o) => core.patchNamespacedPod(p, o),
      remove: (p, o) => core.deleteNamespacedPod(p, o),
    },
    // Cluster-scoped and read-only for us: drivers only check that a namespace exists.
    'v1/Namespace': {
      read: (p, o) => core.readNamespace({ name: p.name }, o),
    },
  };
  return new Map(Object.entries(table));
}

/**
 * The plural resource of a custom kind, as Kubernetes guesses it without discovery
 * (meta.UnsafeGuessKindToResource): lower case, "s" → "ses", "y" → "ies", else "s". Right for every
 * kind a driver declares (test/unit/workloads/registry.test.ts checks it against their resources).
 */
export function guessResource(kind: string): string {
  const lower = kind.toLowerCase();
  if (lower.endsWith('s')) return `${lower}es`;
  if (lower.endsWith('y')) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}

/** Namespaced custom-resource calls for one kind of a CRD group (apiVersion "group/version"). */
export function customObjectOps(custom: CustomObjectsApi, apiVersion: string, kind: string): KindOps | null {
  const slash = apiVersion.indexOf('/');
  if (slash < 0) return null;
  const where = { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), plural: guessResource(kind) };
  return {
    read: (p, o) => custom.getNamespacedCustomObject({ ...where, ...p }, o),
    list: (p, o) => custom.listNamespacedCustomObject({ ...where, ...p }, o),
    create: (p, o) => custom.createNamespacedCustomObject({ ...where, namespace: p.namespace, body: p.body }, o),
    patch: (p, o) => custom.patchNamespacedCustomObject({ ...where, ...p }, o),
    remove: (p, o) => custom.deleteNamespacedCustomObject({ ...where, name: p.name, namespace: p.namespace, ...(p.body ? { body: p.body } : {}) }, o),
  };
}
