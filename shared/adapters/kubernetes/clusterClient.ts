// ClusterClient over KubeConfig's authentication and Node's https (transport.ts), with REST paths
// from the kind table (kinds.ts). One HTTP request per call, counted into the meter, unless the
// apiserver asks to be called again or a read gets no answer (retrying.ts); every request has a
// deadline; results are the apiserver's JSON exactly as sent.
import type { KubeConfig } from '@kubernetes/client-node';
import { SYSTEM_CLOCK } from '../../clock.ts';
import { type Clock } from '../../ports.ts';
import { NotFoundError } from '../../errors.ts';
import type { KubeObject, KubeWrite, ObjectRef } from '../../kube/types.ts';
import { NO_METER, type Meter } from '../../meter.ts';
import type { ClusterClient } from '../../ports.ts';
import { KindTable, kindKey, objectPath, resourcePath, type KubeResource } from './kinds.ts';
import { retryAfterSeconds, toKubeError } from './kubeErrors.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS, withApiserverRetries } from './retrying.ts';
import { guardedPatchBody, PATCH_CONTENT_TYPE } from './patchBody.ts';
import { KubeHttpError, KubeTransport, type Impersonation, type KubeRequest, type KubeResponse } from './transport.ts';
import { watchPath, type WatchDoneHandler, type WatchEventHandler, type WatchHandle, type WatchQuery } from './watcher.ts';

export interface KubeClusterClientOptions {
  meter?: Meter;
  /**
   * Kinds beyond Kubernetes' own, with their REST resources: what the drivers declare
   * (kinds.ts declaredResources). Without them, custom resources such as CloneSet are refused.
   */
  resources?: Iterable<KubeResource>;
  /** Deadline of one request, body included (default 10 s); then it fails as a transient KubeApiError. */
  requestTimeoutMs?: number;
  /** How long a Retry-After wait may be before giving up and leaving it to the next pass (tests shorten it). */
  maxRetryAfterMs?: number;
  /** Reads a Retry-After given as an HTTP date (default: the wall clock). */
  clock?: Clock;
  /** Every request as this identity (local mode acting as the product's user: shared/local/identity.ts). */
  impersonate?: Impersonation;
}

type Request = Omit<KubeRequest, 'timeoutMs'>;

export class KubeClusterClient implements ClusterClient {
  private readonly meter: Meter;
  private readonly kinds: KindTable;
  private readonly transport: KubeTransport;
  private readonly opts: KubeClusterClientOptions;

  constructor(kc: KubeConfig, opts: KubeClusterClientOptions = {}) {
    this.opts = opts;
    this.meter = opts.meter ?? NO_METER;
    this.kinds = new KindTable(opts.resources);
    this.transport = new KubeTransport(kc, opts.impersonate);
  }

  async get(ref: ObjectRef): Promise<KubeObject | null> {
    const info = this.kinds.info(ref.apiVersion, ref.kind);
    try {
      const res = await this.call('k8s.read', describe('get', ref), { method: 'GET', path: objectPath(ref, info) });
      return decodeObject(res, ref.apiVersion, ref.kind);
    } catch (err) {
      if (err instanceof NotFoundError) return null;
      throw err;
    }
  }

  async list(apiVersion: string, kind: string, namespace: string, labelSelector: string): Promise<KubeObject[]> {
    const info = this.kinds.info(apiVersion, kind);
    const res = await this.call('k8s.read', `list ${kindKey(apiVersion, kind)} in ${namespace} (${labelSelector})`,
      { method: 'GET', path: resourcePath(apiVersion, info, namespace), query: { labelSelector } });
    // List items carry no apiVersion/kind on the wire; drivers expect them on every object.
    const items = (parseBody(res) as { items?: KubeObject[] } | null)?.items ?? [];
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

  /**
   * The current resourceVersion of a collection (`path` as for watch): a list of at most one item,
   * so that an on-demand watcher starts from now instead of replaying every object (shared/watch/resourceWatch.ts).
   */
  async listVersion(path: string): Promise<string> {
    const res = await this.call('k8s.read', `list ${path}`, { method: 'GET', path, query: { limit: '1' } });
    const version = (parseBody(res) as { metadata?: { resourceVersion?: string } } | null)?.metadata?.resourceVersion;
    if (!version) throw new Error(`list ${path}: the answer has no metadata.resourceVersion`);
    return version;
  }

  /** One watch request (see watcher.ts); `path` as in "/apis/apps/v1/namespaces/web/replicasets". */
  watch(path: string, query: WatchQuery, onEvent: WatchEventHandler, onDone: WatchDoneHandler): Promise<WatchHandle> {
    return watchPath(this.transport, path, query, onEvent, onDone, this.meter);
  }

  private async create(object: KubeObject): Promise<KubeObject> {
    const ref = refOf(object);
    const info = this.kinds.info(ref.apiVersion, ref.kind);
    const res = await this.call('k8s.write', describe('create', ref), { method: 'POST', path: resourcePath(ref.apiVersion, info, ref.namespace), body: object });
    return decodeObject(res, ref.apiVersion, ref.kind);
  }

  private async patch(ref: ObjectRef, patchType: keyof typeof PATCH_CONTENT_TYPE, patch: unknown, rv?: string, dryRun = false): Promise<KubeObject> {
    const info = this.kinds.info(ref.apiVersion, ref.kind);
    const body = guardedPatchBody(patchType, patch, rv);
    const res = await this.call('k8s.write', describe(`${dryRun ? 'dry-run ' : ''}${patchType} patch`, ref), {
      method: 'PATCH', path: objectPath(ref, info), body, contentType: PATCH_CONTENT_TYPE[patchType], ...(dryRun ? { query: { dryRun: 'All' } } : {}),
    });
    return decodeObject(res, ref.apiVersion, ref.kind);
  }

  /** Returns the object when deletion is pending (finalizers), null when it is gone. */
  private async remove(ref: ObjectRef, rv?: string): Promise<KubeObject | null> {
    const info = this.kinds.info(ref.apiVersion, ref.kind);
    const body = rv === undefined ? undefined : { preconditions: { resourceVersion: rv } };
    const res = await this.call('k8s.write', describe('delete', ref), { method: 'DELETE', path: objectPath(ref, info), body });
    // The apiserver answers with the object (kinds with finalizers or graceful deletion, such as
    // Pods) or with a Status once it is gone.
    const answer = parseBody(res) as KubeObject | null;
    return answer?.kind === ref.kind && answer.metadata?.deletionTimestamp ? answer : null;
  }

  /**
   * One API call: one request, or more when the apiserver answers with a Retry-After or a read gets
   * no answer (retrying.ts); each request counted and bounded by the deadline, its failure mapped to
   * a named error.
   */
  private call(meterKey: 'k8s.read' | 'k8s.write', what: string, req: Request): Promise<KubeResponse> {
    const timeoutMs = this.opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    return withApiserverRetries(meterKey === 'k8s.read', async () => {
      this.meter.add(meterKey);
      try {
        return await this.transport.send({ ...req, timeoutMs });
      } catch (err) {
        throw toKubeError(err, what, err instanceof KubeHttpError ? retryAfterSeconds(err.retryAfter, (this.opts.clock ?? SYSTEM_CLOCK).now()) : null);
      }
    }, this.opts.maxRetryAfterMs === undefined ? {} : { maxWaitMs: this.opts.maxRetryAfterMs });
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
