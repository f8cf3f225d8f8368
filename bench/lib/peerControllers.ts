// The release controllers the `peers` area compares us with, run outside the cluster against the
// benchmark's control plane as the test bed runs kruise-manager (shared/adapters/local/controlplane/kruise.ts):
//   Argo Rollouts' controller, with its CRDs;
//   Kruise Rollout's manager, with its CRDs and webhook configurations, its webhook on 127.0.0.1.
// Both are built by scripts/build-peers.sh, which this calls on first use (a no-op once cached);
// .ci/run and npm test never build them. Both get the admin kubeconfig, as the other components of
// the local control plane do, and listen on loopback only (the build patches their bind addresses).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AdmissionregistrationV1Api, ApiextensionsV1Api } from '@kubernetes/client-node';
import { parseAllDocuments, stringify } from 'yaml';
import { ControlPlaneError } from '../../shared/errors.ts';
import { Daemon } from '../../shared/adapters/local/controlplane/daemon.ts';
import { runKubectl } from '../../shared/adapters/local/controlplane/kubectl.ts';
import { freePorts } from '../../shared/adapters/local/controlplane/ports.ts';
import { httpProbe, waitUntilReady } from '../../shared/adapters/local/controlplane/readiness.ts';
import type { TestCluster } from '../testbed/kube.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BUILD_SCRIPT = path.join(ROOT, 'scripts/build-peers.sh');
export const PEERS = ['argo-rollouts', 'kruise-rollout'] as const;
export type Peer = (typeof PEERS)[number];

const READY_TIMEOUT_MS = 90_000;
const STOP_GRACE_MS = 5_000;
const FIELD_MANAGER = 'rollouts-bench';
/** Kruise Rollout's webhook configurations, by the names its manager looks up (kustomize namePrefix kruise-rollout-). */
const KRUISE_ROLLOUT_MUTATING = 'kruise-rollout-mutating-webhook-configuration';
const KRUISE_ROLLOUT_VALIDATING = 'kruise-rollout-validating-webhook-configuration';

/** Where build-peers.sh keeps a peer (it prints the directory and builds nothing). */
function peerDir(peer: Peer): string {
  return execFileSync('bash', [BUILD_SCRIPT, '--print-dir', peer], { encoding: 'utf8' }).trim();
}

function isBuilt(peer: Peer): boolean {
  const dir = peerDir(peer);
  const files = peer === 'argo-rollouts' ? ['bin/rollouts-controller', 'crds.yaml'] : ['bin/kruise-rollout', 'crds.yaml', 'webhooks.yaml'];
  return files.every((f) => fs.existsSync(path.join(dir, f)));
}

/** Builds whichever peer is not cached yet (Go, from the module proxy: minutes each), saying so. */
export function ensurePeersBuilt(log: (line: string) => void): void {
  const missing = PEERS.filter((p) => !isBuilt(p));
  if (missing.length === 0) return;
  log(`peers: building ${missing.join(' and ')} on first use (scripts/build-peers.sh; cached afterwards under ~/.cache/serverless-rollouts)`);
  const res = spawnSync('bash', [BUILD_SCRIPT, ...missing], { stdio: 'inherit' });
  if (res.status !== 0) throw new Error(`scripts/build-peers.sh ${missing.join(' ')} failed (exit ${res.status ?? res.signal})`);
}

export interface PeerProcess {
  peer: Peer;
  version: string;
  daemon: Daemon;
  stop(): Promise<void>;
}

async function applyServerSide(cluster: TestCluster, file: string): Promise<void> {
  const res = await runKubectl(cluster.kubeconfigPath('admin'), ['apply', '--server-side', `--field-manager=${FIELD_MANAGER}`, '--force-conflicts', '-f', file]);
  if (res.code !== 0) throw new ControlPlaneError('kube-apiserver', `kubectl apply --server-side -f ${file} failed: ${res.stderr.trim()}`);
}

