// `serve --sandbox`: a local Kubernetes control plane (shared/adapters/local/controlPlane.ts) with
// the demo Deployment of examples/deployment.yaml, ready to release. The cluster persists in its
// data directory: a restart (after Ctrl-C, or after the process was killed) finds the same objects,
// keys, tokens and, while the port is free, the same URL, so the user's kubeconfig keeps working and
// a release in flight goes on (local mode keeps the sandbox's DynamoDB data beside it). The demo
// Deployment is created only when it does not exist. `fresh` starts over with a new cluster.
import { setTimeout as sleep } from 'node:timers/promises';
import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { AppsV1Api, KubeConfig, type V1Deployment } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { startControlPlane, type ControlPlane } from '../adapters/local/controlPlane.ts';
import { RolloutsError } from '../errors.ts';

/** The demo workload, the same file a user applies to their own cluster. */
export const DEMO_DEPLOYMENT_FILE = new URL('../../examples/deployment.yaml', import.meta.url);
const BUILD_SCRIPT = fileURLToPath(new URL('../../scripts/build-testplane.sh', import.meta.url));
export const DEFAULT_SANDBOX_POD_READY_MS = 2000;
const DEMO_READY_TIMEOUT_MS = 120_000;

export class SandboxError extends RolloutsError {}

export interface Sandbox {
  plane: ControlPlane;
  /** The demo Deployment as it is now (or as created): namespace, name, replicas, images by container. */
  demo: { namespace: string; name: string; replicas: number; images: Record<string, string> };
  /** True when the cluster of an earlier start was started again (its objects are back). */
  restarted: boolean;
  stop(): Promise<void>;
}

export interface SandboxOptions {
  /** Holds etcd, PKI, kubeconfigs, process records and component logs, across starts. */
  dir: string;
  /** Wipe `dir` first: a new, empty cluster. */
  fresh?: boolean;
  podReadyDelayMs?: number;
  log?: (line: string) => void;
  /** Abort while starting: the control plane is stopped and SandboxError thrown. */
  signal?: AbortSignal;
}

export async function startSandbox(opts: SandboxOptions): Promise<Sandbox> {
  await buildControlPlane(opts.log ?? (() => {}));
  if (opts.fresh) await rm(opts.dir, { recursive: true, force: true });
  const plane = await startControlPlane({
    dataDir: opts.dir, persistent: true, podReadyDelayMs: opts.podReadyDelayMs ?? DEFAULT_SANDBOX_POD_READY_MS, ...(opts.log ? { log: opts.log } : {}),
  });
  try {
    const admin = new KubeConfig();
    admin.loadFromFile(plane.kubeconfigPath('admin'));
    const manifest = parse(await readFile(DEMO_DEPLOYMENT_FILE, 'utf8')) as V1Deployment;
    const namespace = manifest.metadata?.namespace ?? 'default';
    const apps = admin.makeApiClient(AppsV1Api);
    const existing = await readDeployment(apps, namespace, manifest.metadata?.name ?? 'web');
    // An existing one is the user's now (maybe mid-release, held by us): left exactly as it is.
    const demo = existing ?? await apps.createNamespacedDeployment({ namespace, body: manifest });
    const name = demo.metadata?.name ?? 'web';
    const replicas = demo.spec?.replicas ?? 1;
    if (!existing) await waitForAvailable(apps, namespace, name, replicas, opts.signal);
    const images = Object.fromEntries((demo.spec?.template.spec?.containers ?? []).map((c) => [c.name, c.image ?? '']));
    return { plane, demo: { namespace, name, replicas, images }, restarted: plane.restarted, stop: () => plane.stop() };
  } catch (err) {
    await plane.stop();
    throw err instanceof SandboxError ? err : new SandboxError(`creating the demo Deployment failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

async function readDeployment(apps: AppsV1Api, namespace: string, name: string): Promise<V1Deployment | null> {
  try {
    return await apps.readNamespacedDeployment({ namespace, name });
  } catch (err) {
    if ((err as { code?: number }).code === 404) return null;
    throw err;
  }
}

/** The native rollout of the new Deployment finishes first, so the first apply adopts a stable workload. */
async function waitForAvailable(apps: AppsV1Api, namespace: string, name: string, replicas: number, signal?: AbortSignal): Promise<void> {
  const deadline = performance.now() + DEMO_READY_TIMEOUT_MS;
  for (;;) {
    if (signal?.aborted) throw new SandboxError('interrupted while the demo Deployment was starting');
    const d = await apps.readNamespacedDeployment({ namespace, name });
    const s = d.status ?? {};
    if (s.availableReplicas === replicas && s.updatedReplicas === replicas && s.replicas === replicas) return;
    if (performance.now() > deadline) {
      throw new SandboxError(`the demo Deployment ${namespace}/${name} has ${s.availableReplicas ?? 0}/${replicas} available pods after ${DEMO_READY_TIMEOUT_MS / 1000}s`);
    }
    await sleep(250);
  }
}

/**
 * The control plane's binaries are built from Go modules on first use (about 8 minutes on 2 cores,
 * cached outside the repository); later runs of the script only say where the cache is.
 * ROLLOUTS_TESTPLANE_BIN points at prebuilt binaries instead.
 */
async function buildControlPlane(log: (line: string) => void): Promise<void> {
  if (process.env.ROLLOUTS_TESTPLANE_BIN) return;
  const child = spawn('bash', [BUILD_SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'] });
  let pending = '';
  const lines = (chunk: Buffer): void => {
    pending += chunk.toString();
    const parts = pending.split('\n');
    pending = parts.pop() ?? '';
    for (const line of parts) if (line.trim() !== '') log(line);
  };
  child.stdout.on('data', lines);
  child.stderr.on('data', lines);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (pending.trim() !== '') log(pending);
  if (code !== 0) throw new SandboxError(`building the local Kubernetes control plane failed (exit ${code}); it needs Go >= 1.24 and the Go module proxy (see the README)`);
}
