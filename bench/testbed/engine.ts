// The engine on real components, for integration tests: the real local Kubernetes control plane,
// embedded DynamoDB (dynalite), the DynamoDB state store, the Kubernetes adapter with the
// least-privilege token, the Deployment and StatefulSet drivers and `reconcile`. Scenarios only ever
// move a release by calling reconcile (never the planner directly) and assert on the cluster's real objects.
import { AppsV1Api, CoreV1Api, type V1ControllerRevision, type V1Pod, type V1ReplicaSet, type V1StatefulSet, type V1StatefulSetSpec } from '@kubernetes/client-node';
import { DynamoStateStore } from '../../shared/adapters/dynamodb/stateStore.ts';
import { KubeClusterClient } from '../../shared/adapters/kubernetes/clusterClient.ts';
import { WORKLOAD_RESOURCES } from '../../shared/app/kubeResources.ts';
import { Meter } from '../../shared/meter.ts';
import type { ReconcileDeps } from '../../shared/reconcile/deps.ts';
import type { ReconcileResult } from '../../shared/reconcile/reconcile.ts';
import type { CallRunner } from '../../shared/ports.ts';
import { reconcile } from '../../shared/reconcile/reconcile.ts';
import { parseRollout, ROLLOUTS_API_VERSION } from '../../shared/rollout/spec.ts';
import type { CommandBody, DeploymentStrategy, ReleaseState, RolloutKey, WorkloadKind } from '../../shared/rollout/types.ts';
import { WORKLOAD_DRIVERS } from '../../shared/workloads/registry.ts';
import { startDynalite } from './dynalite.ts';
import { CollectingPublisher } from './fakes/collectingPublisher.ts';
import { InvariantWatcher, type WatchOptions } from './invariants.ts';
import { SetWatcher } from './soak/setWatcher.ts';
import type { AuditPolicyRule, ControlPlaneOptions } from '../../shared/adapters/local/controlPlane.ts';
import { mergePatch, startTestCluster, type DeploymentOptions, type TestCluster } from './kube.ts';
import { TestClock } from './testClock.ts';
import { WorkloadHandle, type WorkloadOptions, type WorkloadSnapshot } from './workloads.ts';
import { WORKLOAD_TYPES } from '../../shared/rollout/workloadKinds.ts';

export const CLUSTER = 'test';
/** The control plane's default number of fake nodes (shared/adapters/local/controlPlane.ts). */
const DEFAULT_NODES = 3;

export interface RolloutOptions {
  replicas?: number;
  steps?: unknown[];
  strategy?: DeploymentOptions['strategy'];
  /** Extra fields under spec (progressDeadlineSeconds, rollbackOnFailure, releaseWindows, startAt…). */
  spec?: Record<string, unknown>;
  failureThreshold?: number | string;
  /** Use exactly this namespace (created here) instead of `<prefix>-<random>`: audit rules name namespaces. */
  namespace?: string;
  /** spec.deploymentStrategy of the Rollout (default: none, i.e. MinReadySeconds). */
  deploymentStrategy?: DeploymentStrategy;
  /** The Deployment's own minReadySeconds (default unset). */
  minReadySeconds?: number;
}

export class Engine {
  readonly meter = new Meter();
  readonly clock = new TestClock();
  readonly events = new CollectingPublisher();
  readonly store: DynamoStateStore;
  readonly client: KubeClusterClient;
  /** Makes hook and gate calls for every reconcile of this engine when set (shared/adapters/checks/runner.ts). */
  calls: CallRunner | undefined;
  private commandSeq = 0;

  private constructor(readonly cluster: TestCluster, readonly dynamo: Awaited<ReturnType<typeof startDynalite>>, readonly nodes: number) {
    this.store = new DynamoStateStore({ client: dynamo.client, tableName: dynamo.tableName, meter: this.meter, clock: this.clock });
    this.client = new KubeClusterClient(cluster.rollouts, { meter: this.meter, resources: WORKLOAD_RESOURCES });
  }

