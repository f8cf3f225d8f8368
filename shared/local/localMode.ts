// Local mode (`rollouts serve`, `npm start`): the deployed system's code in one process, with local
// adapters in place of the AWS services (docs/architecture.md, "Data flow"):
//   DynamoDB            → dynalite, persisted under the data directory (shared/adapters/dynamodb/embedded.ts)
//   SQS FIFO + reconcile λ → LocalKeyedQueue whose worker calls reconcile (same per-key semantics)
//   Scheduler + sweep λ → a 10 s timer running the same sweepDue (wake-ups due, and the resync:
//                         every managed rollout at least every 30 s, configurable)
//   delayed messages    → the queue's own timers (a timed pause ends within a second of its time)
//   watch-proxy λ + bus → the same runWatchProxy, its sink enqueuing straight into the queue
//   Function URL + API λ → node:http on 127.0.0.1 calling the same handleApiRequest
//   EKS                 → the cluster of the user's kubeconfig, or the sandbox control plane, or
//                         (--clusters N) N sandbox control planes registered as clusters c1..cN
import { chmod, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { localDynamoClient, startEmbeddedDynamo } from '../adapters/dynamodb/embedded.ts';
import { ensureTable } from '../adapters/dynamodb/table.ts';
import { DynamoStateStore } from '../adapters/dynamodb/stateStore.ts';
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeconfigClusterProvider } from '../adapters/kubernetes/kubeconfigProvider.ts';
import { RegisteredClusterProvider } from '../adapters/kubernetes/clusterProvider.ts';
import type { Impersonation } from '../adapters/kubernetes/transport.ts';
import { declaredResources } from '../adapters/kubernetes/kinds.ts';
import { TRAFFIC_RESOURCES } from '../traffic/registry.ts';
import { LocalKeyedQueue } from '../adapters/local/keyedQueue.ts';
import type { ApiDeps } from '../api/types.ts';
import { ConfigError, RolloutsError } from '../errors.ts';
import { Meter } from '../meter.ts';
import type { Clock, ClusterProvider, ClusterRegistration, StateStore, WatchClusters } from '../ports.ts';
import type { ReconcileDeps } from '../reconcile/deps.ts';
import { AdapterCallRunner } from '../adapters/checks/runner.ts';
import { isFleetQueueKey, queueKeyString, type QueueKey } from '../fleet/key.ts';
import { watchTargets } from '../watch/mapping.ts';
import { CatalogRefreshRequests, runWatchProxy } from '../watch/watchProxy.ts';
import { SUPPORTED_KINDS, WORKLOAD_DRIVERS } from '../workloads/registry.ts';
import { printingPublisher, printingWatchLog, reconcileWorker, type LogLine } from './adapters.ts';
import { queueWatchSink } from '../watch/queueSink.ts';
import { LOCAL_CLUSTER, dataDirPaths, lockDataDir, type DataDirPaths } from './dataDir.ts';
import { startLocalApiServer } from './httpServer.ts';
import { chooseIdentity } from './identity.ts';
import { probeKubeconfig } from './kubeTarget.ts';
import { startSandbox, type Sandbox } from './sandbox.ts';
import { startSandboxFleet } from './sandboxFleet.ts';
import { LOCAL_RESYNC_PERIOD_MS, LOCAL_SWEEP_INTERVAL_MS, SweepTimer } from './sweepTimer.ts';
import { SYSTEM_CLOCK } from '../clock.ts';

const TABLE_NAME = 'rollouts';
const MAX_BODY_BYTES = 256 * 1024;
/**
 * Passes of different rollouts in flight at once. Deployed, each rollout is its own SQS message
 * group and Lambda runs them side by side; here a pass waiting out a hung apiserver request (10 s,
 * retried once for a read) or DynamoDB's retries (5 s timeouts) holds a slot: the soak's faults
 * keep about 2.5 slots busy on average, so 4 slots left 24 rollouts waiting behind one another for
 * tens of seconds. 16 on 2 cores starved the control plane (a restart of local mode took 31 s).
 */
const LOCAL_RECONCILE_CONCURRENCY = 8;
/** The reconcile Lambda's drivers (shared/app/lambdaDeps.ts); start-up checks they cover every kind the API accepts. */
export const LOCAL_DRIVERS = WORKLOAD_DRIVERS;

/** A part of local mode failed to stop (each part is still attempted). */
export class LocalModeError extends RolloutsError {}

