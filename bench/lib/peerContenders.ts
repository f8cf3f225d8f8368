// The contenders of the `peers` area, each releasing the same Deployment shape (`web`, N replicas,
// RollingUpdate with the Kubernetes defaults 25%/25%) in its own namespace on one control plane,
// through the same template change (the Deployment's image, patched by the admin client):
//   native          the Deployment's own RollingUpdate: done when `kubectl rollout status` would be;
//   argo-rollouts   an Argo Rollout whose workloadRef names the Deployment (scaleDown: onsuccess):
//                   done when its status says Healthy with the new pods as stable;
//   kruise-rollout  a Kruise Rollout v1beta1 on the Deployment, partition style (no extra
//                   workload): done when its status goes from Progressing back to Healthy;
//   ours            our Rollout, in each Deployment strategy, run by local mode's loop
//                   (bench/lib/watchLoop.ts): done at the "Release Completed" transition.
// Steps [10%, 50%, 100%] without pauses for every one of them.
import { AppsV1Api, CoreV1Api, CustomObjectsApi, type KubernetesObject, type V1Deployment } from '@kubernetes/client-node';
import type { DeploymentStrategy } from '../../shared/rollout/types.ts';
import { Scenario, type Engine } from '../testbed/engine.ts';
import { isPodReady } from '../testbed/kube.ts';
import { DeploymentWatch, rolledOutTo } from './deploymentWatch.ts';
import { ObjectWatch } from './objectWatch.ts';
import { releaseOnce, waitUntilHeld } from './release.ts';
import type { WatchLoop } from './watchLoop.ts';

export const PEER_STEP_PERCENTS = [10, 50, 100] as const;
export const V1_IMAGE = 'registry.invalid/web:v1';
const SETTLE_TIMEOUT_MS = 180_000;

export type ContenderName = 'native' | 'argo-rollouts' | 'kruise-rollout' | 'ours-minready' | 'ours-partition';
export const CONTENDERS: readonly ContenderName[] = ['native', 'argo-rollouts', 'kruise-rollout', 'ours-minready', 'ours-partition'];

export interface ReleaseWindow {
  /** Date.now() just before the template change was sent. */
  startedAt: number;
  /** When the bench saw the contender's own "done". */
  doneAt: number;
}

export interface Contender {
  name: ContenderName;
  namespace: string;
  replicas: number;
  /** Its own requests' component name in the audit log (lib/audit.ts); null for native (the controllers are the product). */
  own: string | null;
  /** Creates the Deployment and the contender's object, and waits until the contender holds it at rest. */
  prepare(): Promise<void>;
  /** Until the namespace runs exactly `replicas` Ready pods of `image` and the contender is at rest. */
  settle(image: string): Promise<void>;
  /** Changes the image and waits for the contender's "done". */
  release(image: string, timeoutMs: number): Promise<ReleaseWindow>;
}

interface Context {
  engine: Engine;
  loop: WatchLoop;
}

export function contender(name: ContenderName, namespace: string, replicas: number, ctx: Context): Contender {
  switch (name) {
    case 'native': return native(namespace, replicas, ctx);
    case 'argo-rollouts': return argo(namespace, replicas, ctx);
    case 'kruise-rollout': return kruise(namespace, replicas, ctx);
    case 'ours-minready': return ours(name, 'MinReadySeconds', namespace, replicas, ctx);
    case 'ours-partition': return ours(name, 'Partition', namespace, replicas, ctx);
  }
}

async function createDeployment({ engine }: Context, namespace: string, replicas: number): Promise<Scenario> {
  await engine.cluster.admin.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
  await engine.cluster.createDeployment(namespace, 'web', { replicas, image: V1_IMAGE });
  const s = new Scenario(engine, namespace);
  await s.waitForPods(V1_IMAGE, replicas, SETTLE_TIMEOUT_MS);
  return s;
}

/** Exactly `replicas` pods in the namespace, all of `image`, Ready, none terminating. */
async function podsSettled({ engine }: Context, namespace: string, replicas: number, image: string): Promise<boolean> {
  const pods = (await engine.cluster.admin.makeApiClient(CoreV1Api).listNamespacedPod({ namespace })).items;
  return pods.length === replicas && pods.every((p) => !p.metadata?.deletionTimestamp && isPodReady(p) && p.spec?.containers[0]?.image === image);
}

