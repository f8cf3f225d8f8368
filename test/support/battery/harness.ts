// The bad-input battery's world: local mode's API parts over real components. The real kube-apiserver
// (its audit log records every request of the product's least-privilege user), dynalite behind the
// DynamoDB state store, local mode's keyed queue, and local mode's HTTP server in front of the real
// API handler. Two servers share the store: "local" serves only its own cluster, as `rollouts serve`
// does (clusterNames), and "deployed" insists on registered clusters, as the Lambda API does.
// The queue's worker only records: nothing in the battery may reach a reconcile, and the fixtures
// are moved by calling `reconcile` directly, as the engine tests do. A case's "nothing changed" is
// three snapshots compared: every item of the table, the queue's runs, and what the product's user
// wrote to the cluster (audit log, dry-runs excepted) plus each workload's generation and metadata.
import { queueKeyString } from '../../../shared/fleet/key.ts';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { AppsV1Api, CoreV1Api, type V1DeploymentStrategy } from '@kubernetes/client-node';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalKeyedQueue } from '../../../shared/adapters/local/keyedQueue.ts';
import type { ApiDeps } from '../../../shared/api/types.ts';
import { SUPPORTED_KINDS } from '../../../shared/workloads/registry.ts';
import { startLocalApiServer, type LocalApiServer } from '../../../shared/local/httpServer.ts';
import type { ReconcileQueue } from '../../../shared/ports.ts';
import { reconcile } from '../../../shared/reconcile/reconcile.ts';
import type { ReleaseState, RolloutKey } from '../../../shared/rollout/types.ts';
import { CLUSTER, Engine } from '../../../bench/testbed/engine.ts';
import { deploymentManifest } from '../../../bench/testbed/kube.ts';
import { waitFor } from '../../../bench/testbed/wait.ts';
import { NAMESPACE, rolloutDocument } from '../../../bench/testbed/battery/fixtures.ts';

export const PRINCIPAL = 'arn:aws:iam::123456789012:user/battery';
/** The largest body the battery's API accepts, as local mode (shared/local/localMode.ts). */
export const MAX_BODY_BYTES = 256 * 1024;

export interface Snapshot {
  items: string[];
  queueRuns: number;
  clusterWrites: string[];
  workloads: string;
}

export interface HttpAnswer {
  status: number;
  text: string;
  json: { error?: { message?: string; issues?: { path: string; reason: string }[] } } & Record<string, unknown>;
}

export class Battery {
  /** A CLI data directory whose endpoint file points at the local server. */
  readonly home: string;
  private auditSeen = 0;

  private constructor(
    readonly engine: Engine, readonly local: LocalApiServer, readonly deployed: LocalApiServer, readonly queue: LocalKeyedQueue,
    /** "cluster/namespace/name" of every reconcile the API asked the queue for. */
    readonly queueRuns: readonly string[],
  ) {
    this.home = mkdtempSync(path.join(tmpdir(), 'rollouts-battery-'));
    writeFileSync(path.join(this.home, 'endpoint'), `${local.url}\n`);
  }

  static async start(): Promise<Battery> {
    const engine = await Engine.start({ auditLog: true, podReadyDelayMs: 200 });
    const runs: string[] = [];
    // Local mode's queue; its worker does nothing (the fixtures are reconciled by hand). Every ask
    // for a reconcile is counted as it is made.
    const queue = new LocalKeyedQueue(async () => []);
    const counted: ReconcileQueue = {
      enqueue: (key, opts) => {
        runs.push(queueKeyString(key));
        return queue.enqueue(key, opts);
      },
    };
    const base: ApiDeps = {
      store: engine.store, queue: counted, clock: { now: () => new Date() },
      // Local mode's identity for the API's cluster reads and dry-runs: the product's own user.
      clusters: { client: async () => engine.client },
      supportedKinds: SUPPORTED_KINDS, maxBodyBytes: MAX_BODY_BYTES, requireRegisteredCluster: false,
    };
    const local = await startLocalApiServer({ deps: { ...base, clusterNames: [CLUSTER] }, principal: PRINCIPAL });
    const deployed = await startLocalApiServer({ deps: { ...base, requireRegisteredCluster: true }, principal: PRINCIPAL });
    return new Battery(engine, local, deployed, queue, runs);
  }

  async stop(): Promise<void> {
    await Promise.allSettled([this.local.stop(), this.deployed.stop(), this.queue.stop()]);
    await this.engine.stop();
    rmSync(this.home, { recursive: true, force: true });
  }

  get apps(): AppsV1Api {
    return this.engine.cluster.admin.makeApiClient(AppsV1Api);
  }

  key(name: string): RolloutKey {
    return { cluster: CLUSTER, namespace: NAMESPACE, name };
  }

