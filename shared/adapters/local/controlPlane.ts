// A real, throwaway Kubernetes control plane on loopback: etcd, kube-apiserver, the workload
// controllers of kube-controller-manager, kube-scheduler, and kwok faking nodes and pod readiness.
// Used by integration tests, benchmarks and local mode's --sandbox. Binaries come from
// scripts/build-testplane.sh, which says how they are built.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { ConfigError } from '../../errors.ts';
import { locateAssets } from './controlplane/assets.ts';
import { auditFiles, readAuditEvents, writeAuditPolicy, type AuditEvent, type AuditPolicyRule } from './controlplane/audit.ts';
import {
  applyManifestFile,
  createFakeNodes,
  defaultNamespaceProbe,
  nodesReadyProbe,
  releaseNodeLeases,
  rolloutsAuthorizedProbe,
  serverVersion,
} from './controlplane/bootstrap.ts';
import {
  apiserverArgs,
  controllerManagerArgs,
  etcdArgs,
  etcdUrl,
  kwokArgs,
  schedulerArgs,
  NODE_IP,
  POD_CIDR,
  type ComponentFiles,
  type ComponentPorts,
} from './controlplane/componentArgs.ts';
import { reuseOrWriteCredentials, writeCredentials, writeKubeconfig, type ExtraTokenUser, type KubeconfigUser } from './controlplane/credentials.ts';
import { Daemon } from './controlplane/daemon.ts';
import { registerExitCleanup } from './controlplane/exitCleanup.ts';
import { startKruise } from './controlplane/kruise.ts';
import { writeKwokConfig, writeKwokExtraConfig } from './controlplane/kwokConfig.ts';
import { freePorts, isPortFree } from './controlplane/ports.ts';
import { stopLeftovers, writeProcessRecords } from './controlplane/processRecords.ts';
import { httpProbe, waitUntilReady } from './controlplane/readiness.ts';

export { NEVER_READY_LABEL, KWOK_NODE_ANNOTATION } from './controlplane/kwokConfig.ts';
export { KRUISE_NAMESPACE } from './controlplane/kruise.ts';
export { ROLLOUTS_USER, ROLLOUTS_GROUP } from './controlplane/credentials.ts';
export type { AuditEvent, AuditPolicyRule } from './controlplane/audit.ts';
export type { ExtraTokenUser } from './controlplane/credentials.ts';

export interface ControlPlaneOptions {
  /** Where etcd data, PKI, kubeconfigs and logs go; kept by stop(). Default: a temp dir stop() removes. */
  dataDir?: string;
  /**
   * With dataDir: start again on what an earlier start left there (local mode's sandbox). The
   * cluster's objects (etcd), its keys and tokens (so kubeconfigs keep working) and its ports (the
   * apiserver keeps its URL while the port is free) are reused; processes a killed run left behind
   * are stopped first, from the records of that run (processRecords.ts). Default false: dataDir must
   * not hold a control plane yet.
   */
  persistent?: boolean;
  /** How long after scheduling a pod becomes Ready (kwok stage delay). Default 500. */
  podReadyDelayMs?: number;
  /** Fake kwok nodes to create. Default 3 (DaemonSet tests use 6). */
  nodes?: number;
  /**
   * Also run the real OpenKruise controller manager (CloneSet, Advanced StatefulSet/DaemonSet), with
   * its CRDs and webhooks, built by scripts/build-testbed.sh. Adds 2–4 s to the start. The
   * product's user gets no Kruise permissions from this; tests grant what they need. Default false.
   */
  kruise?: boolean;
  /** Progress lines (which component is ready, after how long). */
  log?: (line: string) => void;
  /**
   * Record every request of the product's user (`serverless-rollouts`) in an apiserver audit log
   * (<dataDir>/audit.log, level Metadata, blocking), read back with auditEvents(). Default false.
   */
  auditLog?: boolean;
  /**
   * With auditLog: more audit policy rules, checked before the default one, e.g. every user's
   * requests in the namespaces a benchmark uses (level Metadata), or request bodies (level Request).
   * Default none: only the product's user is recorded.
   */
  auditRules?: AuditPolicyRule[];
  /**
   * More static-token users (name and groups), e.g. one bound only to a read-only group of
   * infra/k8s/rollouts-rbac.yaml. Their tokens are in `extraTokens`. Default none.
   */
  extraUsers?: readonly ExtraTokenUser[];
  /**
   * The kwok pods' IP range: POD_CIDR (default) or one /24 of it. Test files that serve pods on their
   * IPs (bench/testbed/dataplane/) each take their own /24, so two of them running at once (npm test
   * runs files two at a time) never hand out the same address: kwok starts every range at its first.
   */
  podCidr?: string;
}

