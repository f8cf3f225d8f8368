// The watch-proxy core against the real local control plane with the least-privilege token, and
// its container entry point (SIGTERM stops it cleanly). Rollouts come from the DynamoDB state store
// on dynalite; the sink collects notices in memory (the EventBridge sink is covered by wiring.test.ts).
import { SYSTEM_CLOCK } from '../../shared/clock.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { AppsV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { DynamoStateStore } from '../../shared/adapters/dynamodb/stateStore.ts';
import { ensureTable } from '../../shared/adapters/dynamodb/table.ts';
import { KubeClusterClient } from '../../shared/adapters/kubernetes/clusterClient.ts';
import { ENV } from '../../shared/app/config.ts';
import { parseRollout } from '../../shared/rollout/spec.ts';
import type { RolloutKey } from '../../shared/rollout/types.ts';
import type { WatchSink, WorkloadChange } from '../../shared/ports.ts';
import { CatalogRefreshRequests, NEW_ROLLOUT_REASON, runWatchProxy, type WatchProxyStats } from '../../shared/watch/watchProxy.ts';
import { startAwsEmulator, type AwsEmulator } from '../support/aws/emulator.ts';
import { startDynalite, type DynaliteHarness } from '../../bench/testbed/dynalite.ts';
import { startTestCluster, type TestCluster } from '../../bench/testbed/kube.ts';
import { waitFor } from '../../bench/testbed/wait.ts';

const CLUSTER = 'local';
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

class CollectingSink implements WatchSink {
  readonly batches: WorkloadChange[][] = [];
  async send(changes: WorkloadChange[]): Promise<void> {
    this.batches.push(changes);
  }
  keys(): string[] {
    return [...new Set(this.batches.flat().map((c) => `${c.namespace}/${c.name}`))].sort();
  }
}

let cluster: TestCluster;
let dynamo: DynaliteHarness;
let store: DynamoStateStore;

before(async () => {
  [cluster, dynamo] = await Promise.all([startTestCluster({ podReadyDelayMs: 200 }), startDynalite()]);
  store = new DynamoStateStore({ client: dynamo.client, tableName: dynamo.tableName });
});

after(async () => {
  await Promise.allSettled([cluster?.stop(), dynamo?.stop()]);
});

async function applyRollout(namespace: string, name: string, workload = name): Promise<RolloutKey> {
  const doc = {
    apiVersion: 'rollouts.kruise.io/v1beta1', kind: 'Rollout', metadata: { name, namespace },
    spec: { workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: workload }, strategy: { canary: { steps: [{ replicas: '100%' }] } } },
  };
  const key = { cluster: CLUSTER, namespace, name };
  await store.putSpec(key, parseRollout(doc, { cluster: CLUSTER }), doc, 0);
  return key;
}

describe('watch-proxy on the real control plane', () => {
  test('changes to managed Deployments and their ReplicaSets become one notice per rollout; unmanaged ones none', async () => {
    const ns = await cluster.createNamespace('watch');
    await cluster.createDeployment(ns, 'web', { replicas: 1 });
    await cluster.createDeployment(ns, 'other', { replicas: 1 });
    await applyRollout(ns, 'web-rollout', 'web');
    const sink = new CollectingSink();
    const client = new KubeClusterClient(cluster.rollouts);
    const stop = new AbortController();
    const running = runWatchProxy({ store, clock: SYSTEM_CLOCK, clusters: { source: async () => client }, sink, signal: stop.signal, windowMs: 100, refreshMs: 500 });
    let stats: WatchProxyStats | undefined;
    try {
      // The first listing replays what exists: one resync notice for the managed rollout.
      await waitFor(() => sink.keys().length > 0, { message: 'the resync notice' });
      assert.deepEqual(sink.keys(), [`${ns}/web-rollout`]);

      const sent = sink.batches.length;
      const apps = cluster.admin.makeApiClient(AppsV1Api);
      await apps.patchNamespacedDeployment({ name: 'web', namespace: ns, body: { spec: { replicas: 3 } } }, mergePatch);
      await apps.patchNamespacedDeployment({ name: 'other', namespace: ns, body: { spec: { replicas: 3 } } }, mergePatch);
      // Scaling moves the ReplicaSet (spec, then status as pods become ready): notices keep coming for web only.
      const since = () => sink.batches.slice(sent).flat();
      await waitFor(() => since().some((c) => c.reasons.some((r) => /^ReplicaSet web-\S+ MODIFIED$/.test(r))), { message: 'a ReplicaSet change mapped to its rollout' });
      assert.deepEqual(sink.keys(), [`${ns}/web-rollout`]);
    } finally {
      stop.abort();
      stats = await running;
    }
    assert.equal(stats.watches, 2, 'deployments and replicasets of the one namespace');
    assert.equal(stats.errors, 0);
  });

  test('a rollout applied while the proxy runs is watched after the next refresh', async () => {
    const ns = await cluster.createNamespace('watch-late');
    await cluster.createDeployment(ns, 'api', { replicas: 1 });
    const sink = new CollectingSink();
    const client = new KubeClusterClient(cluster.rollouts);
    const stop = new AbortController();
    const running = runWatchProxy({ store, clock: SYSTEM_CLOCK, clusters: { source: async () => client }, sink, signal: stop.signal, windowMs: 100, refreshMs: 200 });
    try {
      await applyRollout(ns, 'api');
      await waitFor(() => sink.keys().includes(`${ns}/api`), { message: 'a notice for the rollout applied later' });
    } finally {
      stop.abort();
      await running;
    }
  });
});