  /** One raw HTTP request (node:http keeps the path exactly as given: no dot-segment removal). */
  async http(server: 'local' | 'deployed', method: string, rawPath: string, body?: string, headers: Record<string, string> = {}): Promise<HttpAnswer> {
    const { request } = await import('node:http');
    const base = new URL(server === 'local' ? this.local.url : this.deployed.url);
    return new Promise((resolve, reject) => {
      const req = request({ host: base.hostname, port: base.port, method, path: rawPath, headers: { 'content-type': 'application/json', ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }), ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: HttpAnswer['json'] = {};
          try {
            json = text ? (JSON.parse(text) as HttpAnswer['json']) : {};
          } catch {
            // not JSON: the case's assertions say so
          }
          resolve({ status: res.statusCode ?? 0, text, json });
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  /** Everything a bad request could have changed. */
  async snapshot(): Promise<Snapshot> {
    const items: string[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.engine.dynamo.client.send(new ScanCommand({ TableName: this.engine.dynamo.tableName, ConsistentRead: true, ...(start ? { ExclusiveStartKey: start as never } : {}) }));
      for (const item of page.Items ?? []) items.push(JSON.stringify(Object.fromEntries(Object.entries(item).sort(([a], [b]) => a.localeCompare(b)))));
      start = page.LastEvaluatedKey;
    } while (start);
    items.sort();
    const events = this.engine.cluster.auditEvents();
    const clusterWrites = events.slice(this.auditSeen)
      .filter((e) => !['get', 'list', 'watch'].includes(e.verb) && !/[?&]dryRun=All/.test(e.requestURI))
      .map((e) => `${e.verb} ${e.requestURI} → ${e.responseStatus?.code ?? '?'}`);
    return { items, queueRuns: this.queueRuns.length, clusterWrites, workloads: await this.workloads() };
  }

  /** From now on, snapshots report only the product user's writes made after this point. */
  markAudit(): void {
    this.auditSeen = this.engine.cluster.auditEvents().length;
  }

  /** What a write of ours would change on a workload (not its status, which the controllers keep up to date). */
  private async workloads(): Promise<string> {
    const apps = this.apps;
    const [deployments, sets, replicaSets, revisions] = await Promise.all([
      apps.listNamespacedDeployment({ namespace: NAMESPACE }),
      apps.listNamespacedStatefulSet({ namespace: NAMESPACE }),
      apps.listNamespacedReplicaSet({ namespace: NAMESPACE }),
      apps.listNamespacedControllerRevision({ namespace: NAMESPACE }),
    ]);
    const line = (kind: string, o: { metadata?: { name?: string; generation?: number; annotations?: Record<string, string>; labels?: Record<string, string> }; spec?: unknown }) =>
      `${kind}/${o.metadata?.name} gen=${o.metadata?.generation ?? '-'} ann=${JSON.stringify(o.metadata?.annotations ?? {})} labels=${JSON.stringify(o.metadata?.labels ?? {})}${kind === 'ReplicaSet' ? ` replicas=${(o.spec as { replicas?: number }).replicas}` : ''}`;
    return [
      ...deployments.items.map((d) => line('Deployment', d)),
      ...sets.items.map((s) => line('StatefulSet', s)),
      ...replicaSets.items.map((r) => line('ReplicaSet', r)),
      ...revisions.items.map((r) => `ControllerRevision/${r.metadata?.name} rev=${r.revision}`),
    ].sort().join('\n');
  }

  // ---- fixtures ----

  async createNamespace(): Promise<void> {
    await this.engine.cluster.admin.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NAMESPACE } } });
  }

  async createDeployment(name: string, opts: { replicas?: number; strategy?: V1DeploymentStrategy } = {}): Promise<void> {
    await this.apps.createNamespacedDeployment({ namespace: NAMESPACE, body: deploymentManifest(name, { replicas: opts.replicas ?? 2, image: 'registry.invalid/app:v1', ...(opts.strategy ? { strategy: opts.strategy } : {}) }) });
  }

  async createStatefulSet(name: string, replicas = 2): Promise<void> {
    const labels = { app: name };
    await this.apps.createNamespacedStatefulSet({ namespace: NAMESPACE, body: {
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name, labels },
      spec: { replicas, serviceName: name, podManagementPolicy: 'Parallel', selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'registry.invalid/app:v1' }] } } },
    } });
  }

  /** Applies the fixture's Rollout through the local API (201 expected). */
  async applyRollout(name: string): Promise<void> {
    const res = await this.http('local', 'PUT', `/v1/rollouts/${CLUSTER}/${NAMESPACE}/${name}`, JSON.stringify(rolloutDocument(name)));
    if (res.status !== 201) throw new Error(`apply ${name}: ${res.status} ${res.text}`);
  }

  /** Sends a command through the local API (202 expected). */
  async command(name: string, verb: string, body: Record<string, unknown> = {}): Promise<void> {
    const res = verb === 'delete'
      ? await this.http('local', 'DELETE', `/v1/rollouts/${CLUSTER}/${NAMESPACE}/${name}`, JSON.stringify(body))
      : await this.http('local', 'POST', `/v1/rollouts/${CLUSTER}/${NAMESPACE}/${name}/${verb}`, JSON.stringify(body));
    if (res.status !== 202) throw new Error(`${verb} ${name}: ${res.status} ${res.text}`);
  }

  /** Reconciles (as the queue would) until `done` holds for the stored state. */
  async reconcileUntil(name: string, done: (s: ReleaseState) => boolean, what: string): Promise<void> {
    const key = this.key(name);
    await waitFor(async () => {
      const r = await reconcile(key, this.engine.deps());
      const s = (await this.engine.store.load(key)).state.state;
      if (done(s)) return true;
      await new Promise((resolve) => setTimeout(resolve, Math.min(500, (r.requeueSeconds ?? 0.3) * 1000)));
      return false;
    }, { message: what, timeoutMs: 90_000, intervalMs: 0 });
  }

  async waitForReady(kind: 'Deployment' | 'StatefulSet', name: string, replicas: number): Promise<void> {
    await waitFor(async () => {
      const st = kind === 'Deployment'
        ? (await this.apps.readNamespacedDeployment({ name, namespace: NAMESPACE })).status
        : (await this.apps.readNamespacedStatefulSet({ name, namespace: NAMESPACE })).status;
      return st?.readyReplicas === replicas;
    }, { message: `${kind} ${name} to have ${replicas} ready pods`, timeoutMs: 60_000, intervalMs: 200 });
  }
}
