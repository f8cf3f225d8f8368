// Workloads of every kind the registry drives, for integration tests on the real control plane
// (kube-controller-manager for the native kinds, the real kruise-manager for the Kruise ones):
// manifests, created as admin, and a scenario that reads any kind through the product's own
// Kubernetes adapter (as admin: set-up and inspection, never the code under test).
import type { KubeObject } from '../../shared/kube/types.ts';
import { KubeClusterClient } from '../../shared/adapters/kubernetes/clusterClient.ts';
import { WORKLOAD_RESOURCES } from '../../shared/app/kubeResources.ts';
import { WORKLOAD_TYPES, type WorkloadKind } from '../../shared/rollout/workloadKinds.ts';
import type { TestCluster } from './kube.ts';
import { waitFor } from './wait.ts';

export const APP = 'web';

export interface WorkloadOptions {
  /** Ignored by the DaemonSet kinds (one pod per node). Default 6. */
  replicas?: number;
  /** Default registry.invalid/web:v1. */
  image?: string;
  /** spec.updateStrategy as the user writes it (default: none, the kind's defaults). */
  updateStrategy?: Record<string, unknown>;
  /** spec.minReadySeconds (CloneSet, StatefulSet, DaemonSets). */
  minReadySeconds?: number;
}

/** The user's workload of `kind`, named `web`, one container `app`, labels app=web. */
export function workloadManifest(kind: WorkloadKind, o: WorkloadOptions = {}): KubeObject {
  const { apiVersion, kind: k8sKind } = WORKLOAD_TYPES[kind];
  const labels = { app: APP };
  const template = { metadata: { labels }, spec: { containers: [{ name: 'app', image: o.image ?? 'registry.invalid/web:v1' }] } };
  const spec: Record<string, unknown> = { selector: { matchLabels: labels }, template };
  const perNode = kind === 'DaemonSet' || kind === 'AdvancedDaemonSet';
  if (!perNode) spec.replicas = o.replicas ?? 6;
  if (kind === 'StatefulSet' || kind === 'AdvancedStatefulSet') spec.serviceName = APP;
  // Parallel: the Advanced StatefulSet's pods start together (updates still go by ordinal).
  if (kind === 'AdvancedStatefulSet') spec.podManagementPolicy = 'Parallel';
  if (o.updateStrategy) spec[kind === 'Deployment' ? 'strategy' : 'updateStrategy'] = o.updateStrategy;
  if (o.minReadySeconds !== undefined) spec.minReadySeconds = o.minReadySeconds;
  return { apiVersion, kind: k8sKind, metadata: { name: APP, labels }, spec };
}

/** Live pods of the app, by name. */
export interface PodRow {
  image: string;
  revision: string;
  ready: boolean;
  uid: string;
  node: string;
}

export interface WorkloadSnapshot {
  workload: KubeObject;
  pods: Record<string, PodRow>;
}

/** Reads and edits one workload of any kind, as admin. */
export class WorkloadHandle {
  readonly client: KubeClusterClient;

  constructor(readonly cluster: TestCluster, readonly namespace: string, readonly kind: WorkloadKind) {
    this.client = new KubeClusterClient(cluster.admin, { resources: WORKLOAD_RESOURCES });
  }

  get ref() {
    const { apiVersion, kind } = WORKLOAD_TYPES[this.kind];
    return { apiVersion, kind, namespace: this.namespace, name: APP };
  }

  async create(o: WorkloadOptions = {}): Promise<void> {
    await this.client.write({ verb: 'create', object: { ...workloadManifest(this.kind, o), metadata: { name: APP, namespace: this.namespace, labels: { app: APP } } }, reason: 'test set-up' });
  }

  async read(): Promise<KubeObject> {
    const w = await this.client.get(this.ref);
    if (!w) throw new Error(`${this.kind} ${this.namespace}/${APP} is gone`);
    return w;
  }

  /** A merge patch as the user (kubectl, GitOps) would make it. */
  async patch(patch: Record<string, unknown>): Promise<void> {
    await this.client.write({ verb: 'patch', ref: this.ref, patchType: 'merge', patch, reason: 'test' });
  }

  /** `kubectl set image`: the one container's image. */
  setImage(image: string): Promise<void> {
    return this.patch({ spec: { template: { spec: { containers: [{ name: 'app', image }] } } } });
  }

  async snapshot(): Promise<WorkloadSnapshot> {
    const [workload, pods] = await Promise.all([this.read(), this.client.list('v1', 'Pod', this.namespace, `app=${APP}`)]);
    const rows: Record<string, PodRow> = {};
    for (const p of pods) {
      if (p.metadata.deletionTimestamp) continue;
      const containers = (p.spec?.containers ?? []) as { image?: string }[];
      const conditions = (p.status?.conditions ?? []) as { type: string; status: string }[];
      rows[p.metadata.name] = {
        image: tagOf(containers[0]?.image ?? '?'),
        revision: p.metadata.labels?.['controller-revision-hash'] ?? '',
        ready: conditions.some((c) => c.type === 'Ready' && c.status === 'True'),
        uid: p.metadata.uid ?? '',
        node: String(p.spec?.nodeName ?? ''),
      };
    }
    return { workload, pods: rows };
  }

  /** Waits until `count` pods run and are Ready, whatever their images. */
  async waitForPodCount(count: number, timeoutMs = 60_000): Promise<WorkloadSnapshot> {
    return waitFor(async () => {
      const s = await this.snapshot();
      const rows = Object.values(s.pods);
      return rows.length === count && rows.every((p) => p.ready) ? s : null;
    }, { message: `${count} Ready pods in ${this.kind} ${this.namespace}/${APP}`, timeoutMs });
  }

  /** Waits until `count` pods run `image` and are Ready (and nothing else runs). */
  async waitForPods(image: string, count: number, timeoutMs = 60_000): Promise<WorkloadSnapshot> {
    const tag = tagOf(image);
    return waitFor(async () => {
      const s = await this.snapshot();
      const rows = Object.values(s.pods);
      return rows.length === count && rows.every((p) => p.image === tag && p.ready) ? s : null;
    }, { message: `${count} Ready pods of ${image} in ${this.kind} ${this.namespace}/${APP}`, timeoutMs });
  }
}

/** "registry.invalid/web:v2" → "v2". */
export function tagOf(image: string): string {
  return image.slice(image.lastIndexOf(':') + 1);
}

/** Pods per image tag, e.g. { v1: 3, v2: 3 }. */
export function tags(s: WorkloadSnapshot): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of Object.values(s.pods)) out[p.image] = (out[p.image] ?? 0) + 1;
  return out;
}

/** spec.updateStrategy of the workload (spec.strategy for a Deployment). */
export function strategyOf(w: KubeObject): unknown {
  return w.kind === 'Deployment' ? w.spec?.strategy : w.spec?.updateStrategy;
}

/** Our annotations left on a workload (none once it is handed back). */
export function ourAnnotations(w: KubeObject): string[] {
  return Object.keys(w.metadata.annotations ?? {}).filter((k) => k.startsWith('rollouts.serverless-rollouts.io/') || k.startsWith('rollouts.kruise.io/'));
}