export interface LocalModeOptions {
  dataDir: string;
  /** auto: the kubeconfig's cluster when it answers, else the sandbox. */
  cluster: 'auto' | 'sandbox' | 'kubeconfig';
  /**
   * More than 1: that many sandbox control planes, registered as clusters c1..cN with fleet labels
   * (shared/local/sandboxFleet.ts), whatever `cluster` says (a kubeconfig has one cluster). Default 1.
   */
  clusters?: number;
  /**
   * Start over: the sandbox cluster and the stored rollouts of the chosen cluster are deleted first.
   * Default false: everything is kept, and a release a stop (or a crash) interrupted goes on.
   */
  fresh?: boolean;
  podReadyDelayMs?: number;
  /** API port on 127.0.0.1; 0 (default) picks a free one (the URL goes to `<data dir>/endpoint`). */
  port?: number;
  env?: Record<string, string | undefined>;
  log?: LogLine;
  /** Also print one line per reconcile pass. */
  verbose?: boolean;
  /** Every managed rollout is reconciled at least this often (default 30 s). */
  resyncPeriodMs?: number;
  /** Default: 10 s, or the resync period when that is shorter. */
  sweepIntervalMs?: number;
  /**
   * false: no watches at all, so every watch event is "missed" and releases move only through the
   * resync, the requeues and the wake-ups. For tests of that backstop (`serve --no-watch`).
   */
  watch?: boolean;
  /**
   * A DynamoDB endpoint to keep the rollouts in (DynamoDB Local, LocalStack, a test's dynalite behind
   * a fault proxy) instead of the embedded one; the table is created there if missing.
   */
  dynamodbEndpoint?: string;
  clock?: Clock;
}

export interface LocalFleetCluster {
  name: string;
  server: string;
  version: string;
  labels: Record<string, string>;
  timeZone: string;
}

export type LocalCluster =
  | { kind: 'sandbox'; server: string; version: string; demo: Sandbox['demo']; why: string | null; restarted: boolean }
  | { kind: 'sandboxes'; clusters: LocalFleetCluster[]; demo: Sandbox['demo']; restarted: boolean }
  | { kind: 'kubeconfig'; server: string; version: string; context: string; source: string };

export interface LocalMode {
  endpoint: string;
  paths: DataDirPaths;
  cluster: LocalCluster;
  principal: string;
  resyncPeriodMs: number;
  sweepIntervalMs: number;
  /** Kinds of the watched resources, or null with the watches off. */
  watched: string[] | null;
  /** Stops everything in reverse order of start and removes `<data dir>/endpoint`. */
  stop(): Promise<void>;
}