export interface ControlPlane {
  /** gitVersion from the apiserver's /version. */
  version: string;
  /** True when a persistent control plane started on an earlier start's data. */
  restarted: boolean;
  /** https://127.0.0.1:<port> */
  server: string;
  dataDir: string;
  kubeconfigPath(user: 'admin' | 'rollouts'): string;
  /**
   * Where `kubectl exec` into any pod runs its command: on this host, as this user, in this
   * directory (kwok's ClusterExec). stdin never closes; a non-zero exit code only shows in the
   * error message.
   */
  execWorkDir: string;
  /** Whether kruise-manager runs (ControlPlaneOptions.kruise). */
  kruise: boolean;
  adminToken: string;
  rolloutsToken: string;
  /** Bearer tokens of `extraUsers`, by user name. */
  extraTokens: Readonly<Record<string, string>>;
  /**
   * Requests of the `serverless-rollouts` user (and whatever `auditRules` add) the apiserver has
   * completed so far, oldest first (stage ResponseComplete). Throws ConfigError unless started with
   * `auditLog: true`.
   */
  auditEvents(): AuditEvent[];
  /**
   * Stops one component (SIGTERM, then SIGKILL after the grace period), leaving the rest running:
   * an outage of, say, the controller manager for a soak. A no-op when it is not running.
   */
  stopComponent(name: RestartableComponent): Promise<void>;
  /** Starts a stopped component again with the same arguments and waits until it is healthy. */
  startComponent(name: RestartableComponent): Promise<void>;
  /** Kills every process it started (SIGTERM, then SIGKILL after a grace period) and waits for them. */
  stop(): Promise<void>;
}

/** The components that may be stopped and started while the rest of the control plane runs. */
export const RESTARTABLE_COMPONENTS = ['kube-controller-manager', 'kube-scheduler', 'kwok'] as const;
export type RestartableComponent = (typeof RESTARTABLE_COMPONENTS)[number];

const DEFAULT_POD_READY_DELAY_MS = 500;
const DEFAULT_NODES = 3;
/** Per readiness wait; generous because a cold 2-core CI machine loads ~350 MB of binaries. */
const READY_TIMEOUT_MS = 90_000;
const STOP_GRACE_MS = 5_000;