describe('watch-proxy: new rollouts and StatefulSets', () => {
  test('a rollout applied in a namespace already watched gets a catch-up notice, with no event of its own workload; a refresh request reads it at once', async () => {
    const ns = await cluster.createNamespace('watch-catchup');
    await cluster.createDeployment(ns, 'web', { replicas: 1 });
    await cluster.createDeployment(ns, 'api', { replicas: 1 });
    // Settled first: a Deployment still rolling out emits events of its own, which would join the catch-up notice.
    const apps = cluster.admin.makeApiClient(AppsV1Api);
    for (const name of ['web', 'api']) {
      await waitFor(async () => (await apps.readNamespacedDeployment({ name, namespace: ns })).status?.availableReplicas === 1, { message: `Deployment ${name} available` });
    }
    await applyRollout(ns, 'web');
    const sink = new CollectingSink();
    const client = new KubeClusterClient(cluster.rollouts);
    const stop = new AbortController();
    const refreshes = new CatalogRefreshRequests();
    // A long refresh period: only the request can make the proxy see the new rollout in time.
    const running = runWatchProxy({ store, clock: SYSTEM_CLOCK, clusters: { source: async () => client }, sink, signal: stop.signal, windowMs: 100, refreshMs: 600_000, refreshes });
    try {
      await waitFor(() => sink.keys().includes(`${ns}/web`), { message: 'the watches of the namespace to be up' });
      await applyRollout(ns, 'api');
      refreshes.request();
      const notice = await waitFor(() => sink.batches.flat().find((c) => c.namespace === ns && c.name === 'api'), { message: 'the catch-up notice of api' });
      assert.deepEqual(notice.reasons, [NEW_ROLLOUT_REASON], 'nothing happened to Deployment api: the notice is the catch-up');
    } finally {
      stop.abort();
      await running;
    }
  });

  test('StatefulSets are watched because their driver declares it: an image change becomes a notice for its rollout', async () => {
    const ns = await cluster.createNamespace('watch-sts');
    const labels = { app: 'db' };
    const apps = cluster.admin.makeApiClient(AppsV1Api);
    await apps.createNamespacedStatefulSet({ namespace: ns, body: { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db', labels }, spec: { replicas: 1, serviceName: 'db', selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'registry.invalid/db:v1' }] } } } } });
    const doc = {
      apiVersion: 'rollouts.kruise.io/v1beta1', kind: 'Rollout', metadata: { name: 'db', namespace: ns },
      spec: { workloadRef: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db' }, strategy: { canary: { steps: [{ replicas: '100%' }] } } },
    };
    // A table of its own: the proxy then watches this rollout only, so its watch count is the driver's.
    const tableName = `watch-sts-${Date.now()}`;
    await ensureTable(dynamo.client, tableName);
    const own = new DynamoStateStore({ client: dynamo.client, tableName });
    await own.putSpec({ cluster: CLUSTER, namespace: ns, name: 'db' }, parseRollout(doc, { cluster: CLUSTER }), doc, 0);
    const sink = new CollectingSink();
    const client = new KubeClusterClient(cluster.rollouts);
    const stop = new AbortController();
    const running = runWatchProxy({ store: own, clock: SYSTEM_CLOCK, clusters: { source: async () => client }, sink, signal: stop.signal, windowMs: 100, refreshMs: 500 });
    let stats: WatchProxyStats | undefined;
    try {
      await waitFor(() => sink.keys().includes(`${ns}/db`), { message: 'the StatefulSet replayed' });
      const sent = sink.batches.length;
      await apps.patchNamespacedStatefulSet({ name: 'db', namespace: ns, body: { spec: { template: { spec: { containers: [{ name: 'app', image: 'registry.invalid/db:v2' }] } } } } }, setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch));
      await waitFor(() => sink.batches.slice(sent).flat().some((c) => c.name === 'db' && c.reasons.includes('StatefulSet db MODIFIED')), { message: 'the image change as a notice' });
    } finally {
      stop.abort();
      stats = await running;
    }
    assert.equal(stats.watches, 1, 'only what the StatefulSet driver declares: statefulsets, in the one namespace');
    assert.equal(stats.errors, 0, 'the least-privilege role may watch it');
  });
});

describe('watch-proxy container entry', () => {
  let aws: AwsEmulator;
  before(async () => {
    aws = await startAwsEmulator();
  });
  after(async () => {
    await aws?.stop();
  });

  test('runs from the environment until SIGTERM, then stops cleanly with exit code 0', async () => {
    // A rollout on a cluster nobody registered: the proxy lists it, then keeps retrying that cluster.
    const doc = { apiVersion: 'rollouts.kruise.io/v1beta1', kind: 'Rollout', metadata: { name: 'lost', namespace: 'shop' }, spec: { workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'lost' }, strategy: { canary: { steps: [{ replicas: '100%' }] } } } };
    await store.putSpec({ cluster: 'unregistered', namespace: 'shop', name: 'lost' }, parseRollout(doc, { cluster: 'unregistered' }), doc, 0);
    const config = aws.config(dynamo.tableName);
    const child = spawn(process.execPath, ['--import', 'tsx', 'functions/watch-proxy/main.ts'], {
      env: {
        ...process.env,
        [ENV.tableName]: config.tableName, [ENV.queueUrl]: config.queueUrl, [ENV.triggerQueueUrl]: config.triggerQueueUrl, [ENV.eventBusName]: config.eventBusName,
        AWS_ENDPOINT_URL: aws.endpoint, AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint, AWS_REGION: aws.region,
        AWS_ACCESS_KEY_ID: aws.credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: aws.credentials.secretAccessKey,
        POWERTOOLS_METRICS_DISABLED: 'true',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await waitFor(() => /managed rollouts changed/.test(output), { timeoutMs: 60_000, message: `the proxy to read the catalog; output: ${output}` });
      child.kill('SIGTERM');
      assert.equal(await exited, 0, output);
      assert.match(output, /watch-proxy stopped/);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
