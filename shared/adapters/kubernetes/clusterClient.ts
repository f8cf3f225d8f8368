// ClusterClient over @kubernetes/client-node's KubeConfig and HTTP library (transport.ts). One
// method call = one HTTP request, counted into the meter; results are the apiserver's JSON as sent.
import type { KubeConfig } from '@kubernetes/client-node';
import { NotFoundError } from '../../errors.ts';
import type { KubeObject, KubeWrite, ObjectRef } from '../../kube/types.ts';
import { NO_METER, type Meter } from '../../reconcile/meter.ts';
import type { ClusterClient } from '../../reconcile/ports.ts';
import { kindInfo, kindKey, objectPath, resourcePath } from './kinds.ts';
import { toKubeError } from './kubeErrors.ts';
import { guardedPatchBody, PATCH_CONTENT_TYPE } from './patchBody.ts';
import { KubeTransport, type KubeRequest, type KubeResponse } from './transport.ts';
import { watchPath, type WatchDoneHandler, type WatchEventHandler, type WatchHandle, type WatchQuery } from './watcher.ts';

export interface KubeClusterClientOptions {
  meter?: Meter;
}

export class KubeClusterClient implements ClusterClient {
  private readonly kc: KubeConfig;
  private readonly meter: Meter;
  private readonly transport: KubeTransport;

  constructor(kc: KubeConfig, opts: KubeClusterClientOptions = {}) {
    this.kc = kc;
    this.meter = opts.meter ?? NO_METER;
    this.transport = new KubeTransport(kc);
  }

  async get(ref: ObjectRef): Promise<KubeObject | null> {
    const info = kindInfo(ref.apiVersion, ref.kind, 'get');
    try {
      const res = await this.send('k8s.read', { method: 'GET', path: objectPath(ref, info) }, describe('get', ref));
      return decodeObject(res, ref.apiVersion, ref.kind);
    } catch (err) {
      if (err instanceof NotFoundError) return null;
      throw err;
    }
  }

  async list(apiVersion: string, kind: string, namespace: string, labelSelector: string): Promise<KubeObject[]> {
    const info = kindInfo(apiVersion, kind, 'list');
    const res = await this.send('k8s.read', { method: 'GET', path: resourcePath(apiVersion, info, namespace), query: { labelSelector } },
      `list ${kindKey(apiVersion, kind)} in ${namespace} (${labelSelector})`);
    // List items carry no apiVersion/kind on the wire; drivers expect them on every object.
    const items = (parseBody(res) as { items?: KubeObject[] } | null)?.items ?? [];
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

  /** The current resourceVersion of a collection (`path` as for watch): a list of at most one item. */
  async listVersion(path: string): Promise<string> {
    const res = await this.send('k8s.read', { method: 'GET', path, query: { limit: '1' } }, `list ${path}`);
    const version = (parseBody(res) as { metadata?: { resourceVersion?: string } } | null)?.metadata?.resourceVersion;
    if (!version) throw new Error(`list ${path}: the answer has no metadata.resourceVersion`);
    return version;
  }

  /** One watch request (see watcher.ts); `path` as in "/apis/apps/v1/namespaces/web/replicasets". */
  watch(path: string, query: WatchQuery, onEvent: WatchEventHandler, onDone: WatchDoneHandler): Promise<WatchHandle> {
    return watchPath(this.kc, path, query, onEvent, onDone, this.meter);
  }

  private async create(object: KubeObject): Promise<KubeObject> {
    const ref = refOf(object);
    const info = kindInfo(ref.apiVersion, ref.kind, 'create');
    const res = await this.send('k8s.write', { method: 'POST', path: resourcePath(ref.apiVersion, info, ref.namespace), body: object }, describe('create', ref));
    return decodeObject(res, ref.apiVersion, ref.kind);
  }

  private async patch(ref: ObjectRef, patchType: keyof typeof PATCH_CONTENT_TYPE, patch: unknown, rv?: string): Promise<KubeObject> {
    const info = kindInfo(ref.apiVersion, ref.kind, 'patch');
    const body = guardedPatchBody(patchType, patch, rv);
    const res = await this.send('k8s.write', { method: 'PATCH', path: objectPath(ref, info), body, contentType: PATCH_CONTENT_TYPE[patchType] }, describe(`${patchType} patch`, ref));
    return decodeObject(res, ref.apiVersion, ref.kind);
  }

  /** Returns the object when deletion is pending (finalizers), null when it is gone. */
  private async remove(ref: ObjectRef, rv?: string): Promise<KubeObject | null> {
    const info = kindInfo(ref.apiVersion, ref.kind, 'delete');
    const body = rv === undefined ? undefined : { preconditions: { resourceVersion: rv } };
    const res = await this.send('k8s.write', { method: 'DELETE', path: objectPath(ref, info), body }, describe('delete', ref));
    // The apiserver answers with the object (kinds with finalizers or graceful deletion, such as
    // Pods) or with a Status once it is gone.
    const answer = parseBody(res) as KubeObject | null;
    return answer?.kind === ref.kind && answer.metadata?.deletionTimestamp ? answer : null;
  }

  /** Counts the request, sends it, and maps any failure (HTTP status or connection) to a named error. */
  private async send(meterKey: 'k8s.read' | 'k8s.write', req: KubeRequest, what: string): Promise<KubeResponse> {
    this.meter.add(meterKey);
    try {
      return await this.transport.send(req);
    } catch (err) {
      throw toKubeError(err, what);
    }
  }
}

function parseBody(res: KubeResponse): unknown {
  return res.body ? JSON.parse(res.body) : null;
}

function decodeObject(res: KubeResponse, apiVersion: string, kind: string): KubeObject {
  const obj = parseBody(res) as KubeObject;
  return { ...obj, apiVersion: obj.apiVersion ?? apiVersion, kind: obj.kind ?? kind };
}

function refOf(o: KubeObject): ObjectRef {
  return { apiVersion: o.apiVersion, kind: o.kind, namespace: o.metadata.namespace ?? '', name: o.metadata.name };
}

function describe(verb: string, ref: ObjectRef): string {
  const where = ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name;
  return `${verb} ${kindKey(ref.apiVersion, ref.kind)} ${where}`;
}