  /**
   * `auditLog`: record the product user's requests at the apiserver (cluster.auditEvents());
   * `auditRules`: record more (ControlPlaneOptions.auditRules); `nodes`: fake nodes (default 3);
   * `captureCapacity`: tally the capacity units dynalite reports (engine.dynamo.capacity());
   * `extraUsers`: static-token users beside the product's (a data plane's, bench/testbed/dataplane/);
   * `podCidr`: the pods' IP range (ControlPlaneOptions.podCidr).
   */
  static async start(opts: { podReadyDelayMs?: number; auditLog?: boolean; auditRules?: AuditPolicyRule[]; nodes?: number; captureCapacity?: boolean; kruise?: boolean; extraUsers?: ControlPlaneOptions['extraUsers']; podCidr?: string } = {}): Promise<Engine> {
    const cluster = await startTestCluster({
      ...(opts.extraUsers ? { extraUsers: opts.extraUsers } : {}),
      ...(opts.podCidr ? { podCidr: opts.podCidr } : {}),
      podReadyDelayMs: opts.podReadyDelayMs ?? 300,
      auditLog: opts.auditLog ?? false,
      kruise: opts.kruise ?? false,
      ...(opts.auditRules ? { auditRules: opts.auditRules } : {}),
      ...(opts.nodes === undefined ? {} : { nodes: opts.nodes }),
    });
    try {
      return new Engine(cluster, await startDynalite(opts.captureCapacity ? { captureCapacity: true } : {}), opts.nodes ?? DEFAULT_NODES);
    } catch (err) {
      await cluster.stop();
      throw err;
    }
  }

  async stop(): Promise<void> {
    await Promise.allSettled([this.dynamo.stop(), this.cluster.stop()]);
  }

  deps(extra: Partial<ReconcileDeps> = {}): ReconcileDeps {
    return {
      store: this.store,
      clusters: { client: async () => this.client },
      drivers: WORKLOAD_DRIVERS,
      events: this.events,
      clock: this.clock,
      meter: this.meter,
      ...(this.calls ? { calls: this.calls } : {}),
      ...extra,
    };
  }

  /** A namespace with a ready Deployment `web` and its Rollout applied (SPEC stored, not reconciled yet). */
  async scenario(prefix: string, opts: RolloutOptions = {}): Promise<Scenario> {
    const namespace = opts.namespace ?? (await this.cluster.createNamespace(prefix));
    if (opts.namespace) await this.cluster.admin.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
    const replicas = opts.replicas ?? 10;
    const deployment: DeploymentOptions = { replicas, image: 'registry.invalid/web:v1' };
    if (opts.strategy) deployment.strategy = opts.strategy;
    if (opts.minReadySeconds !== undefined) deployment.minReadySeconds = opts.minReadySeconds;
    await this.cluster.createDeployment(namespace, 'web', deployment);
    const s = new Scenario(this, namespace, opts.deploymentStrategy === 'Partition');
    await s.waitForPods('registry.invalid/web:v1', replicas);
    await this.applyRollout(s.key, 'Deployment', opts);
    return s;
  }

  /**
   * A namespace with a ready StatefulSet `web` (image v1, container `app`) and its Rollout applied.
   * `statefulSet` overrides spec fields (updateStrategy, podManagementPolicy…).
   */
  async statefulSetScenario(prefix: string, opts: RolloutOptions & { statefulSet?: Partial<V1StatefulSetSpec> } = {}): Promise<StatefulSetScenario> {
    const namespace = await this.cluster.createNamespace(prefix);
    const replicas = opts.replicas ?? 5;
    const labels = { app: 'web' };
    const body: V1StatefulSet = {
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'web', labels },
      spec: {
        replicas, serviceName: 'web', selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'registry.invalid/web:v1' }] } },
        ...opts.statefulSet,
      },
    };
    await this.cluster.admin.makeApiClient(AppsV1Api).createNamespacedStatefulSet({ namespace, body });
    const s = new StatefulSetScenario(this, namespace);
    await s.waitForPods('registry.invalid/web:v1', replicas);
    await this.applyRollout(s.key, 'StatefulSet', opts);
    return s;
  }

  /**
   * A namespace with a Ready workload `web` of any kind (bench/testbed/workloads.ts) and its Rollout
   * applied (SPEC stored, not reconciled yet). DaemonSets get one pod per node.
   */
  async workloadScenario(prefix: string, kind: WorkloadKind, opts: RolloutOptions & { workload?: WorkloadOptions } = {}): Promise<KindScenario> {
    const namespace = await this.cluster.createNamespace(prefix);
    const s = new KindScenario(this, namespace, kind);
    await s.workload.create(opts.workload ?? {});
    const perNode = kind === 'DaemonSet' || kind === 'AdvancedDaemonSet';
    await s.workload.waitForPods(opts.workload?.image ?? 'registry.invalid/web:v1', perNode ? this.nodes : (opts.workload?.replicas ?? 6));
    await this.applyRollout(s.key, kind, opts);
    return s;
  }

  private async applyRollout(key: RolloutKey, kind: WorkloadKind, opts: RolloutOptions): Promise<void> {
    const doc = {
      apiVersion: ROLLOUTS_API_VERSION,
      kind: 'Rollout',
      metadata: { name: 'web', namespace: key.namespace },
      spec: {
        workloadRef: { apiVersion: WORKLOAD_TYPES[kind].apiVersion, kind: WORKLOAD_TYPES[kind].kind, name: 'web' },
        strategy: { canary: { steps: opts.steps ?? [{ replicas: 1 }, { replicas: '50%' }, { replicas: '100%' }], ...(opts.failureThreshold !== undefined ? { failureThreshold: opts.failureThreshold } : {}) } },
        ...(opts.deploymentStrategy ? { deploymentStrategy: opts.deploymentStrategy } : {}),
        ...opts.spec,
      },
    };
    await this.store.putSpec(key, parseRollout(doc, { cluster: CLUSTER }), doc, 0);
  }

  nextCommandId(): string {
    this.commandSeq += 1;
    return `cmd-${this.commandSeq}`;
  }
}

