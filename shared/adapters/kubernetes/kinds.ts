// Which REST resource serves each kind, and the URLs built from it (as client-node's typed APIs
// build them: no discovery request; KubernetesObjectApi would GET /apis/<group>/<version> first,
// doubling the requests we pay for). Kubernetes' own kinds the product touches are known from the
// start: those of the table generated from the drivers' declarations (shared/kube/resources.generated.ts,
// by scripts/generate.ts); every other kind (the Kruise workloads) only once handed to the client at
// construction by the composition roots (declaredResources), because the drivers and this adapter
// import nothing of each other.
import { ConfigError, RolloutsError } from '../../errors.ts';
import { isBuiltInApiVersion } from '../../kube/apiVersions.ts';
import { DRIVER_RESOURCES } from '../../kube/resources.generated.ts';
import type { ObjectRef } from '../../kube/types.ts';

/** A kind this client was not given (e.g. a CRD no driver declares). */
export class UnsupportedKindError extends RolloutsError {}

/** A kind and its plural REST resource, as a driver declares them (WorkloadDriver.workload and .watches). */
export interface KubeResource {
  readonly apiVersion: string;
  readonly kind: string;
  /** The plural resource, e.g. "clonesets". */
  readonly resource: string;
}

/** Every kind the product reads or writes is namespaced. */
export interface KindInfo {
  resource: string;
}

/** Kubernetes' own kinds among those the drivers touch: Deployment, ReplicaSet, Pod, ControllerRevision… */
const BUILT_IN: Readonly<Record<string, KindInfo>> = Object.fromEntries(
  DRIVER_RESOURCES.filter((r) => isBuiltInApiVersion(r.apiVersion)).map((r) => [`${r.apiVersion}/${r.kind}`, { resource: r.resource }]),
);

/** Key of the table: "apps/v1/Deployment", "v1/Pod". */
export function kindKey(apiVersion: string, kind: string): string {
  return `${apiVersion}/${kind}`;
}

/** Every resource the drivers declare (each one's workload, what it reads and what it watches), once each. */
export function declaredResources(drivers: Iterable<{ readonly workload: KubeResource; readonly reads?: readonly KubeResource[]; readonly watches: readonly KubeResource[] }>): KubeResource[] {
  const byKey = new Map<string, KubeResource>();
  for (const d of drivers) {
    for (const r of [d.workload, ...(d.reads ?? []), ...d.watches]) byKey.set(kindKey(r.apiVersion, r.kind), { apiVersion: r.apiVersion, kind: r.kind, resource: r.resource });
  }
  return [...byKey.values()];
}

/**
 * Kubernetes' own kinds plus the given ones. A given kind that is
 * also built in must name the same resource: a driver and the adapter disagreeing is a bug, found
 * when the client is built rather than as a 404 in the middle of a release.
 */
export class KindTable {
  private readonly kinds = new Map<string, KindInfo>(Object.entries(BUILT_IN));

  constructor(resources: Iterable<KubeResource> = []) {
    for (const r of resources) {
      const key = kindKey(r.apiVersion, r.kind);
      const known = this.kinds.get(key);
      if (known && known.resource !== r.resource) {
        throw new ConfigError(`kind ${key}: declared with resource "${r.resource}", but Kubernetes serves it as "${known.resource}"`);
      }
      if (!/^[a-z0-9][a-z0-9.-]*$/.test(r.resource)) throw new ConfigError(`kind ${key}: "${r.resource}" is not a resource name`);
      if (!known) this.kinds.set(key, { resource: r.resource });
    }
  }

  /** The kind's entry; UnsupportedKindError, before any request, for a kind nobody declared. */
  info(apiVersion: string, kind: string): KindInfo {
    const key = kindKey(apiVersion, kind);
    const info = this.kinds.get(key);
    if (!info) throw new UnsupportedKindError(`unsupported kind ${key}: neither built in nor declared by a driver`);
    return info;
  }
}

/**
 * The REST path of a collection (no name) or of one object: /api/v1/... for the core group,
 * /apis/<group>/<version>/... otherwise, under /namespaces/<namespace>.
 */
export function resourcePath(apiVersion: string, info: KindInfo, namespace: string, name?: string): string {
  const parts = [apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`, 'namespaces', encodeURIComponent(namespace), info.resource];
  if (name !== undefined) parts.push(encodeURIComponent(name));
  return parts.join('/');
}

/** The path of the object `ref` names. */
export function objectPath(ref: ObjectRef, info: KindInfo): string {
  return resourcePath(ref.apiVersion, info, ref.namespace, ref.name);
}