export async function startControlPlane(opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const log = opts.log ?? (() => undefined);
  const nodeCount = nonNegativeInteger('nodes', opts.nodes ?? DEFAULT_NODES);
  const podReadyDelayMs = nonNegativeInteger('podReadyDelayMs', opts.podReadyDelayMs ?? DEFAULT_POD_READY_DELAY_MS);
  const podCidr = podRange(opts.podCidr ?? POD_CIDR);
  const assets = locateAssets();
  const started = performance.now();
  const since = (): string => `${Math.round(performance.now() - started)} ms`;

  const ownsDataDir = opts.dataDir === undefined;
  const persistent = !ownsDataDir && opts.persistent === true;
  const dataDir = ownsDataDir ? fs.mkdtempSync(path.join(os.tmpdir(), 'rollouts-kube-')) : prepareGivenDataDir(opts.dataDir as string, persistent);
  const restarted = persistent && fs.existsSync(path.join(dataDir, 'etcd'));
  if (persistent) {
    const leftovers = await stopLeftovers(dataDir);
    if (leftovers.length > 0) log(`stopped ${leftovers.length} process(es) an earlier run left behind: ${leftovers.map((p) => p.pid).join(', ')}`);
  }
  const removeDataDir = (): void => {
    if (ownsDataDir) fs.rmSync(dataDir, { recursive: true, force: true, maxRetries: 3 });
  };
  // Registered before any daemon, so on a crash it runs after they are killed (cleanups run LIFO).
  const cancelDataDirCleanup = registerExitCleanup(removeDataDir);
  const logDir = path.join(dataDir, 'logs');
  fs.mkdirSync(logDir, { recursive: true });

  const daemons: Daemon[] = [];
  const stopDaemons = async (): Promise<void> => {
    // Clients first, then the apiserver, then its storage: nothing spends its grace period
    // retrying a dependency that is already gone.
    const tiers = [['kwok', 'kube-scheduler', 'kube-controller-manager', 'kruise-manager'], ['kube-apiserver'], ['etcd']];
    const stopStarted = performance.now();
    for (const tier of tiers) {
      // Only what was started: a sandbox without Kruise never had a kruise-manager to stop.
      const running = daemons.filter((daemon) => tier.includes(daemon.name));
      if (running.length === 0) continue;
      await Promise.all(running.map((daemon) => daemon.stop(STOP_GRACE_MS)));
      log(`stopped ${running.map((daemon) => daemon.name).join(', ')} (${Math.round(performance.now() - stopStarted)} ms)`);
    }
  };

  try {
    const ports = persistent ? await reusablePorts(dataDir, log) : await newPorts();
    if (persistent) fs.writeFileSync(path.join(dataDir, PORTS_FILE), `${JSON.stringify(ports)}\n`);
    const server = `https://127.0.0.1:${ports.apiserver}`;
    const credentials = persistent ? reuseOrWriteCredentials(path.join(dataDir, 'pki'), opts.extraUsers) : writeCredentials(path.join(dataDir, 'pki'), opts.extraUsers);
    const kubeconfigPath = (user: KubeconfigUser): string => path.join(dataDir, `${user}.kubeconfig`);
    writeKubeconfig(kubeconfigPath('admin'), server, 'admin', credentials.adminToken);
    writeKubeconfig(kubeconfigPath('rollouts'), server, 'rollouts', credentials.rolloutsToken);
    const files: ComponentFiles = {
      dataDir,
      etcdDataDir: path.join(dataDir, 'etcd'),
      certDir: path.join(dataDir, 'pki', 'apiserver'),
      tokenFile: credentials.tokenFile,
      serviceAccountPrivateKey: credentials.serviceAccountPrivateKey,
      serviceAccountPublicKey: credentials.serviceAccountPublicKey,
      adminKubeconfig: kubeconfigPath('admin'),
      kwokConfig: path.join(dataDir, 'kwok.yaml'),
      kwokExtraConfig: path.join(dataDir, 'kwok-inplace-and-exec.yaml'),
      ...(opts.auditLog ? { audit: auditFiles(dataDir) } : {}),
    };
    if (files.audit) writeAuditPolicy(files.audit.policyFile, opts.auditRules);
    writeKwokConfig(files.kwokConfig, { stagesDir: assets.stagesDir, podReadyDelayMs, cidr: podCidr, nodeIP: NODE_IP });
    const execWorkDir = path.join(dataDir, 'exec');
    writeKwokExtraConfig(files.kwokExtraConfig, execWorkDir);
    const spawnDaemon: Parameters<typeof startKruise>[0]['start'] = (name, binary, args, options) => {
      const daemon = Daemon.start(name, binary, args, logDir, options);
      daemons.push(daemon);
      if (persistent) writeProcessRecords(dataDir, daemons.map((d) => ({ name: d.name, pgid: d.pid })));
      return daemon;
    };
    const start = (name: Parameters<typeof assets.binary>[0], args: string[]): Daemon => spawnDaemon(name, assets.binary(name), args, {});
    const ready = { timeoutMs: READY_TIMEOUT_MS };

    const etcd = start('etcd', etcdArgs(ports, files));
    await waitUntilReady(httpProbe(`${etcdUrl(ports)}/health`, undefined, (body) => body.includes('"health":"true"')), {
      ...ready, what: 'GET /health', daemon: etcd,
    });
    log(`etcd ready (${since()})`);

    const apiserver = start('kube-apiserver', apiserverArgs(ports, files));
    await waitUntilReady(httpProbe(`${server}/readyz`, credentials.adminToken), { ...ready, what: 'GET /readyz', daemon: apiserver });
    log(`kube-apiserver ready at ${server} (${since()})`);

    const admin = new KubeConfig();
    admin.loadFromFile(kubeconfigPath('admin'));
    if (restarted) await releaseNodeLeases(admin, nodeCount);

    const restartable: Record<RestartableComponent, { args: string[]; probe: ReturnType<typeof httpProbe> | null }> = {
      'kube-controller-manager': { args: controllerManagerArgs(ports, files), probe: httpProbe(`https://127.0.0.1:${ports.controllerManager}/healthz`) },
      'kube-scheduler': { args: schedulerArgs(ports, files), probe: httpProbe(`https://127.0.0.1:${ports.scheduler}/readyz`) },
      kwok: { args: kwokArgs(ports, files), probe: null },
    };
    const kcm = start('kube-controller-manager', restartable['kube-controller-manager'].args);
    const sched = start('kube-scheduler', restartable['kube-scheduler'].args);
    const kwok = start('kwok', restartable.kwok.args);
    const rollouts = new KubeConfig();
    rollouts.loadFromFile(kubeconfigPath('rollouts'));

    // Each wait names the component that would be to blame, so its log tail lands in the error.
    await Promise.all([
      waitUntilReady(defaultNamespaceProbe(admin), { ...ready, what: 'the default namespace', daemon: apiserver }),
      applyManifestFile(admin, assets.rbacManifestPath).then(() =>
        waitUntilReady(rolloutsAuthorizedProbe(rollouts), { ...ready, what: 'RBAC for the rollouts user', daemon: apiserver }),
      ),
      waitUntilReady(httpProbe(`https://127.0.0.1:${ports.controllerManager}/healthz`), { ...ready, what: 'GET /healthz', daemon: kcm })
        .then(() => log(`kube-controller-manager ready (${since()})`)),
      waitUntilReady(httpProbe(`https://127.0.0.1:${ports.scheduler}/readyz`), { ...ready, what: 'GET /readyz', daemon: sched })
        .then(() => log(`kube-scheduler ready (${since()})`)),
      createFakeNodes(admin, nodeCount).then((names) =>
        waitUntilReady(nodesReadyProbe(admin, names), { ...ready, what: `${names.length} nodes Ready`, daemon: kwok }),
      ).then(() => log(`kwok: ${nodeCount} nodes Ready (${since()})`)),
    ]);
    if (opts.kruise) {
      await startKruise({ admin, adminKubeconfig: files.adminKubeconfig, dataDir, start: spawnDaemon, timeoutMs: READY_TIMEOUT_MS });
      log(`kruise-manager ready (${since()})`);
    }
    const version = await serverVersion(admin);
    log(`control plane ${version} ready in ${since()}; data in ${dataDir}${restarted ? ' (started again on it)' : ''}`);

    let stopping: Promise<void> | undefined;
    return {
      version,
      restarted,
      server,
      dataDir,
      kubeconfigPath,
      execWorkDir,
      kruise: opts.kruise ?? false,
      adminToken: credentials.adminToken,
      rolloutsToken: credentials.rolloutsToken,
      extraTokens: credentials.extraTokens,
      auditEvents() {
        if (!files.audit) throw new ConfigError('the audit log is off: start the control plane with auditLog: true');
        return readAuditEvents(files.audit.logFile);
      },
      async stopComponent(name) {
        await Promise.all(daemons.filter((d) => d.name === name && d.exit === undefined).map((d) => d.stop(STOP_GRACE_MS)));
        log(`stopped ${name}`);
      },
      async startComponent(name) {
        if (stopping) throw new ConfigError(`the control plane is stopping; ${name} cannot start`);
        if (daemons.some((d) => d.name === name && d.exit === undefined)) return;
        const { args, probe } = restartable[name];
        const daemon = start(name, args);
        if (probe) await waitUntilReady(probe, { ...ready, what: 'health', daemon });
        log(`started ${name} again`);
      },
      stop() {
        stopping ??= stopDaemons().then(() => {
          removeDataDir();
          cancelDataDirCleanup();
        });
        return stopping;
      },
    };
  } catch (error) {
    await stopDaemons();
    removeDataDir();
    cancelDataDirCleanup();
    throw error;
  }
}

