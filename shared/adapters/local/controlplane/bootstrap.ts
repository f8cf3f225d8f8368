// What the control plane needs once the apiserver answers: the product's RBAC and kwok's fake nodes,
// plus the probes that say they took effect. Everything goes through @kubernetes/client-node.
import fs from 'node:fs';
import { AppsV1Api, CoordinationV1Api, CoreV1Api, KubernetesObjectApi, VersionApi, type KubeConfig, type KubernetesObject, type V1Node } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { KWOK_NODE_ANNOTATION, KWOK_NODE_ANNOTATION_VALUE } from './kwokConfig.ts';

/**
 * Creates every object of a multi-document YAML file (e.g. infra/k8s/rollouts-rbac.yaml); an
 * object that exists already (a restarted persistent control plane) is replaced by the file's.
 */
export async function applyManifestFile(admin: KubeConfig, file: string): Promise<KubernetesObject[]> {
  const objects = parseAllDocuments(fs.readFileSync(file, 'utf8'))
    .map((document) => document.toJSON() as KubernetesObject | null)
    .filter((object): object is KubernetesObject => object !== null);
  const client = KubernetesObjectApi.makeApiClient(admin);
  const created: KubernetesObject[] = [];
  for (const object of objects) {
    try {
      created.push(await client.create(object));
    } catch (err) {
      if (!isConflict(err)) throw err;
      const current = await client.read({ apiVersion: object.apiVersion, kind: object.kind, metadata: { name: object.metadata?.name ?? '', ...(object.metadata?.namespace ? { namespace: object.metadata.namespace } : {}) } });
      created.push(await client.replace({ ...object, metadata: { ...object.metadata, resourceVersion: current.metadata?.resourceVersion } }));
    }
  }
  return created;
}

function isConflict(err: unknown): boolean {
  return (err as { code?: number }).code === 409;
}

export function fakeNodeName(index: number): string {
  return `kwok-node-${index}`;
}

/** A Node kwok manages (by annotation), big enough that scheduling never depends on resources. */
export function fakeNode(name: string): V1Node {
  const resources = { cpu: '32', memory: '256Gi', pods: '110' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      annotations: { [KWOK_NODE_ANNOTATION]: KWOK_NODE_ANNOTATION_VALUE },
      labels: { type: 'kwok', 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64' },
    },
    // Nodes, unlike most kinds, keep the status given on create (that is how kubelets register).
    status: { allocatable: resources, capacity: resources },
  };
}

export async function createFakeNodes(admin: KubeConfig, count: number): Promise<string[]> {
  const core = admin.makeApiClient(CoreV1Api);
  const names = Array.from({ length: count }, (_, index) => fakeNodeName(index));
  // A restarted persistent control plane has them already (kwok takes them over again).
  await Promise.all(names.map((name) => core.createNode({ body: fakeNode(name) }).catch((err: unknown) => {
    if (!isConflict(err)) throw err;
  })));
  return names;
}

/**
 * Deletes the fake nodes' Leases (kube-node-lease) a previous kwok held. kwok takes a node over only
 * once its Lease has no live holder, so after a restart on the same etcd data the new kwok would
 * leave every node, and every pod on it, alone until the old Leases expire (40 s): pods created
 * just before the restart would stay Pending that long.
 */
export async function releaseNodeLeases(admin: KubeConfig, count: number): Promise<void> {
  const coordination = admin.makeApiClient(CoordinationV1Api);
  await Promise.all(Array.from({ length: count }, (_, i) => coordination.deleteNamespacedLease({ name: fakeNodeName(i), namespace: 'kube-node-lease' }).catch((err: unknown) => {
    if ((err as { code?: number }).code !== 404) throw err;
  })));
}

/** Probe: every named node has Ready=True (kwok's node-initialize stage ran). */
export function nodesReadyProbe(admin: KubeConfig, names: string[]): () => Promise<true | undefined> {
  const core = admin.makeApiClient(CoreV1Api);
  return async () => {
    const nodes = await core.listNode();
    const ready = new Set(
      nodes.items
        .filter((node) => node.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True'))
        .map((node) => node.metadata?.name),
    );
    const notReady = names.filter((name) => !ready.has(name));
    if (notReady.length === 0) return true;
    throw new Error(`nodes not Ready yet: ${notReady.join(', ')}`);
  };
}

/** Probe: the default namespace exists (created asynchronously by the apiserver). */
export function defaultNamespaceProbe(admin: KubeConfig): () => Promise<true> {
  const core = admin.makeApiClient(CoreV1Api);
  return async () => {
    await core.readNamespace({ name: 'default' });
    return true;
  };
}

/** Probe: the least-privilege user's binding is in the RBAC authorizer's cache (it can list deployments). */
export function rolloutsAuthorizedProbe(rollouts: KubeConfig): () => Promise<true> {
  const apps = rollouts.makeApiClient(AppsV1Api);
  return async () => {
    await apps.listDeploymentForAllNamespaces({ limit: 1 });
    return true;
  };
}

export async function serverVersion(admin: KubeConfig): Promise<string> {
  const info = await admin.makeApiClient(VersionApi).getCode();
  return info.gitVersion;
}