export async function startLocalMode(opts: LocalModeOptions): Promise<LocalMode> {
  const log = opts.log ?? (() => {});
  const clock = opts.clock ?? SYSTEM_CLOCK;
  const paths = dataDirPaths(opts.dataDir);
  const cleanups: { what: string; run: () => Promise<void> }[] = [];
  const stopAll = async (): Promise<void> => {
    const failures: string[] = [];
    for (const { what, run } of cleanups.splice(0).reverse()) {
      try {
        await run();
      } catch (err) {
        failures.push(`${what}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    if (failures.length > 0) throw new LocalModeError(`local mode did not stop cleanly: ${failures.join('; ')}`);
  };

  try {
    cleanups.push({ what: 'data directory lock', run: await lockDataDir(paths) });
    const target = await chooseCluster(opts, paths, log);
    if (target.stop) cleanups.push({ what: target.cluster.kind === 'sandboxes' ? 'sandbox control planes' : 'sandbox control plane', run: target.stop });

    const dynamo = await openDynamo(opts, target.dynamodbPath);
    cleanups.push({ what: 'DynamoDB', run: () => dynamo.stop() });
    const meter = new Meter();
    const store = new DynamoStateStore({ client: dynamo.client, tableName: TABLE_NAME, meter, clock });
    // Registered at every start: a plane restarted on another port has moved.
    for (const reg of target.registrations) await store.putCluster(reg);
    const engine = target.connect({ store, meter, clock });
    const clusters = engine.provider;
    const missing = SUPPORTED_KINDS.filter((k) => !LOCAL_DRIVERS[k]);
    if (missing.length > 0) throw new ConfigError(`no driver for supported kinds: ${missing.join(', ')}`);
    const calls = new AdapterCallRunner({ clock, kubeConfig: engine.kubeConfig });
    const reconcileDeps: ReconcileDeps = { store, clusters, drivers: LOCAL_DRIVERS, events: printingPublisher(log), clock, meter, calls };

    const queue = new LocalKeyedQueue(
      reconcileWorker(reconcileDeps, opts.verbose ? { onResult: (key, reason, r) => log(`reconcile ${key} (${reason}): ${r.outcome} ${r.phase ?? ''}${r.requeueSeconds ? ` (again in ${r.requeueSeconds}s)` : ''}`) } : {}),
      {
        concurrency: LOCAL_RECONCILE_CONCURRENCY,
        onError: (key, err) => log(`reconcile ${keyLabel(key)} failed, retrying: ${err instanceof Error ? err.message : String(err)}`),
        ...(opts.verbose ? { onScheduled: (key: QueueKey, at: Date, reason: string) => log(`next pass of ${keyLabel(key)} at ${at.toISOString()} (${reason})`) } : {}),
      },
    );
    cleanups.push({ what: 'queue', run: () => queue.stop() });
    // A member's transition enqueues its fleet, a fleet pass its members: through this same queue.
    reconcileDeps.queue = queue;

    const watching = opts.watch ?? true;
    const catalogRefreshes = new CatalogRefreshRequests();
    const principal = localPrincipal(opts.env ?? process.env);
    const api: ApiDeps = {
      store, queue, clock, clusters,
      supportedKinds: SUPPORTED_KINDS,
      maxBodyBytes: MAX_BODY_BYTES,
      // Several clusters are reached by registration: one deregistered takes no rollout until registered again.
      requireRegisteredCluster: target.registrations.length > 0,
      partitionRefusal: target.partitionRefusal ?? null,
      // Only the names local mode reaches: with one cluster every name would reach it.
      clusterNames: target.names,
      onError: (err, req) => log(`api ${req.method} ${req.path} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`),
      // The in-process watch catalogue learns of a new or changed rollout at once, not at its next refresh.
      onSpecStored: () => catalogRefreshes.request(),
    };
    const server = await startLocalApiServer({ deps: api, principal, port: opts.port ?? 0 });
    cleanups.push({ what: 'HTTP API', run: () => server.stop() });

    if (watching) {
      const watchStop = new AbortController();
      const proxy = runWatchProxy({
        store,
        clusters: engine.watch,
        sink: queueWatchSink(queue),
        signal: watchStop.signal,
        clock,
        log: printingWatchLog(log),
        drivers: LOCAL_DRIVERS,
        // Snappier than the Lambda's default: one small Query every 5 s (and after each apply). The
        // coalescing window is the deployed one (DEFAULT_WINDOW_MS, 50 ms after the leading edge).
        refreshMs: 5000,
        refreshes: catalogRefreshes,
      }).catch((err: unknown) => log(`watch stopped with an error: ${err instanceof Error ? err.message : String(err)}`));
      cleanups.push({ what: 'watches', run: async () => { watchStop.abort(); await proxy; } });
    } else {
      log('watches are off (--no-watch): releases move through the resync, requeues and wake-ups only');
    }

    const resyncPeriodMs = opts.resyncPeriodMs ?? LOCAL_RESYNC_PERIOD_MS;
    const sweepIntervalMs = opts.sweepIntervalMs ?? Math.min(LOCAL_SWEEP_INTERVAL_MS, resyncPeriodMs);
    const sweep = new SweepTimer({
      deps: { store, queue, clock, resyncPeriodMs },
      intervalMs: sweepIntervalMs,
      onError: (err) => log(`sweep failed: ${err instanceof Error ? err.message : String(err)}`),
    });
    sweep.start();
    cleanups.push({ what: 'sweep timer', run: () => sweep.stop() });

    await writeFile(paths.kubeconfig, target.userKubeconfig, { mode: 0o600 });
    await chmod(paths.kubeconfig, 0o600);
    // The names the API serves, for the CLI's --cluster default (shared/cli/target.ts): before the
    // endpoint, so a CLI that finds the endpoint finds them too; removed after it.
    await writeFile(`${paths.clusters}.tmp`, `${target.names.join('\n')}\n`);
    await rename(`${paths.clusters}.tmp`, paths.clusters);
    cleanups.push({ what: 'clusters file', run: () => rm(paths.clusters, { force: true }) });
    // Written last: its presence tells the CLI that everything behind the URL is up. Written whole
    // or not at all (a rename), so a reader never finds it there but empty.
    await writeFile(`${paths.endpoint}.tmp`, `${server.url}\n`);
    await rename(`${paths.endpoint}.tmp`, paths.endpoint);
    cleanups.push({ what: 'endpoint file', run: () => rm(paths.endpoint, { force: true }) });

    let stopping: Promise<void> | undefined;
    return {
      endpoint: server.url, paths, cluster: target.cluster, principal, resyncPeriodMs, sweepIntervalMs,
      watched: watching ? watchedKinds() : null,
      stop: () => (stopping ??= stopAll()),
    };
  } catch (err) {
    await stopAll().catch((stopErr: unknown) => log(String(stopErr)));
    throw err;
  }
}

/** The embedded DynamoDB under the data directory, or the client of a given endpoint. */
async function openDynamo(opts: LocalModeOptions, dataPath: string): Promise<{ client: ReturnType<typeof localDynamoClient>; stop(): Promise<void> }> {
  if (opts.dynamodbEndpoint !== undefined) {
    const client = localDynamoClient(opts.dynamodbEndpoint);
    await ensureTable(client, TABLE_NAME);
    return { client, stop: async () => client.destroy() };
  }
  if (opts.fresh) await rm(dataPath, { recursive: true, force: true });
  return startEmbeddedDynamo({ path: dataPath, tableName: TABLE_NAME });
}

/** How the engine reaches the clusters: reconcile and API, watches, exec hooks. */
interface ClusterAccess {
  provider: ClusterProvider;
  watch: WatchClusters;
  kubeConfig: (cluster: string) => Promise<KubeConfig>;
}

interface ClusterTarget {
  cluster: LocalCluster;
  /** Stops the sandbox control planes local mode started (null: the user's cluster). */
  stop: (() => Promise<void>) | null;
  /** The cluster names the API serves. */
  names: string[];
  /** Stored at start (the sandbox clusters'); the fleets pick clusters by their labels. */
  registrations: ClusterRegistration[];
  dynamodbPath: string;
  /** What the engine uses: the sandbox's least-privilege user, or the user's own kubeconfig. */
  connect(deps: { store: StateStore; meter: Meter; clock: Clock }): ClusterAccess;
  /** Written to `<data dir>/kubeconfig` for kubectl. */
  userKubeconfig: string;
  /** Why a Partition Rollout cannot be applied here (identity.ts), or null. */
  partitionRefusal?: string | null;
}

// The kinds' resources, and the traffic routers' and Services' (shared/traffic/registry.ts).
const RESOURCES = [...declaredResources(Object.values(LOCAL_DRIVERS)), ...TRAFFIC_RESOURCES];

/** Every cluster name reaches the one cluster of a kubeconfig (the sandbox's or the user's). */
function oneCluster(kubeconfig: { path: string } | { kubeConfig: KubeConfig; impersonate?: Impersonation }): ClusterTarget['connect'] {
  return ({ meter, clock }) => {
    const provider = new KubeconfigClusterProvider({ ...kubeconfig, meter, clock, resources: RESOURCES });
    return {
      provider,
      watch: { source: () => Promise.resolve(provider.kubeClient()) },
      kubeConfig: async () => provider.kubeConfig,
    };
  };
}

async function chooseCluster(opts: LocalModeOptions, paths: DataDirPaths, log: LogLine): Promise<ClusterTarget> {
  const count = opts.clusters ?? 1;
  if (count > 1) {
    if (opts.cluster === 'kubeconfig') throw new ConfigError(`--clusters ${count} starts ${count} sandbox clusters; a kubeconfig's cluster is one cluster`);
    return sandboxClusters(opts, paths, count, log);
  }
  let why: string | null = null;
  if (opts.cluster !== 'sandbox') {
    const probe = await probeKubeconfig(opts.env ?? process.env);
    if (probe.usable) {
      const identity = await chooseIdentity(probe.kubeConfig);
      log(identity.kind === 'product'
        ? `acting as user ${identity.impersonate.user}, group ${identity.impersonate.groups.join(', ')} (impersonated: the role of infra/k8s/rollouts-rbac.yaml)`
        : `acting as the kubeconfig's own user${identity.partitionRefusal === null ? '' : '; Partition Rollouts are refused: it may not impersonate serverless-rollouts'}`);
      return {
        cluster: { kind: 'kubeconfig', server: probe.server, version: probe.version, context: probe.context, source: probe.source },
        stop: null,
        names: [LOCAL_CLUSTER],
        registrations: [],
        dynamodbPath: paths.dynamodb,
        connect: oneCluster({ kubeConfig: probe.kubeConfig, ...(identity.kind === 'product' ? { impersonate: identity.impersonate } : {}) }),
        userKubeconfig: probe.kubeConfig.exportConfig(),
        partitionRefusal: identity.kind === 'own' ? identity.partitionRefusal : null,
      };
    }
    if (opts.cluster === 'kubeconfig') throw new ConfigError(`no usable cluster: ${probe.reason}`);
    why = probe.reason;
    log(`starting the sandbox: ${why}`);
  }
  // The sandbox and the rollouts stored for it persist together, and go together with --fresh.
  if (opts.fresh) await rm(paths.sandbox, { recursive: true, force: true });
  const sandbox = await startSandbox({ dir: paths.sandboxKube, ...(opts.podReadyDelayMs === undefined ? {} : { podReadyDelayMs: opts.podReadyDelayMs }), log: (line) => log(`sandbox: ${line}`) });
  return {
    cluster: { kind: 'sandbox', server: sandbox.plane.server, version: sandbox.plane.version, demo: sandbox.demo, why, restarted: sandbox.restarted },
    stop: () => sandbox.stop(),
    names: [LOCAL_CLUSTER],
    registrations: [],
    dynamodbPath: paths.sandboxDynamodb,
    connect: oneCluster({ path: sandbox.plane.kubeconfigPath('rollouts') }),
    userKubeconfig: await readFile(sandbox.plane.kubeconfigPath('admin'), 'utf8'),
  };
}

/**
 * `--clusters N`: N sandbox planes, registered in the table like any cluster (labels, time zone,
 * endpoint) and reached the deployed way, by registration (RegisteredClusterProvider), each as the
 * product's least-privilege user of that plane. Their rollouts and fleets live in their own
 * DynamoDB data beside them, and go with them on --fresh.
 */
async function sandboxClusters(opts: LocalModeOptions, paths: DataDirPaths, count: number, log: LogLine): Promise<ClusterTarget> {
  const fleet = await startSandboxFleet({
    dir: paths.fleet, count, fresh: opts.fresh ?? false, log: (line) => log(`sandbox ${line}`),
    ...(opts.podReadyDelayMs === undefined ? {} : { podReadyDelayMs: opts.podReadyDelayMs }),
  });
  const first = fleet.members[0]!.sandbox;
  return {
    cluster: {
      kind: 'sandboxes',
      clusters: fleet.members.map((m) => ({ name: m.placement.name, server: m.sandbox.plane.server, version: m.sandbox.plane.version, labels: m.placement.labels, timeZone: m.placement.timeZone })),
      demo: first.demo,
      restarted: fleet.restarted,
    },
    stop: () => fleet.stop(),
    names: fleet.members.map((m) => m.placement.name),
    registrations: fleet.members.map((m) => m.registration),
    dynamodbPath: paths.fleetDynamodb,
    connect: ({ store, meter, clock }) => {
      const provider = new RegisteredClusterProvider({ registry: store, resources: RESOURCES, staticTokens: fleet.tokens, clock, meter, cache: new Map() });
      return {
        provider,
        watch: { source: (cluster) => provider.kubeClient(cluster), invalidate: (cluster) => provider.invalidate(cluster) },
        kubeConfig: (cluster) => provider.kubeConfig(cluster),
      };
    },
    userKubeconfig: fleet.adminKubeconfig(),
  };
}

/** How local mode's lines name a key: "namespace/name" for a rollout (one cluster), "F#name" for a fleet. */
function keyLabel(key: QueueKey): string {
  return isFleetQueueKey(key) ? queueKeyString(key) : `${key.namespace}/${key.name}`;
}

/** Who local commands are recorded as: the OS user (there is no IAM principal locally). */
export function localPrincipal(env: Record<string, string | undefined>): string {
  try {
    return os.userInfo().username;
  } catch {
    return env.USER ?? env.USERNAME ?? 'local-user';
  }
}

/**
 * The kinds the watches cover, each once, as the banner names them: Kruise's StatefulSet and
 * DaemonSet share their kind with the native ones, so they go by Kruise's own names (Advanced …).
 */
export function watchedKinds(): string[] {
  const names = watchTargets(LOCAL_DRIVERS).map((t) => (t.apiVersion.startsWith('apps.kruise.io/') && (t.kind === 'StatefulSet' || t.kind === 'DaemonSet') ? `Advanced ${t.kind}` : t.kind));
  return [...new Set(names)];
}