/** POD_CIDR itself or one /24 of it: the only addresses the test bed makes local to this host. */
function podRange(cidr: string): string {
  const prefix = POD_CIDR.split('.').slice(0, 2).join('.');
  const third = new RegExp(`^${prefix.replace(/\./g, '\\.')}\\.(\\d{1,3})\\.0/24$`).exec(cidr)?.[1];
  if (cidr === POD_CIDR || (third !== undefined && Number(third) <= 255)) return cidr;
  throw new ConfigError(`podCidr must be ${POD_CIDR} or a /24 of it (${prefix}.<0-255>.0/24), got ${cidr}`);
}

function nonNegativeInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0) throw new ConfigError(`${name} must be a non-negative integer, got ${value}`);
  return value;
}

/** A caller's dataDir is created if needed; unless persistent it must not hold an earlier cluster (ports and keys change per start). */
function prepareGivenDataDir(dataDir: string, persistent: boolean): string {
  const absolute = path.resolve(dataDir);
  if (!persistent && fs.existsSync(path.join(absolute, 'etcd'))) {
    throw new ConfigError(`dataDir ${absolute} already holds a control plane's etcd data; give an empty or new directory (or start it persistent)`);
  }
  fs.mkdirSync(absolute, { recursive: true });
  return absolute;
}