export interface PodsByImage {
  [image: string]: { total: number; ready: number; uids: string[] };
}

export class Scenario {
  readonly key: RolloutKey;
  readonly apps: AppsV1Api;
  readonly core: CoreV1Api;
  watcher: InvariantWatcher | null = null;

  /** `partition`: the Rollout uses the Partition strategy (the watcher then also checks the native controller moves nothing). */
  constructor(readonly engine: Engine, readonly namespace: string, readonly partition = false) {
    this.key = { cluster: CLUSTER, namespace, name: 'web' };
    this.apps = engine.cluster.admin.makeApiClient(AppsV1Api);
    this.core = engine.cluster.admin.makeApiClient(CoreV1Api);
  }

  async watch(opts: WatchOptions = {}): Promise<InvariantWatcher> {
    this.watcher = await InvariantWatcher.start(this.engine.cluster.admin, this.namespace, 'web', { partition: this.partition, ...opts });
    return this.watcher;
  }

  reconcile(extra: Partial<ReconcileDeps> = {}): Promise<ReconcileResult> {
    return reconcile(this.key, this.engine.deps(extra));
  }

  async state(): Promise<ReleaseState> {
    return (await this.engine.store.load(this.key)).state.state;
  }

  async command(body: CommandBody, id = this.engine.nextCommandId()): Promise<string> {
    await this.engine.store.recordCommand(this.key, { ...body, id, at: this.engine.clock.now().toISOString(), by: 'test' } as never);
    return id;
  }

  /** Reconcile (as the queue would, honouring requeueSeconds) until `done` holds or time runs out. */
  async reconcileUntil(done: (s: Snapshot) => boolean, what: string, timeoutMs = 60_000): Promise<Snapshot> {
    return reconcileUntilDone(() => this.reconcile(), () => this.snapshot(), done, what, timeoutMs,
      (snap) => ({ phase: snap.state.phase, message: snap.state.message, pods: snap.pods, rs: snap.replicaSets.map((r) => [r.metadata?.name, r.spec?.replicas]) }));
  }

  async snapshot(): Promise<Snapshot> {
    const [state, deployment, rsList, podList] = await Promise.all([
      this.state(),
      this.apps.readNamespacedDeployment({ name: 'web', namespace: this.namespace }),
      this.apps.listNamespacedReplicaSet({ namespace: this.namespace }),
      this.core.listNamespacedPod({ namespace: this.namespace }),
    ]);
    return { state, deployment, replicaSets: rsList.items, pods: podsByImage(podList.items) };
  }

  /** A snapshot once the rollout is gone (its STATE reads as the initial one). */
  snapshotWithoutState(): Promise<Snapshot> {
    return this.snapshot();
  }

  async setImage(image: string): Promise<void> {
    await this.apps.patchNamespacedDeployment({ name: 'web', namespace: this.namespace, body: { spec: { template: { spec: { containers: [{ name: 'app', image }] } } } } }, mergePatchContainers);
  }

  /** A new pod template: image plus extra pod labels (e.g. the never-ready label for a broken revision). */
  async setTemplate(image: string, labels: Record<string, string> = {}): Promise<void> {
    const body = { spec: { template: { metadata: { labels }, spec: { containers: [{ name: 'app', image }] } } } };
    await this.apps.patchNamespacedDeployment({ name: 'web', namespace: this.namespace, body }, mergePatchContainers);
  }