async function until(what: string, test: () => Promise<boolean>, timeoutMs = SETTLE_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function native(namespace: string, replicas: number, ctx: Context): Contender {
  let s: Scenario;
  return {
    name: 'native', namespace, replicas, own: null,
    async prepare() { s = await createDeployment(ctx, namespace, replicas); },
    settle: (image) => until(`${namespace}: ${replicas} pods of ${image}`, () => podsSettled(ctx, namespace, replicas, image)),
    async release(image, timeoutMs) {
      const watch = await DeploymentWatch.start(ctx.engine.cluster.admin, namespace, 'web');
      try {
        const done = watch.when(rolledOutTo(image, replicas), timeoutMs, 'the native rollout');
        const startedAt = Date.now();
        await s.setImage(image);
        return { startedAt, doneAt: await done };
      } finally {
        watch.stop();
      }
    },
  };
}

// --- Argo Rollouts -------------------------------------------------------------------------------

const ARGO = { group: 'argoproj.io', version: 'v1alpha1', plural: 'rollouts' } as const;

interface ArgoRollout extends KubernetesObject {
  status?: { phase?: string; stableRS?: string; currentPodHash?: string; replicas?: number; updatedReplicas?: number; availableReplicas?: number };
}

/**
 * An Argo Rollout that points at the Deployment (workloadRef) rather than carrying the pod template
 * itself: the user's Deployment stays the object they edit, and the template change is the very same
 * patch of the very same Deployment for every contender, as our users make it. With
 * `scaleDown: onsuccess` Argo scales the Deployment to 0 once its own ReplicaSet is Healthy, so the
 * namespace runs N pods at rest, as every other contender's does.
 */
function argo(namespace: string, replicas: number, ctx: Context): Contender {
  let s: Scenario;
  const api = ctx.engine.cluster.admin.makeApiClient(CustomObjectsApi);
  const collection = `/apis/${ARGO.group}/${ARGO.version}/namespaces/${namespace}/${ARGO.plural}`;
  const read = async () => (await api.getNamespacedCustomObject({ ...ARGO, namespace, name: 'web' })) as ArgoRollout;
  const healthy = (r: ArgoRollout) => {
    const st = r.status ?? {};
    return st.phase === 'Healthy' && !!st.stableRS && st.stableRS === st.currentPodHash && st.replicas === replicas && st.updatedReplicas === replicas && st.availableReplicas === replicas;
  };
  return {
    name: 'argo-rollouts', namespace, replicas, own: 'argo-rollouts',
    async prepare() {
      s = await createDeployment(ctx, namespace, replicas);
      const body = {
        apiVersion: `${ARGO.group}/${ARGO.version}`, kind: 'Rollout', metadata: { name: 'web', namespace },
        spec: {
          replicas,
          selector: { matchLabels: { app: 'web' } },
          workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', scaleDown: 'onsuccess' },
          strategy: { canary: { steps: PEER_STEP_PERCENTS.map((w) => ({ setWeight: w })) } },
        },
      };
      await api.createNamespacedCustomObject({ ...ARGO, namespace, body });
    },
    async settle(image) {
      const apps = ctx.engine.cluster.admin.makeApiClient(AppsV1Api);
      await until(`${namespace}: Argo Rollout Healthy, Deployment scaled to 0, ${replicas} pods of ${image}`, async () => {
        const d: V1Deployment = await apps.readNamespacedDeployment({ name: 'web', namespace });
        return healthy(await read()) && d.spec?.replicas === 0 && (d.status?.replicas ?? 0) === 0 && (await podsSettled(ctx, namespace, replicas, image));
      });
    },
    async release(image, timeoutMs) {
      const before = (await read()).status?.stableRS;
      const watch = await ObjectWatch.start<ArgoRollout>(ctx.engine.cluster.admin, collection, 'web');
      try {
        const done = watch.when((r) => healthy(r) && r.status?.stableRS !== before, timeoutMs, 'Argo Rollout Healthy on the new pods');
        const startedAt = Date.now();
        await s.setImage(image);
        return { startedAt, doneAt: await done };
      } finally {
        watch.stop();
      }
    },
  };
}

// --- Kruise Rollout ------------------------------------------------------------------------------

const KRUISE = { group: 'rollouts.kruise.io', version: 'v1beta1', plural: 'rollouts' } as const;
const KRUISE_WORKLOAD_LABEL = 'rollouts.kruise.io/workload-type';

interface KruiseRollout extends KubernetesObject {
  status?: { phase?: string; conditions?: { type?: string; reason?: string; status?: string }[] };
}

function kruise(namespace: string, replicas: number, ctx: Context): Contender {
  let s: Scenario;
  const api = ctx.engine.cluster.admin.makeApiClient(CustomObjectsApi);
  const collection = `/apis/${KRUISE.group}/${KRUISE.version}/namespaces/${namespace}/${KRUISE.plural}`;
  const read = async () => (await api.getNamespacedCustomObject({ ...KRUISE, namespace, name: 'web' })) as KruiseRollout;
  return {
    name: 'kruise-rollout', namespace, replicas, own: 'kruise-rollout',
    async prepare() {
      s = await createDeployment(ctx, namespace, replicas);
      const body = {
        apiVersion: `${KRUISE.group}/${KRUISE.version}`, kind: 'Rollout', metadata: { name: 'web', namespace },
        spec: {
          workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
          // Partition style: no extra canary Deployment; Kruise moves the Deployment's own pods in batches.
          // A step without a pause duration waits for a manual approval in Kruise: duration 0 does not.
          strategy: { canary: { enableExtraWorkloadForCanary: false, steps: PEER_STEP_PERCENTS.map((p) => ({ replicas: `${p}%`, pause: { duration: 0 } })) } },
        },
      };
      await api.createNamespacedCustomObject({ ...KRUISE, namespace, body });
    },
    async settle(image) {
      const apps = ctx.engine.cluster.admin.makeApiClient(AppsV1Api);
      // Its Deployment webhook only acts on Deployments carrying the label its controller adds.
      await until(`${namespace}: Kruise Rollout Healthy and its label on the Deployment, ${replicas} pods of ${image}`, async () => {
        const d = await apps.readNamespacedDeployment({ name: 'web', namespace });
        return (await read()).status?.phase === 'Healthy' && d.metadata?.labels?.[KRUISE_WORKLOAD_LABEL] !== undefined && d.spec?.paused !== true && (await podsSettled(ctx, namespace, replicas, image));
      });
    },
    async release(image, timeoutMs) {
      const watch = await ObjectWatch.start<KruiseRollout>(ctx.engine.cluster.admin, collection, 'web');
      try {
        let moved = false;
        const done = watch.when((r) => {
          if (r.status?.phase === 'Progressing') moved = true;
          const progressing = r.status?.conditions?.find((c) => c.type === 'Progressing');
          return moved && r.status?.phase === 'Healthy' && progressing?.reason === 'Completed';
        }, timeoutMs, 'Kruise Rollout Progressing, then Healthy with Progressing Completed');
        const startedAt = Date.now();
        await s.setImage(image);
        return { startedAt, doneAt: await done };
      } finally {
        watch.stop();
      }
    },
  };
}

// --- ours ----------------------------------------------------------------------------------------

function ours(name: ContenderName, strategy: DeploymentStrategy, namespace: string, replicas: number, ctx: Context): Contender {
  let s: Scenario;
  const steps = PEER_STEP_PERCENTS.map((p, i) => (i < PEER_STEP_PERCENTS.length - 1 ? { replicas: `${p}%`, pause: { duration: 0 } } : { replicas: `${p}%` }));
  return {
    name, namespace, replicas, own: 'serverless-rollouts',
    async prepare() {
      s = await ctx.engine.scenario('peers', { replicas, steps, namespace, deploymentStrategy: strategy });
    },
    async settle(image) {
      await waitUntilHeld(s, SETTLE_TIMEOUT_MS);
      await until(`${namespace}: ${replicas} pods of ${image}`, () => podsSettled(ctx, namespace, replicas, image));
    },
    async release(image, timeoutMs) {
      const r = await releaseOnce(ctx.engine, s, ctx.loop, image, replicas, timeoutMs);
      return { startedAt: r.startedAt, doneAt: r.completedAt };
    },
  };
}
