// Minimal, SDK-free shapes of Kubernetes objects and writes, shared by drivers (pure) and the
// Kubernetes adapter (I/O). Drivers read fields defensively; only what we use is typed.

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

export type PatchType = 'merge' | 'strategic' | 'json';

/**
 * One desired-state write. Patches carry the resourceVersion the plan was computed from, so a
 * concurrent writer makes the apiserver answer 409 instead of our write clobbering theirs.
 * `dryRun`: the apiserver validates and admits the patch (dryRun=All) and stores nothing; the API
 * checks a release's template change that way before accepting it. `precondition`: a check, not a
 * change (a JSON patch of `test` ops): the apiserver refuses it (422) when the object changed since
 * it was observed, and the pass then stops as on a conflict; otherwise it stores nothing.
 */
export type KubeWrite =
  | { verb: 'create'; object: KubeObject; reason: string }
  | { verb: 'patch'; ref: ObjectRef; patchType: PatchType; patch: unknown; resourceVersion?: string; reason: string; dryRun?: boolean; precondition?: boolean }
  | { verb: 'delete'; ref: ObjectRef; resourceVersion?: string; reason: string };
