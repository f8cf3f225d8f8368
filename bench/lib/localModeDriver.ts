// Releases driven by local mode itself (shared/local/localMode.ts, what `npm start` runs), pointed
// at the benchmark's control plane through a kubeconfig of the least-privilege user. Local mode is
// a black box here: the Rollout goes in through its HTTP API, the template change through the
// admin client, and completion is read from its transition lines ("event Release Completed: …").
// Everything measured comes from the apiserver's audit log.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CoreV1Api, type V1DeploymentStrategy } from '@kubernetes/client-node';
import { ROLLOUTS_API_VERSION } from '../../shared/rollout/spec.ts';
import type { DeploymentStrategy } from '../../shared/rollout/types.ts';
import { WORKLOAD_TYPES, type WorkloadKind } from '../../shared/rollout/workloadKinds.ts';
import { WORKLOAD_DRIVERS } from '../../shared/workloads/registry.ts';
import { Scenario, type Engine } from '../testbed/engine.ts';
import { WorkloadHandle } from '../testbed/workloads.ts';

export interface LocalModeRelease {
  startedAt: number;
  /** When local mode printed the release's completion. */
  completedAt: number;
}

export interface LocalModeOptions {
  namespace: string;
  replicas: number;
  steps: unknown[];
  strategy: V1DeploymentStrategy;
  deploymentStrategy?: DeploymentStrategy;
  images: string[];
  timeoutMs: number;
  log(line: string): void;
}

/** A Deployment released by local mode. */
export async function releasesWithLocalMode(engine: Engine, opts: LocalModeOptions): Promise<LocalModeRelease[]> {
  const { namespace } = opts;
  await engine.cluster.admin.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
  await engine.cluster.createDeployment(namespace, 'web', { replicas: opts.replicas, image: 'registry.invalid/web:v1', strategy: opts.strategy });
  const s = new Scenario(engine, namespace);
  await s.waitForPods('registry.invalid/web:v1', opts.replicas, 60_000);
  return withLocalMode(engine, { ...opts, kind: 'Deployment', setImage: (image) => s.setImage(image) });
}

export type KindReleaseOptions = Omit<LocalModeOptions, 'strategy' | 'deploymentStrategy'> & { kind: WorkloadKind };

/** A workload of any kind (bench/testbed/workloads.ts) released by local mode. */
export async function kindReleasesWithLocalMode(engine: Engine, opts: KindReleaseOptions): Promise<LocalModeRelease[]> {
  await engine.cluster.admin.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: opts.namespace } } });
  const workload = new WorkloadHandle(engine.cluster, opts.namespace, opts.kind);
  await workload.create({ replicas: opts.replicas });
  await workload.waitForPods('registry.invalid/web:v1', opts.replicas);
  return withLocalMode(engine, { ...opts, setImage: (image) => workload.setImage(image) });
}

interface Driving extends Omit<LocalModeOptions, 'strategy' | 'replicas'> {
  kind: WorkloadKind;
  setImage(image: string): Promise<void>;
}

async function withLocalMode(engine: Engine, opts: Driving): Promise<LocalModeRelease[]> {
  const { startLocalMode } = await import('../../shared/local/localMode.ts');
  const { LOCAL_CLUSTER } = await import('../../shared/local/dataDir.ts');
  const { namespace, kind } = opts;
  const lines: { at: number; line: string }[] = [];
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-local-mode-'));
  // Local mode reads the kubeconfig the way kubectl does (KUBECONFIG), from this process's environment.
  const previousKubeconfig = process.env.KUBECONFIG;
  process.env.KUBECONFIG = engine.cluster.kubeconfigPath('rollouts');
  const local = await startLocalMode({ dataDir, cluster: 'kubeconfig', env: { ...process.env }, log: (line) => lines.push({ at: Date.now(), line }) });
  try {
    const url = `${local.endpoint}/v1/rollouts/${LOCAL_CLUSTER}/${namespace}/web`;
    const doc = {
      apiVersion: ROLLOUTS_API_VERSION, kind: 'Rollout', metadata: { name: 'web', namespace },
      spec: {
        workloadRef: { apiVersion: WORKLOAD_TYPES[kind].apiVersion, kind: WORKLOAD_TYPES[kind].kind, name: 'web' }, strategy: { canary: { steps: opts.steps } },
        ...(opts.deploymentStrategy ? { deploymentStrategy: opts.deploymentStrategy } : {}),
      },
    };
    const res = await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(doc) });
    if (!res.ok) throw new Error(`local mode refused the Rollout: ${res.status} ${await res.text()}`);
    const driver = WORKLOAD_DRIVERS[kind];
    const ref = { apiVersion: WORKLOAD_TYPES[kind].apiVersion, kind, name: 'web' };
    await waitFor(async () => driver.view(await driver.observe(engine.client, namespace, ref, new Date())).held, opts.timeoutMs, `local mode to hold the ${kind}`);
    const out: LocalModeRelease[] = [];
    for (const [i, image] of opts.images.entries()) {
      opts.log(`reaction (local mode, ${kind}): release ${i + 1}/${opts.images.length}`);
      const from = lines.length;
      const startedAt = Date.now();
      await opts.setImage(image);
      const done = await waitFor(
        async () => lines.slice(from).find((l) => l.line.startsWith('event Release Completed') && l.line.includes(`${namespace}/web`)),
        opts.timeoutMs, `local mode to complete release ${i + 1}`,
      );
      out.push({ startedAt, completedAt: done.at });
    }
    return out;
  } finally {
    await local.stop();
    if (previousKubeconfig === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = previousKubeconfig;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function waitFor<T>(f: () => Promise<T | undefined | false>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