const PORTS_FILE = 'ports.json';

async function newPorts(): Promise<ComponentPorts> {
  const [etcdClient, etcdPeer, apiserver, controllerManager, scheduler, kwok] = (await freePorts(6)) as [number, number, number, number, number, number];
  return { etcdClient, etcdPeer, apiserver, controllerManager, scheduler, kwok };
}

/**
 * The ports of the previous start, each one that is still free, so the apiserver's URL (in every
 * kubeconfig handed out) survives a restart; a port taken meanwhile is replaced by a new one.
 */
async function reusablePorts(dataDir: string, log: (line: string) => void): Promise<ComponentPorts> {
  const fresh = await newPorts();
  let previous: Partial<ComponentPorts>;
  try {
    previous = JSON.parse(fs.readFileSync(path.join(dataDir, PORTS_FILE), 'utf8')) as Partial<ComponentPorts>;
  } catch {
    return fresh;
  }
  const out = { ...fresh };
  for (const name of Object.keys(fresh) as (keyof ComponentPorts)[]) {
    const port = previous[name];
    if (!Number.isInteger(port)) continue;
    if (await isPortFree(port as number)) out[name] = port as number;
    else if (name === 'apiserver') log(`port ${port} of the kube-apiserver is taken now; it moves to ${fresh.apiserver} (kubeconfigs are rewritten)`);
  }
  // Two components must not end up on one port (a kept one equal to a fresh one).
  return new Set(Object.values(out)).size === Object.keys(out).length ? out : fresh;
}