  async scale(replicas: number): Promise<void> {
    await this.apps.patchNamespacedDeployment({ name: 'web', namespace: this.namespace, body: { spec: { replicas } } }, mergePatch);
  }

  async waitForPods(image: string, ready: number, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const pods = podsByImage((await this.core.listNamespacedPod({ namespace: this.namespace })).items);
      if ((pods[image]?.ready ?? 0) === ready) return;
      await sleep(200);
    }
    throw new Error(`timed out waiting for ${ready} ready pods of ${image}`);
  }
}

export interface Snapshot {
  state: ReleaseState;
  deployment: Awaited<ReturnType<AppsV1Api['readNamespacedDeployment']>>;
  replicaSets: V1ReplicaSet[];
  /** Live (non-terminating) pods per image. */
  pods: PodsByImage;
}

/** Strategic merge patch: containers merge by name, so only the image changes. */
const mergePatchContainers = (await import('@kubernetes/client-node')).setHeaderOptions('Content-Type', (await import('@kubernetes/client-node')).PatchStrategy.StrategicMergePatch);

function podsByImage(pods: V1Pod[]): PodsByImage {
  const out: PodsByImage = {};
  for (const p of pods) {
    if (p.metadata?.deletionTimestamp) continue;
    const image = p.spec?.containers[0]?.image ?? '?';
    const entry = (out[image] ??= { total: 0, ready: 0, uids: [] });
    entry.total += 1;
    entry.uids.push(p.metadata?.uid ?? '');
    if (p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) entry.ready += 1;
  }
  return out;
}

