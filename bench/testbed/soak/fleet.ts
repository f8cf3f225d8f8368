// The soak's workloads: Deployments in both strategies (MinReadySeconds, Partition) and
// StatefulSets, one per namespace (the watchers count every pod of their namespace), each with the
// user's own budget recorded right after creation, so the hand-back at the end is compared with
// exactly what the user had.
import { AppsV1Api, type KubeConfig } from '@kubernetes/client-node';
import { isDeepStrictEqual } from 'node:util';
import { ROLLOUTS_API_VERSION } from '../../../shared/rollout/spec.ts';
import { normaliseSteps } from '../../../shared/rollout/spec.ts';
import type { Step } from '../../../shared/rollout/types.ts';
import { createNamespace, deploymentManifest } from '../kube.ts';
import { rawGet } from '../namespaceWatch.ts';
import type { Random } from '../faults/prng.ts';

export type FleetKind = 'MinReadySeconds' | 'Partition' | 'StatefulSet';
export const WORKLOAD = 'app';
export const IMAGE = (n: number) => `registry.invalid/app:v${n}`;

export interface FleetMember {
  kind: FleetKind;
  namespace: string;
  name: string;
  /** The Rollout document applied for it. */
  document: Record<string, unknown>;
  steps: Step[];
  /** What the user owns, as read after creation (compared after the hand-back). */
  userFields: Record<string, unknown>;
  replicas: number;
  /** Images released so far (the next one is v<images.length + 1>). */
  images: number;
}

const BUDGETS = [{ maxSurge: '25%', maxUnavailable: '25%' }, { maxSurge: 1, maxUnavailable: 0 }, { maxSurge: 0, maxUnavailable: 1 }] as const;

export async function createFleet(admin: KubeConfig, rng: Random, count: number): Promise<FleetMember[]> {
  const apps = admin.makeApiClient(AppsV1Api);
  const members: FleetMember[] = [];
  const kinds: FleetKind[] = ['MinReadySeconds', 'Partition', 'StatefulSet'];
  for (let i = 0; i < count; i += 1) {
    const kind = kinds[i % kinds.length] as FleetKind;
    const namespace = await createNamespace(admin, `soak-${i}-${kind.toLowerCase()}`);
    const replicas = rng.int(3, 4);
    const minReadySeconds = rng.pick([0, 0, 1]);
    if (kind === 'StatefulSet') {
      const labels = { app: WORKLOAD };
      await apps.createNamespacedStatefulSet({ namespace, body: {
        apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: WORKLOAD, labels },
        spec: { replicas, serviceName: WORKLOAD, minReadySeconds, podManagementPolicy: 'Parallel', selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: IMAGE(0) }] } } },
      } });
    } else {
      const budget = rng.pick(BUDGETS);
      await apps.createNamespacedDeployment({ namespace, body: deploymentManifest(WORKLOAD, { replicas, image: IMAGE(0), minReadySeconds, strategy: { type: 'RollingUpdate', rollingUpdate: { ...budget } } }) });
    }
    const stepsDoc = [{ replicas: 1, pause: {} }, { replicas: '50%', pause: rng.chance(0.5) ? {} : { duration: rng.int(2, 6) } }, { replicas: '100%' }];
    const document = {
      apiVersion: ROLLOUTS_API_VERSION, kind: 'Rollout', metadata: { name: WORKLOAD, namespace },
      spec: {
        workloadRef: { apiVersion: 'apps/v1', kind: kind === 'StatefulSet' ? 'StatefulSet' : 'Deployment', name: WORKLOAD },
        strategy: { canary: { steps: stepsDoc } },
        ...(kind === 'StatefulSet' ? {} : { deploymentStrategy: kind }),
        progressDeadlineSeconds: rng.int(150, 400),
        rollbackOnFailure: rng.chance(0.3),
      },
    };
    members.push({ kind, namespace, name: WORKLOAD, document, steps: normaliseSteps(stepsDoc as never), userFields: {}, replicas, images: 0 });
  }
  return members;
}

/** The fields the user owns, read from the live workload. */
export async function userFields(admin: KubeConfig, m: FleetMember): Promise<Record<string, unknown>> {
  const obj = await rawGet(admin, workloadPath(m)) as { metadata: { annotations?: Record<string, string> }; spec: Record<string, unknown> };
  const spec = obj.spec;
  const ours = Object.keys(obj.metadata.annotations ?? {}).filter((k) => k.startsWith('rollouts.kruise.io/') || k.startsWith('rollouts.serverless-rollouts.io/'));
  return m.kind === 'StatefulSet'
    ? { updateStrategy: spec.updateStrategy, minReadySeconds: spec.minReadySeconds ?? 0, ourAnnotations: ours }
    : { paused: spec.paused ?? false, strategy: spec.strategy, minReadySeconds: spec.minReadySeconds ?? 0, progressDeadlineSeconds: spec.progressDeadlineSeconds, ourAnnotations: ours };
}

/** Differences between what the user had and what the workload has now. */
export async function handBackDiff(admin: KubeConfig, m: FleetMember): Promise<string | null> {
  const now = await userFields(admin, m);
  return isDeepStrictEqual(now, m.userFields) ? null : `${m.kind} ${m.namespace}/${m.name}: handed back as ${JSON.stringify(now)}, the user had ${JSON.stringify(m.userFields)}`;
}

/** The native controller reports the workload settled on one revision. */
export async function nativelySettled(admin: KubeConfig, m: FleetMember): Promise<boolean> {
  const obj = await rawGet(admin, workloadPath(m)) as { metadata: { generation: number }; spec: { replicas: number }; status: Record<string, unknown> };
  const st = obj.status;
  if (Number(st.observedGeneration ?? 0) < obj.metadata.generation) return false;
  if (m.kind === 'StatefulSet') return st.currentRevision === st.updateRevision && st.readyReplicas === obj.spec.replicas && st.replicas === obj.spec.replicas;
  return st.updatedReplicas === obj.spec.replicas && st.availableReplicas === obj.spec.replicas && st.replicas === obj.spec.replicas;
}

export function workloadPath(m: FleetMember): string {
  return `/apis/apps/v1/namespaces/${m.namespace}/${m.kind === 'StatefulSet' ? 'statefulsets' : 'deployments'}/${m.name}`;
}