async function waitEstablished(cluster: TestCluster, crdsFile: string): Promise<void> {
  const names = parseAllDocuments(fs.readFileSync(crdsFile, 'utf8'))
    .map((d) => d.toJSON() as { kind?: string; metadata?: { name?: string } } | null)
    .filter((d) => d?.kind === 'CustomResourceDefinition')
    .map((d) => d?.metadata?.name as string);
  const api = cluster.admin.makeApiClient(ApiextensionsV1Api);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (const name of names) {
    for (;;) {
      const crd = await api.readCustomResourceDefinition({ name });
      if (crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (Date.now() > deadline) throw new ControlPlaneError('kube-apiserver', `CRD ${name} not Established after ${READY_TIMEOUT_MS} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

function versionOf(dir: string): string {
  return path.basename(dir);
}

/** Argo Rollouts' controller, all namespaces, no leader election; its metrics and healthz on 127.0.0.1. */
export async function startArgoRollouts(cluster: TestCluster, logDir: string): Promise<PeerProcess> {
  const dir = peerDir('argo-rollouts');
  await applyServerSide(cluster, path.join(dir, 'crds.yaml'));
  await waitEstablished(cluster, path.join(dir, 'crds.yaml'));
  const [metricsPort, healthzPort] = (await freePorts(2)) as [number, number];
  const daemon = Daemon.start('argo-rollouts', path.join(dir, 'bin/rollouts-controller'), [
    `--kubeconfig=${cluster.kubeconfigPath('admin')}`,
    '--leader-elect=false',
    `--metricsPort=${metricsPort}`,
    `--healthzPort=${healthzPort}`,
    '--loglevel=warn',
  ], logDir, { env: { POD_NAMESPACE: 'argo-rollouts' } });
  try {
    await waitUntilReady(httpProbe(`http://127.0.0.1:${healthzPort}/healthz`), { what: 'GET /healthz', timeoutMs: READY_TIMEOUT_MS, daemon });
  } catch (err) {
    await daemon.stop(STOP_GRACE_MS);
    throw err;
  }
  return { peer: 'argo-rollouts', version: versionOf(dir), daemon, stop: () => daemon.stop(STOP_GRACE_MS) };
}

/**
 * Kruise Rollout's manager. Its CRDs and both webhook configurations go in first: the manager looks
 * the configurations up by name at start, writes self-signed certificates into WEBHOOK_CERT_DIR and,
 * with WEBHOOK_HOST set, points every webhook at https://127.0.0.1:<port> with the CA bundle. The
 * rendered Service (namespace `system`, never used then) is left out.
 */
export async function startKruiseRollout(cluster: TestCluster, logDir: string): Promise<PeerProcess> {
  const dir = peerDir('kruise-rollout');
  await applyServerSide(cluster, path.join(dir, 'crds.yaml'));
  await waitEstablished(cluster, path.join(dir, 'crds.yaml'));
  const webhooks = path.join(logDir, 'kruise-rollout-webhooks.yaml');
  const docs = parseAllDocuments(fs.readFileSync(path.join(dir, 'webhooks.yaml'), 'utf8'))
    .map((d) => d.toJSON() as { kind?: string } | null)
    .filter((d) => d !== null && d.kind !== 'Service');
  fs.writeFileSync(webhooks, docs.map((d) => stringify(d)).join('---\n'));
  await applyServerSide(cluster, webhooks);
  const certDir = path.join(logDir, 'kruise-rollout-certs');
  fs.mkdirSync(certDir, { recursive: true });
  const [webhookPort, healthPort] = (await freePorts(2)) as [number, number];
  const daemon = Daemon.start('kruise-rollout', path.join(dir, 'bin/kruise-rollout'), [
    '--metrics-bind-address=0',
    `--health-probe-bind-address=127.0.0.1:${healthPort}`,
    // Its partition style on a native Deployment is done by its own Deployment controller, an alpha feature off by default.
    '--feature-gates=AdvancedDeployment=true',
  ], logDir, {
    env: {
      KUBECONFIG: cluster.kubeconfigPath('admin'),
      POD_NAMESPACE: 'kruise-rollout',
      WEBHOOK_HOST: '127.0.0.1',
      WEBHOOK_PORT: String(webhookPort),
      WEBHOOK_CERT_DIR: certDir,
    },
  });
  try {
    const ready = { timeoutMs: READY_TIMEOUT_MS, daemon };
    await waitUntilReady(httpProbe(`http://127.0.0.1:${healthPort}/readyz`), { ...ready, what: 'GET /readyz' });
    await waitUntilReady(webhooksPointAt(cluster, webhookPort), { ...ready, what: `webhooks pointing at 127.0.0.1:${webhookPort}` });
  } catch (err) {
    await daemon.stop(STOP_GRACE_MS);
    throw err;
  }
  return { peer: 'kruise-rollout', version: versionOf(dir), daemon, stop: () => daemon.stop(STOP_GRACE_MS) };
}

function webhooksPointAt(cluster: TestCluster, port: number): () => Promise<true | undefined> {
  const api = cluster.admin.makeApiClient(AdmissionregistrationV1Api);
  const prefix = `https://127.0.0.1:${port}/`;
  return async () => {
    const [mutating, validating] = await Promise.all([
      api.readMutatingWebhookConfiguration({ name: KRUISE_ROLLOUT_MUTATING }),
      api.readValidatingWebhookConfiguration({ name: KRUISE_ROLLOUT_VALIDATING }),
    ]);
    const hooks = [...(mutating.webhooks ?? []), ...(validating.webhooks ?? [])];
    const stale = hooks.filter((h) => !h.clientConfig.url?.startsWith(prefix) || !h.clientConfig.caBundle);
    if (hooks.length > 0 && stale.length === 0) return true;
    throw new Error(`${stale.length} of ${hooks.length} webhooks not yet at ${prefix}`);
  };
}
