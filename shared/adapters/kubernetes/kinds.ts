// The kinds the product touches, each with its REST resource and the verbs we send it. URLs are
// built here, from the kind's group/version and resource name (as client-node's typed APIs build
// them): no discovery request (KubernetesObjectApi would GET /apis/<group>/<version> first, doubling
// the requests we pay for).
import { RolloutsError } from '../../errors.ts';
import type { ObjectRef } from '../../kube/types.ts';

/** A kind we have no entry for (e.g. a CRD such as Kruise's CloneSet). */
export class UnsupportedKindError extends RolloutsError {}

export type KindVerb = 'get' | 'list' | 'create' | 'patch' | 'delete';

export interface KindInfo {
  /** The plural REST resource, e.g. "deployments". */
  resource: string;
  namespaced: boolean;
  verbs: readonly KindVerb[];
}

const ALL_VERBS: readonly KindVerb[] = ['get', 'list', 'create', 'patch', 'delete'];

const KINDS: Readonly<Record<string, KindInfo>> = {
  'apps/v1/Deployment': { resource: 'deployments', namespaced: true, verbs: ALL_VERBS },
  'apps/v1/ReplicaSet': { resource: 'replicasets', namespaced: true, verbs: ALL_VERBS },
  'apps/v1/StatefulSet': { resource: 'statefulsets', namespaced: true, verbs: ALL_VERBS },
  'apps/v1/DaemonSet': { resource: 'daemonsets', namespaced: true, verbs: ALL_VERBS },
  'apps/v1/ControllerRevision': { resource: 'controllerrevisions', namespaced: true, verbs: ALL_VERBS },
  'v1/Pod': { resource: 'pods', namespaced: true, verbs: ALL_VERBS },
  // Cluster-scoped and read-only for us: drivers only check that a namespace exists.
  'v1/Namespace': { resource: 'namespaces', namespaced: false, verbs: ['get'] },
};

/** Key of the table: "apps/v1/Deployment", "v1/Pod". */
export function kindKey(apiVersion: string, kind: string): string {
  return `${apiVersion}/${kind}`;
}

/** The kind's entry, if `verb` is one we send it; otherwise UnsupportedKindError. */
export function kindInfo(apiVersion: string, kind: string, verb: KindVerb): KindInfo {
  const info = KINDS[kindKey(apiVersion, kind)];
  if (!info) throw new UnsupportedKindError(`unsupported kind ${kindKey(apiVersion, kind)}`);
  if (!info.verbs.includes(verb)) throw new UnsupportedKindError(`${verb} is not supported for ${kindKey(apiVersion, kind)}`);
  return info;
}

/**
 * The REST path of a collection (no name) or of one object: /api/v1/... for the core group,
 * /apis/<group>/<version>/... otherwise; namespaced kinds under /namespaces/<namespace>.
 */
export function resourcePath(apiVersion: string, info: KindInfo, namespace: string, name?: string): string {
  const parts = [apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`];
  if (info.namespaced) parts.push('namespaces', encodeURIComponent(namespace));
  parts.push(info.resource);
  if (name !== undefined) parts.push(encodeURIComponent(name));
  return parts.join('/');
}

/** The path of the object `ref` names. */
export function objectPath(ref: ObjectRef, info: KindInfo): string {
  return resourcePath(ref.apiVersion, info, ref.namespace, ref.name);
}
