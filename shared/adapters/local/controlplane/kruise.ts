// The real OpenKruise controller manager on a local control plane (opt-in: ControlPlaneOptions.kruise).
// Built by scripts/build-testbed.sh from Go modules, with its webhook server bound to 127.0.0.1; run
// outside the cluster as kruise's own docs run it with WEBHOOK_HOST: every CRD and both webhook configurations are installed
// first (it exits without them), then the manager writes its self-signed certificates and points
// each webhook's clientConfig at https://127.0.0.1:<port>.
import { setTimeout as sleep } from 'node:timers/promises';
import fs from 'node:fs';
import path from 'node:path';
import { AdmissionregistrationV1Api, ApiextensionsV1Api, CoreV1Api, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { ControlPlaneError } from '../../../errors.ts';
import { locateTestbedComponent } from './assets.ts';
import type { Daemon, DaemonOptions } from './daemon.ts';
import { runKubectl } from './kubectl.ts';
import { freePorts } from './ports.ts';
import { httpProbe, waitUntilReady } from './readiness.ts';

export const KRUISE_NAMESPACE = 'kruise-system';
/** The field manager of our server-side applies (the biggest CRDs exceed client-side apply's annotation limit). */
const FIELD_MANAGER = 'rollouts-testbed';
/** Logged by controller-runtime once the CloneSet controller's informers synced: workloads may be created. */
const WORKERS_STARTED = /"Starting workers".*"controller"\s*[:=]\s*"cloneset-controller"/;

export interface KruiseAssets {
  binary: string;
  /** The 18 CRDs of config/crd/bases. */
  crdsDir: string;
  /** config/webhook rendered with namePrefix kruise-. */
  webhooksFile: string;
}

export function locateKruise(): KruiseAssets {
  const dir = locateTestbedComponent('kruise', ['bin/kruise-manager', 'crds', 'webhooks.yaml']);
  return { binary: path.join(dir, 'bin/kruise-manager'), crdsDir: path.join(dir, 'crds'), webhooksFile: path.join(dir, 'webhooks.yaml') };
}

export interface KruiseStartOptions {
  admin: KubeConfig;
  adminKubeconfig: string;
  /** Certificates and the protection log go under <dataDir>/kruise. */
  dataDir: string;
  /** Spawns a daemon the control plane owns (and stops with its other clients). */
  start: (name: string, binary: string, args: string[], options: DaemonOptions) => Daemon;
  timeoutMs: number;
}

/** Installs kruise's CRDs and webhook configurations, starts kruise-manager and waits until its controllers run. */
export async function startKruise(options: KruiseStartOptions): Promise<Daemon> {
  const assets = locateKruise();
  const { admin, timeoutMs } = options;
  await installManifests(admin, options.adminKubeconfig, assets, timeoutMs);
  const dir = path.join(options.dataDir, 'kruise');
  const certDir = path.join(dir, 'certs');
  fs.mkdirSync(certDir, { recursive: true });
  const [webhookPort, healthPort] = (await freePorts(2)) as [number, number];
  const manager = options.start('kruise-manager', assets.binary, [
    `--kubeconfig=${options.adminKubeconfig}`,
    '--enable-leader-election=false',
    '--metrics-addr=0',
    `--health-probe-addr=127.0.0.1:${healthPort}`,
    '--enable-pprof=false',
    `--protection-log-path=${dir}`,
    // PodWebhook=false keeps kruise out of every pod creation (native workloads' too, failurePolicy
    // Fail); KruiseDaemon=false: there is no node agent here (in-place image updates do without it).
    '--feature-gates=PodWebhook=false,KruiseDaemon=false',
  ], {
    env: { POD_NAMESPACE: KRUISE_NAMESPACE, WEBHOOK_HOST: '127.0.0.1', WEBHOOK_PORT: String(webhookPort), WEBHOOK_CERT_DIR: certDir },
  });
  const ready = { timeoutMs, daemon: manager };
  await waitUntilReady(httpProbe(`http://127.0.0.1:${healthPort}/readyz`), { ...ready, what: 'GET /readyz' });
  await Promise.all([
    waitUntilReady(webhooksPointAt(admin, webhookPort), { ...ready, what: `webhook configurations pointing at 127.0.0.1:${webhookPort}` }),
    waitUntilReady(async () => (WORKERS_STARTED.test(fs.readFileSync(manager.logPath, 'utf8')) ? true : undefined), {
      ...ready, what: 'the cloneset-controller to start its workers', intervalMs: 200,
    }),
  ]);
  return manager;
}

function readDocuments(file: string): KubernetesObject[] {
  return parseAllDocuments(fs.readFileSync(file, 'utf8'))
    .map((document) => document.toJSON() as KubernetesObject | null)
    .filter((object): object is KubernetesObject => object !== null);
}

async function installManifests(admin: KubeConfig, adminKubeconfig: string, assets: KruiseAssets, timeoutMs: number): Promise<void> {
  const apply = async (file: string): Promise<void> => {
    const result = await runKubectl(adminKubeconfig, ['apply', '--server-side', `--field-manager=${FIELD_MANAGER}`, '--force-conflicts', '-f', file]);
    if (result.code !== 0) throw new ControlPlaneError('kube-apiserver', `kubectl apply --server-side -f ${file} failed: ${result.stderr.trim()}`);
  };
  await apply(assets.crdsDir);
  const extensions = admin.makeApiClient(ApiextensionsV1Api);
  const names = fs.readdirSync(assets.crdsDir).filter((file) => file.endsWith('.yaml'))
    .flatMap((file) => readDocuments(path.join(assets.crdsDir, file)).map((crd) => crd.metadata?.name as string));
  const deadline = performance.now() + timeoutMs;
  await Promise.all(names.map(async (name) => {
    for (;;) {
      const current = await extensions.readCustomResourceDefinition({ name });
      if (current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return;
      if (performance.now() > deadline) throw new ControlPlaneError('kube-apiserver', `CRD ${name} not Established after ${timeoutMs} ms`);
      await sleep(100);
    }
  }));
  // The webhook configurations and the in-cluster Service they name (never used: the manager
  // replaces every service reference with its URL on 127.0.0.1).
  await admin.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: KRUISE_NAMESPACE } } });
  await apply(assets.webhooksFile);
}

/** Probe: every kruise webhook's clientConfig is a URL on our port with a CA bundle (kruise's webhook controller patched them). */
function webhooksPointAt(admin: KubeConfig, port: number): () => Promise<true | undefined> {
  const api = admin.makeApiClient(AdmissionregistrationV1Api);
  const prefix = `https://127.0.0.1:${port}/`;
  return async () => {
    const [mutating, validating] = await Promise.all([
      api.readMutatingWebhookConfiguration({ name: 'kruise-mutating-webhook-configuration' }),
      api.readValidatingWebhookConfiguration({ name: 'kruise-validating-webhook-configuration' }),
    ]);
    const hooks = [...(mutating.webhooks ?? []), ...(validating.webhooks ?? [])];
    const stale = hooks.filter((hook) => !hook.clientConfig.url?.startsWith(prefix) || !hook.clientConfig.caBundle);
    if (hooks.length > 0 && stale.length === 0) return true;
    throw new Error(`${stale.length} of ${hooks.length} webhooks not yet at ${prefix}: ${stale.slice(0, 3).map((hook) => hook.name).join(', ')}`);
  };
}
