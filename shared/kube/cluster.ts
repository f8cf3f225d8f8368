// The port to a Kubernetes cluster, in the wire shapes of ./types.ts. A neutral module: the workload
// drivers (shared/workloads) observe and write through it, the reconcile pipeline hands it to them,
// and the Kubernetes adapter (shared/adapters/kubernetes) implements it; none of them imports another.
import type { KubeObject, KubeWrite, ObjectRef } from './types.ts';

export interface ClusterClient {
  /** One GET; null when the object does not exist. */
  get(ref: ObjectRef): Promise<KubeObject | null>;
  /** One LIST by label selector (e.g. "app=web,tier in (a,b)"). */
  list(apiVersion: string, kind: string, namespace: string, labelSelector: string): Promise<KubeObject[]>;
  /** Apply one write; throws ConflictError on 409, NotFoundError on 404. Returns the stored object. */
  write(write: KubeWrite): Promise<KubeObject | null>;
}

/** Resolves a registered cluster name to a client (EKS token, static endpoint, or local kubeconfig). */
export interface ClusterProvider {
  client(cluster: string): Promise<ClusterClient>;
}
