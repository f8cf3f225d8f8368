// Test harness over the real local control plane (shared/adapters/local/controlPlane.ts): one
// cluster per test file, admin and least-privilege clients, and helpers to set up workloads.
// Objects are created with the admin client; the code under test gets `rollouts`.
import { randomBytes } from 'node:crypto';
import {
  AppsV1Api,
  CoreV1Api,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1Deployment,
  type V1Pod,
  type V1DeploymentStrategy,
  type V1ReplicaSet,
} from '@kubernetes/client-node';
import { NEVER_READY_LABEL, startControlPlane, type ControlPlane, type ControlPlaneOptions } from '../../shared/adapters/local/controlPlane.ts';
import { runKubectl, type KubectlOptions, type KubectlResult } from '../../shared/adapters/local/controlplane/kubectl.ts';

export { NEVER_READY_LABEL };

export interface TestCluster extends ControlPlane {
  /** system:masters: set-up and inspection. */
  admin: KubeConfig;
  /** The `serverless-rollouts` user, bound only by infra/k8s/rollouts-rbac.yaml: give this to the code under test. */
  rollouts: KubeConfig;
  createNamespace(prefix: string): Promise<string>;
  createDeployment(namespace: string, name: string, options?: DeploymentOptions): Promise<V1Deployment>;
  listReplicaSets(namespace: string, selector: LabelSelector): Promise<V1ReplicaSet[]>;
  /** The real kubectl against this cluster, as admin unless `as: 'rollouts'`; resolves whatever the exit code. */
  kubectl(args: readonly string[], options?: KubectlOptions & { as?: 'admin' | 'rollouts' }): Promise<KubectlResult>;
}

export interface DeploymentOptions {
  /** Default 1. */
  replicas?: number;
  /** Default registry.invalid/app:v1 (never pulled: kwok runs nothing). */
  image?: string;
  /** Pod template labels, also the selector. Default { app: <name> }. */
  labels?: Record<string, string>;
  paused?: boolean;
  strategy?: V1DeploymentStrategy;
  /** Adds the never-ready label to the pod template only (not the selector): pods run but never become Ready. */
  neverReady?: boolean;
  minReadySeconds?: number;
}

export type LabelSelector = string | Record<string, string>;

/** PATCH bodies are merge patches; client-node defaults to json-patch otherwise. */
export const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export async function startTestCluster(opts: ControlPlaneOptions = {}): Promise<TestCluster> {
  const plane = await startControlPlane(opts);
  try {
    const admin = loadKubeConfig(plane.kubeconfigPath('admin'));
    const rollouts = loadKubeConfig(plane.kubeconfigPath('rollouts'));
    return {
      ...plane,
      admin,
      rollouts,
      createNamespace: (prefix) => createNamespace(admin, prefix),
      createDeployment: (namespace, name, options) => createDeployment(admin, namespace, name, options),
      listReplicaSets: (namespace, selector) => listReplicaSets(admin, namespace, selector),
      kubectl: (args, options = {}) => runKubectl(plane.kubeconfigPath(options.as ?? 'admin'), args, options),
    };
  } catch (error) {
    await plane.stop();
    throw error;
  }
}

export function loadKubeConfig(file: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(file);
  return kc;
}

/** Creates `<prefix>-<random>` so tests sharing a cluster never see each other's objects. */
export async function createNamespace(admin: KubeConfig, prefix: string): Promise<string> {
  const name = `${prefix.toLowerCase().replace(/[^a-z0-9-]/g, '-').slice(0, 50)}-${randomBytes(3).toString('hex')}`;
  await admin.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name } } });
  return name;
}

export function deploymentManifest(name: string, options: DeploymentOptions = {}): V1Deployment {
  const selector = options.labels ?? { app: name };
  const templateLabels = options.neverReady ? { ...selector, [NEVER_READY_LABEL]: 'true' } : selector;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: selector },
    spec: {
      replicas: options.replicas ?? 1,
      paused: options.paused,
      strategy: options.strategy,
      minReadySeconds: options.minReadySeconds,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: templateLabels },
        spec: { containers: [{ name: 'app', image: options.image ?? 'registry.invalid/app:v1' }] },
      },
    },
  };
}

export async function createDeployment(admin: KubeConfig, namespace: string, name: string, options: DeploymentOptions = {}): Promise<V1Deployment> {
  return admin.makeApiClient(AppsV1Api).createNamespacedDeployment({ namespace, body: deploymentManifest(name, options) });
}

/** ReplicaSets matching `selector`, oldest first. */
export async function listReplicaSets(admin: KubeConfig, namespace: string, selector: LabelSelector): Promise<V1ReplicaSet[]> {
  const labelSelector = typeof selector === 'string' ? selector : Object.entries(selector).map(([key, value]) => `${key}=${value}`).join(',');
  const list = await admin.makeApiClient(AppsV1Api).listNamespacedReplicaSet({ namespace, labelSelector });
  return list.items.sort(
    (a, b) =>
      (a.metadata?.creationTimestamp?.getTime() ?? 0) - (b.metadata?.creationTimestamp?.getTime() ?? 0) ||
      (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''),
  );
}

/** Ready=True, as the kubelet (kwok here) reports it. */
export function isPodReady(pod: V1Pod | undefined): boolean {
  return pod?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** The HTTP status of a failed client-node call (ApiException.code), or undefined for other errors. */
export function apiStatusOf(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}