/** Reconcile (as the queue would, honouring requeueSeconds) until `done` holds or time runs out. */
async function reconcileUntilDone<S>(
  reconcileOnce: () => Promise<ReconcileResult>, snapshot: () => Promise<S>, done: (s: S) => boolean,
  what: string, timeoutMs: number, summary: (s: S) => unknown,
): Promise<S> {
  const deadline = Date.now() + timeoutMs;
  let snap: S | null = null;
  while (Date.now() < deadline) {
    const r = await reconcileOnce();
    snap = await snapshot();
    if (done(snap)) return snap;
    await sleep(Math.min(500, (r.requeueSeconds ?? 0.5) * 1000));
  }
  throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(snap === null ? null : summary(snap))}`);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * No surplus pod: as many live pods as the Deployment's replicas. A MinReadySeconds Deployment drains
 * its surge pods a pass after a batch is ready, once the controller acts on the lowered maxSurge
 * (shared/workloads/deployment/minReadyWrites.ts): batch counts are read once that pass has run.
 */
export function noSurplus(s: Snapshot): boolean {
  return Object.values(s.pods).reduce((n, p) => n + p.total, 0) === (s.deployment.spec?.replicas ?? 0);
}

/**
 * Reconcile until a pass writes nothing, at most `passes` times: once a MinReadySeconds batch is
 * ready it may still lower its surge and drain the surplus pods a pass or two later (never beyond
 * the batch); "nothing advances without approval" is checked from there.
 */
export async function settleAtPause(reconcile: () => Promise<ReconcileResult>, passes = 12): Promise<void> {
  // Two passes in a row, 300 ms apart, that write nothing (pods turning Available change the budget).
  for (let i = 0, quiet = 0; i < passes; i += 1) {
    quiet = (await reconcile()).writes === 0 ? quiet + 1 : 0;
    if (quiet === 2) return;
    await sleep(300);
  }
  throw new Error(`still writing to the cluster after ${passes} passes at a pause`);
}

/** [live pods, ready pods] per image, for compact assertions on a snapshot. */
export function podCounts(s: Snapshot): Record<string, [number, number]> {
  return Object.fromEntries(Object.entries(s.pods).map(([image, p]) => [image, [p.total, p.ready]]));
}

/** Active ReplicaSets (spec.replicas > 0). */
export function activeReplicaSets(s: Snapshot): V1ReplicaSet[] {
  return s.replicaSets.filter((r) => (r.spec?.replicas ?? 0) > 0);
}

/** What a StatefulSet scenario asserts on: the set, its ControllerRevisions and its pods. */
export interface StatefulSetSnapshot {
  state: ReleaseState;
  statefulSet: V1StatefulSet;
  revisions: V1ControllerRevision[];
  /** Live (non-terminating) pods per image. */
  pods: PodsByImage;
  /** Live pods by name (`web-<ordinal>`): image, controller-revision-hash, Ready. */
  byName: Record<string, { image: string; revision: string; ready: boolean }>;
}

/** The StatefulSet `web` of a scenario: the Deployment reads of Scenario (snapshot, reconcileUntil) do not apply. */
export class StatefulSetScenario extends Scenario {
  /** The Deployment watcher has no Deployment to read N from here: its gates would all be 0. */
  override watch(): Promise<InvariantWatcher> {
    return Promise.reject(new Error('a StatefulSet scenario is watched with watchSet()'));
  }

  /** The StatefulSet's invariants and approval gates, judged on its own pods and replicas. */
  watchSet(): Promise<SetWatcher> {
    return SetWatcher.start(this.engine.cluster.admin, this.namespace, 'web');
  }

  override async setImage(image: string): Promise<void> {
    const body = { spec: { template: { spec: { containers: [{ name: 'app', image }] } } } };
    await this.apps.patchNamespacedStatefulSet({ name: 'web', namespace: this.namespace, body }, mergePatchContainers);
  }

  override async scale(replicas: number): Promise<void> {
    await this.apps.patchNamespacedStatefulSet({ name: 'web', namespace: this.namespace, body: { spec: { replicas } } }, mergePatch);
  }

  async setSnapshot(): Promise<StatefulSetSnapshot> {
    const [state, statefulSet, revisions, podList] = await Promise.all([
      this.state(),
      this.apps.readNamespacedStatefulSet({ name: 'web', namespace: this.namespace }),
      this.apps.listNamespacedControllerRevision({ namespace: this.namespace }),
      this.core.listNamespacedPod({ namespace: this.namespace }),
    ]);
    const byName: StatefulSetSnapshot['byName'] = {};
    for (const p of podList.items) {
      if (p.metadata?.deletionTimestamp) continue;
      byName[p.metadata?.name ?? '?'] = {
        image: p.spec?.containers[0]?.image ?? '?',
        revision: p.metadata?.labels?.['controller-revision-hash'] ?? '',
        ready: p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
      };
    }
    return { state, statefulSet, revisions: revisions.items, pods: podsByImage(podList.items), byName };
  }

  /** Reconcile (as the queue would, honouring requeueSeconds) until `done` holds or time runs out. */
  async reconcileUntilSet(done: (s: StatefulSetSnapshot) => boolean, what: string, timeoutMs = 60_000): Promise<StatefulSetSnapshot> {
    return reconcileUntilDone(() => this.reconcile(), () => this.setSnapshot(), done, what, timeoutMs,
      (snap) => ({ phase: snap.state.phase, message: snap.state.message, pods: snap.byName, strategy: snap.statefulSet.spec?.updateStrategy, status: snap.statefulSet.status }));
  }
}

/** What a scenario of any kind asserts on: the rollout's state, the workload and its pods. */
export interface KindSnapshot extends WorkloadSnapshot {
  state: ReleaseState;
}

/** A workload `web` of any kind and its rollout, moved only through reconcile. */
export class KindScenario {
  readonly key: RolloutKey;
  readonly workload: WorkloadHandle;

  constructor(readonly engine: Engine, readonly namespace: string, readonly kind: WorkloadKind) {
    this.key = { cluster: CLUSTER, namespace, name: 'web' };
    this.workload = new WorkloadHandle(engine.cluster, namespace, kind);
  }

  reconcile(extra: Partial<ReconcileDeps> = {}): Promise<ReconcileResult> {
    return reconcile(this.key, this.engine.deps(extra));
  }

  async state(): Promise<ReleaseState> {
    return (await this.engine.store.load(this.key)).state.state;
  }

  async command(body: CommandBody, id = this.engine.nextCommandId()): Promise<string> {
    await this.engine.store.recordCommand(this.key, { ...body, id, at: this.engine.clock.now().toISOString(), by: 'test' } as never);
    return id;
  }

  async snapshot(): Promise<KindSnapshot> {
    const [state, w] = await Promise.all([this.state(), this.workload.snapshot()]);
    return { state, ...w };
  }

  /** Reconcile (as the queue would, honouring requeueSeconds) until `done` holds or time runs out. */
  reconcileUntil(done: (s: KindSnapshot) => boolean, what: string, timeoutMs = 90_000): Promise<KindSnapshot> {
    return reconcileUntilDone(() => this.reconcile(), () => this.snapshot(), done, `${this.kind}: ${what}`, timeoutMs,
      (snap) => ({ phase: snap.state.phase, message: snap.state.message, release: snap.state.release, pods: snap.pods, strategy: snap.workload.spec?.updateStrategy, status: snap.workload.status }));
  }
}
