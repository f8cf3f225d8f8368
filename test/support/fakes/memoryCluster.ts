// In-memory ClusterClient for unit tests of the reconcile pipeline ONLY (integration tests run the
// real control plane; never use this to stand in for Kubernetes there). It keeps objects as wire
// JSON and behaves like the apiserver where the pipeline depends on it: every write bumps a
// resourceVersion, a write guarded by a stale resourceVersion fails with ConflictError (409), a
// create of an existing name too. No controllers run: a test changes the world with put().
import { ConflictError, NotFoundError, ValidationError } from '../../../shared/errors.ts';
import type { KubeObject, KubeWrite, ObjectRef } from '../../../shared/kube/types.ts';
import { NO_METER, type Meter } from '../../../shared/meter.ts';
import type { ClusterClient } from '../../../shared/ports.ts';

export interface ClusterRequest {
  verb: 'get' | 'list' | 'create' | 'patch' | 'delete';
  /** "Kind namespace/name", or "Kind namespace?selector" for a list. */
  target: string;
}

export class MemoryCluster implements ClusterClient {
  /** Every request the code under test sent, in order (put() and object() are not requests). */
  readonly requests: ClusterRequest[] = [];
  private readonly objects = new Map<string, KubeObject>();
  private resourceVersion = 0;
  private uid = 0;

  constructor(private readonly meter: Meter = NO_METER) {}

  /** Set up or change an object as another actor would (a user, a controller): bumps its resourceVersion. */
  put(object: KubeObject): KubeObject {
    const previous = this.objects.get(keyOf(refOf(object)));
    const stored: KubeObject = copy({
      ...object,
      metadata: { ...object.metadata, uid: previous?.metadata.uid ?? object.metadata.uid ?? `uid-${++this.uid}`, resourceVersion: String(++this.resourceVersion) },
    });
    this.objects.set(keyOf(refOf(stored)), stored);
    return copy(stored);
  }

  /** The stored object (for assertions), or null. */
  object(ref: ObjectRef): KubeObject | null {
    const found = this.objects.get(keyOf(ref));
    return found ? copy(found) : null;
  }

  writeRequests(): ClusterRequest[] {
    return this.requests.filter((r) => r.verb !== 'get' && r.verb !== 'list');
  }

  async get(ref: ObjectRef): Promise<KubeObject | null> {
    this.record('k8s.read', { verb: 'get', target: `${ref.kind} ${ref.namespace}/${ref.name}` });
    return this.object(ref);
  }

  async list(apiVersion: string, kind: string, namespace: string, labelSelector: string): Promise<KubeObject[]> {
    this.record('k8s.read', { verb: 'list', target: `${kind} ${namespace}?${labelSelector}` });
    const wanted = parseSelector(labelSelector);
    return [...this.objects.values()]
      .filter((o) => o.apiVersion === apiVersion && o.kind === kind && o.metadata.namespace === namespace)
      .filter((o) => Object.entries(wanted).every(([k, v]) => o.metadata.labels?.[k] === v))
      .map(copy);
  }

  async write(w: KubeWrite): Promise<KubeObject | null> {
    const ref = w.verb === 'create' ? refOf(w.object) : w.ref;
    this.record('k8s.write', { verb: w.verb, target: `${ref.kind} ${ref.namespace}/${ref.name}` });
    const current = this.objects.get(keyOf(ref));
    if (w.verb === 'create') {
      if (current) throw new ConflictError(`${ref.kind} ${ref.name} already exists`);
      return this.put(w.object);
    }
    if (!current) throw new NotFoundError(`${ref.kind} ${ref.namespace}/${ref.name} not found`);
    if (w.resourceVersion !== undefined && w.resourceVersion !== current.metadata.resourceVersion) {
      throw new ConflictError(`${ref.kind} ${ref.name}: the object has been modified (resourceVersion ${w.resourceVersion} ≠ ${current.metadata.resourceVersion ?? '?'})`);
    }
    if (w.verb === 'delete') {
      this.objects.delete(keyOf(ref));
      return null;
    }
    if (w.patchType === 'json' && Array.isArray(w.patch) && w.patch.every((op) => isRecord(op) && op.op === 'test')) {
      // A check (the drivers' precondition): the apiserver answers 422 when a test fails, and stores nothing when all pass.
      for (const op of w.patch as { path: string; value: unknown }[]) {
        const actual = op.path.split('/').slice(1).reduce<unknown>((o, k) => (isRecord(o) ? o[k] : undefined), current);
        if (JSON.stringify(actual) !== JSON.stringify(op.value)) throw new ValidationError([{ path: op.path, reason: `testing value failed: ${JSON.stringify(actual)} ≠ ${JSON.stringify(op.value)}` }]);
      }
      return copy(current);
    }
    if (w.patchType !== 'merge') throw new ValidationError([{ path: 'patchType', reason: `the fake applies merge patches and JSON-patch tests only, got ${w.patchType}` }]);
    const patched = mergePatch(current, w.patch) as KubeObject;
    const specChanged = JSON.stringify(patched.spec) !== JSON.stringify(current.spec);
    const generation = (current.metadata.generation ?? 1) + (specChanged ? 1 : 0);
    return this.put({ ...patched, metadata: { ...patched.metadata, generation } });
  }

  private record(meterKey: 'k8s.read' | 'k8s.write', request: ClusterRequest): void {
    this.meter.add(meterKey);
    this.requests.push(request);
  }
}

/** RFC 7386: null deletes, objects merge, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return copy(patch);
  const out: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** Equality selectors only ("a=b,c=d"), which is what the Deployment driver sends for matchLabels. */
function parseSelector(selector: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of selector.split(',').filter((p) => p !== '')) {
    const match = /^([^=!\s]+)=([^=\s]*)$/.exec(part);
    if (!match) throw new ValidationError([{ path: 'labelSelector', reason: `the fake understands k=v only, got "${part}"` }]);
    out[match[1] as string] = match[2] as string;
  }
  return out;
}

function refOf(o: KubeObject): ObjectRef {
  return { apiVersion: o.apiVersion, kind: o.kind, namespace: o.metadata.namespace ?? '', name: o.metadata.name };
}

function keyOf(ref: ObjectRef): string {
  return `${ref.apiVersion}/${ref.kind}/${ref.namespace}/${ref.name}`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
