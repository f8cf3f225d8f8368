// ClusterClient over @kubernetes/client-node's typed APIs. One method call = one HTTP request,
// counted into the meter; results are the apiserver's JSON as sent (see wire.ts).
import { AppsV1Api, CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { NotFoundError } from '../../errors.ts';
import { isBuiltInApiVersion } from '../../kube/apiVersions.ts';
import type { KubeObject, KubeWrite, ObjectRef } from '../../kube/types.ts';
import { NO_METER, type Meter } from '../../reconcile/meter.ts';
import type { ClusterClient } from '../../reconcile/ports.ts';
import { customObjectOps, kindKey, kindTable, UnsupportedKindError, type KindOps } from './kinds.ts';
import { toKubeError } from './kubeErrors.ts';
import { guardedPatchBody, PATCH_CONTENT_TYPE } from './patchBody.ts';
import { exchange, sharedConnection, type Exchange } from './wire.ts';
import { watchPath, type WatchDoneHandler, type WatchEventHandler, type WatchHandle, type WatchQuery } from './watcher.ts';

export interface KubeClusterClientOptions {
  meter?: Meter;
}

export class KubeClusterClient implements ClusterClient {
  private readonly kc: KubeConfig;
  private readonly meter: Meter;
  private readonly kinds: Map<string, KindOps>;
  private readonly custom: CustomObjectsApi;
  private readonly connection = sharedConnection();

  constructor(kc: KubeConfig, opts: KubeClusterClientOptions = {}) {
    this.kc = kc;
    this.meter = opts.meter ?? NO_METER;
    this.kinds = new Map(kindTable(kc.makeApiClient(AppsV1Api), kc.makeApiClient(CoreV1Api)));
    this.custom = kc.makeApiClient(CustomObjectsApi);
  }

  async get(ref: ObjectRef): Promise<KubeObject | null> {
    const ops = this.ops(ref.apiVersion, ref.kind);
    const ex = this.exchange('k8s.read');
    try {
      await ops.read({ name: ref.name, namespace: ref.namespace }, ex.options);
    } catch (err) {
      const mapped = toKubeError(err, describe('get', ref));
      if (mapped instanceof NotFoundError) return null;
      throw mapped;
    }
    return decodeObject(ex, ref.apiVersion, ref.kind);
  }

  async list(apiVersion: string, kind: string, namespace: string, labelSelector: string): Promise<KubeObject[]> {
    const list = this.ops(apiVersion, kind).list;
    if (!list) throw new UnsupportedKindError(`list is not supported for ${kindKey(apiVersion, kind)}`);
    const ex = this.exchange('k8s.read');
    try {
      await list({ namespace, labelSelector }, ex.options);
    } catch (err) {
      throw toKubeError(err, `list ${kindKey(apiVersion, kind)} in ${namespace} (${labelSelector})`);
    }
    // List items carry no apiVersion/kind on the wire; drivers expect them on every object.
    const items = (parseBody(ex) as { items?: KubeObject[] } | null)?.items ?? [];
    return items.map((item) => ({ ...item, apiVersion, kind }));
  }

  async write(w: KubeWrite): Promise<KubeObject | null> {
    switch (w.verb) {
      case 'create':
        return this.create(w.object);
      case 'patch':
        return this.patch(w.ref, w.patchType, w.patch, w.resourceVersion);
      case 'delete':
        return this.remove(w.ref, w.resourceVersion);
    }
  }

  /** One watch request (see watcher.ts); `path` as in "/apis/apps/v1/namespaces/web/replicasets". */
  watch(path: string, query: WatchQuery, onEvent: WatchEventHandler, onDone: WatchDoneHandler): Promise<WatchHandle> {
    return watchPath(this.kc, path, query, onEvent, onDone, this.meter);
  }

  private async create(object: KubeObject): Promise<KubeObject> {
    const create = this.ops(object.apiVersion, object.kind).create;
    const ref = refOf(object);
    if (!create) throw new UnsupportedKindError(`create is not supported for ${kindKey(ref.apiVersion, ref.kind)}`);
    const ex = this.exchange('k8s.write');
    try {
      await create({ namespace: ref.namespace, body: object }, ex.options);
    } catch (err) {
      throw toKubeError(err, describe('create', ref));
    }
    return decodeObject(ex, ref.apiVersion, ref.kind);
  }

  private async patch(ref: ObjectRef, patchType: keyof typeof PATCH_CONTENT_TYPE, patch: unknown, rv?: string): Promise<KubeObject> {
    const call = this.ops(ref.apiVersion, ref.kind).patch;
    if (!call) throw new UnsupportedKindError(`patch is not supported for ${kindKey(ref.apiVersion, ref.kind)}`);
    const body = guardedPatchBody(patchType, patch, rv);
    const ex = this.exchange('k8s.write', PATCH_CONTENT_TYPE[patchType]);
    try {
      await call({ name: ref.name, namespace: ref.namespace, body }, ex.options);
    } catch (err) {
      throw toKubeError(err, describe(`${patchType} patch`, ref));
    }
    return decodeObject(ex, ref.apiVersion, ref.kind);
  }

  /** Returns the object when deletion is pending (finalizers), null when it is gone. */
  private async remove(ref: ObjectRef, rv?: string): Promise<KubeObject | null> {
    const call = this.ops(ref.apiVersion, ref.kind).remove;
    if (!call) throw new UnsupportedKindError(`delete is not supported for ${kindKey(ref.apiVersion, ref.kind)}`);
    const ex = this.exchange('k8s.write');
    const body = rv === undefined ? undefined : { preconditions: { resourceVersion: rv } };
    try {
      await call({ name: ref.name, namespace: ref.namespace, body }, ex.options);
    } catch (err) {
      throw toKubeError(err, describe('delete', ref));
    }
    // The apiserver answers with the object (kinds with finalizers or graceful deletion, such as
    // Pods) or with a Status once it is gone.
    const answer = parseBody(ex) as KubeObject | null;
    return answer?.kind === ref.kind && answer.metadata?.deletionTimestamp ? answer : null;
  }

  private exchange(kind: 'k8s.read' | 'k8s.write', contentType?: string): Exchange {
    return exchange(this.meter, kind, { contentType, connection: this.connection });
  }

  private ops(apiVersion: string, kind: string): KindOps {
    const key = kindKey(apiVersion, kind);
    let ops = this.kinds.get(key);
    if (!ops && !isBuiltInApiVersion(apiVersion)) {
      ops = customObjectOps(this.custom, apiVersion, kind) ?? undefined;
      if (ops) this.kinds.set(key, ops);
    }
    if (!ops) throw new UnsupportedKindError(`unsupported kind ${key}`);
    return ops;
  }
}

function parseBody(ex: Exchange): unknown {
  const text = ex.body();
  return text ? JSON.parse(text) : null;
}

function decodeObject(ex: Exchange, apiVersion: string, kind: string): KubeObject {
  const obj = parseBody(ex) as KubeObject;
  return { ...obj, apiVersion: obj.apiVersion ?? apiVersion, kind: obj.kind ?? kind };
}

function refOf(o: KubeObject): ObjectRef {
  return { apiVersion: o.apiVersion, kind: o.kind, namespace: o.metadata.namespace ?? '', name: o.metadata.name };
}

function describe(verb: string, ref: ObjectRef): string {
  const where = ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name;
  return `${verb} ${kindKey(ref.apiVersion, ref.kind)} ${where}`;
}
