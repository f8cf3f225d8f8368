// ClusterClient over @kubernetes/client-node's typed APIs. One method call = one HTTP request,
// counted into the meter, unless the apiserver asks to be called again (see retrying.ts); results
// are the apiserver's JSON as sent (see wire.ts). Every request has a deadline.
import { AppsV1Api, CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { NotFoundError } from '../../errors.ts';
import { isBuiltInApiVersion } from '../../kube/apiVersions.ts';
import type { KubeObject, KubeWrite, ObjectRef } from '../../kube/types.ts';
import { NO_METER, type Meter } from '../../reconcile/meter.ts';
import type { ClusterClient } from '../../reconcile/ports.ts';
import { customObjectOps, kindKey, kindTable, UnsupportedKindError, type KindOps } from './kinds.ts';
import { retryAfterSeconds, toKubeError } from './kubeErrors.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS, withApiserverRetries } from './retrying.ts';
import { guardedPatchBody, PATCH_CONTENT_TYPE } from './patchBody.ts';
import { exchange, sharedConnection, type Exchange } from './wire.ts';
import { rawGet } from './rawGet.ts';
import { watchPath, type WatchDoneHandler, type WatchEventHandler, type WatchHandle, type WatchQuery } from './watcher.ts';

export interface KubeClusterClientOptions {
  meter?: Meter;
  /** Deadline of one request, body included (default 10 s); then it fails as a transient KubeApiError. */
  requestTimeoutMs?: number;
  /** How long a Retry-After wait may be before giving up and leaving it to the next pass (tests shorten it). */
  maxRetryAfterMs?: number;
}

export class KubeClusterClient implements ClusterClient {
  private readonly kc: KubeConfig;
  private readonly meter: Meter;
  private readonly kinds: Map<string, KindOps>;
  private readonly custom: CustomObjectsApi;
  private readonly connection = sharedConnection();
  private readonly opts: KubeClusterClientOptions;

  constructor(kc: KubeConfig, opts: KubeClusterClientOptions = {}) {
    this.kc = kc;
    this.opts = opts;
    this.meter = opts.meter ?? NO_METER;
    this.kinds = new Map(kindTable(kc.makeApiClient(AppsV1Api), kc.makeApiClient(CoreV1Api)));
    this.custom = kc.makeApiClient(CustomObjectsApi);
  }

  async get(ref: ObjectRef): Promise<KubeObject | null> {
    const ops = this.ops(ref.apiVersion, ref.kind);
    try {
      const ex = await this.call('k8s.read', describe('get', ref), (options) => ops.read({ name: ref.name, namespace: ref.namespace }, options));
      return decodeObject(ex, ref.apiVersion, ref.kind);
    } catch (err) {
      if (err instanceof NotFoundError) return null;
      throw err;
    }
  }

  async list(apiVersion: string, kind: string, namespace: string, labelSelector: string): Promise<KubeObject[]> {
    const list = this.ops(apiVersion, kind).list;
    if (!list) throw new UnsupportedKindError(`list is not supported for ${kindKey(apiVersion, kind)}`);
    const ex = await this.call('k8s.read', `list ${kindKey(apiVersion, kind)} in ${namespace} (${labelSelector})`, (options) => list({ namespace, labelSelector }, options));
    // List items carry no apiVersion/kind on the wire; drivers expect them on every object.
    const items = (parseBody(ex) as { items?: KubeObject[] } | null)?.items ?? [];
    return items.map((item) => ({ ...item, apiVersion, kind }));
  }

  async write(w: KubeWrite): Promise<KubeObject | null> {
    switch (w.verb) {
      case 'create':
        return this.create(w.object);
      case 'patch':
        return this.patch(w.ref, w.patchType, w.patch, w.resourceVersion, w.dryRun ?? false);
      case 'delete':
        return this.remove(w.ref, w.resourceVersion);
    }
  }

  /** The current resourceVersion of a collection (`path` as for watch): a list of at most one item. */
  async listVersion(path: string): Promise<string> {
    this.meter.add('k8s.read');
    const version = ((await rawGet(this.kc, path, { limit: '1' })) as { metadata?: { resourceVersion?: string } } | null)?.metadata?.resourceVersion;
    if (!version) throw new Error(`list ${path}: the answer has no metadata.resourceVersion`);
    return version;
  }

  /** One watch request (see watcher.ts); `path` as in "/apis/apps/v1/namespaces/web/replicasets". */
  watch(path: string, query: WatchQuery, onEvent: WatchEventHandler, onDone: WatchDoneHandler): Promise<WatchHandle> {
    return watchPath(this.kc, path, query, onEvent, onDone, this.meter);
  }

  private async create(object: KubeObject): Promise<KubeObject> {
    const create = this.ops(object.apiVersion, object.kind).create;
    const ref = refOf(object);
    if (!create) throw new UnsupportedKindError(`create is not supported for ${kindKey(ref.apiVersion, ref.kind)}`);
    const ex = await this.call('k8s.write', describe('create', ref), (options) => create({ namespace: ref.namespace, body: object }, options));
    return decodeObject(ex, ref.apiVersion, ref.kind);
  }

  private async patch(ref: ObjectRef, patchType: keyof typeof PATCH_CONTENT_TYPE, patch: unknown, rv?: string, dryRun = false): Promise<KubeObject> {
    const call = this.ops(ref.apiVersion, ref.kind).patch;
    if (!call) throw new UnsupportedKindError(`patch is not supported for ${kindKey(ref.apiVersion, ref.kind)}`);
    const body = guardedPatchBody(patchType, patch, rv);
    const params = { name: ref.name, namespace: ref.namespace, body, ...(dryRun ? { dryRun: 'All' } : {}) };
    const ex = await this.call('k8s.write', describe(`${dryRun ? 'dry-run ' : ''}${patchType} patch`, ref), (options) => call(params, options), PATCH_CONTENT_TYPE[patchType]);
    return decodeObject(ex, ref.apiVersion, ref.kind);
  }

  /** Returns the object when deletion is pending (finalizers), null when it is gone. */
  private async remove(ref: ObjectRef, rv?: string): Promise<KubeObject | null> {
    const call = this.ops(ref.apiVersion, ref.kind).remove;
    if (!call) throw new UnsupportedKindError(`delete is not supported for ${kindKey(ref.apiVersion, ref.kind)}`);
    const body = rv === undefined ? undefined : { preconditions: { resourceVersion: rv } };
    const ex = await this.call('k8s.write', describe('delete', ref), (options) => call({ name: ref.name, namespace: ref.namespace, body }, options));
    // The apiserver answers with the object (kinds with finalizers or graceful deletion, such as
    // Pods) or with a Status once it is gone.
    const answer = parseBody(ex) as KubeObject | null;
    return answer?.kind === ref.kind && answer.metadata?.deletionTimestamp ? answer : null;
  }

  /**
   * One API call (one request, or more when the apiserver answers with a Retry-After, or a read
   * times out), its failure mapped to a named error. Returns the exchange holding the raw body.
   */
  private call(kind: 'k8s.read' | 'k8s.write', what: string, send: (options: Exchange['options']) => Promise<unknown>, contentType?: string): Promise<Exchange> {
    return withApiserverRetries(kind === 'k8s.read', async () => {
      const ex = exchange(this.meter, kind, { contentType, connection: this.connection, timeoutMs: this.opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS });
      try {
        await send(ex.options);
      } catch (err) {
        throw toKubeError(err, what, retryAfterSeconds(ex.retryAfter() ?? headerOf(err)));
      }
      return ex;
    }, this.opts.maxRetryAfterMs === undefined ? {} : { maxWaitMs: this.opts.maxRetryAfterMs });
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

/** client-node's ApiException keeps the response headers too. */
function headerOf(err: unknown): string | undefined {
  const headers = (err as { headers?: Record<string, string> } | null)?.headers;
  return headers?.['retry-after'];
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
