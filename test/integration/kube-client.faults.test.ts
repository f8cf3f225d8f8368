// KubeClusterClient through the fault-injecting proxy in front of the real kube-apiserver
// (bench/testbed/faults/kubeFaultProxy.ts), as the least-privilege `serverless-rollouts` user: what
// is sent again and what is not (shared/adapters/kubernetes/retrying.ts), each request's deadline,
// and that the meter counts every request that went out. Every fault here hits every request of its
// verb, so the proxy's own count is exact.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { KubeClusterClient } from '../../shared/adapters/kubernetes/clusterClient.ts';
import { tokenKubeConfig } from '../../shared/adapters/kubernetes/kubeConfigs.ts';
import { KubeApiError } from '../../shared/adapters/kubernetes/kubeErrors.ts';
import { Meter } from '../../shared/meter.ts';
import type { KubeObject, ObjectRef } from '../../shared/kube/types.ts';
import { startKubeFaultProxy, type KubeFaultProxy } from '../../bench/testbed/faults/kubeFaultProxy.ts';
import { startTestCluster, type TestCluster } from '../../bench/testbed/kube.ts';

let cluster: TestCluster;
let proxy: KubeFaultProxy;
let ns: string;

before(async () => {
  cluster = await startTestCluster();
  ns = await cluster.createNamespace('kube-faults');
  proxy = await startKubeFaultProxy({ target: cluster.server, certDir: path.join(cluster.dataDir, 'pki', 'apiserver'), seed: 1, table: {}, hangMs: 5_000 });
  await new KubeClusterClient(cluster.admin).write({ verb: 'create', object: replicaSet('target'), reason: 'set-up' });
});

after(async () => {
  await proxy?.stop();
  await cluster?.stop();
});

beforeEach(() => {
  proxy.plan.setTable({});
  proxy.plan.requests.clear();
});

function replicaSet(name: string): KubeObject {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name, namespace: ns, labels },
    spec: { replicas: 0, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'registry.invalid/app:v1' }] } } },
  };
}

const ref = (): ObjectRef => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', namespace: ns, name: 'target' });

function faultedClient(opts: { requestTimeoutMs?: number; maxRetryAfterMs?: number } = {}): { client: KubeClusterClient; meter: Meter } {
  const meter = new Meter();
  const kc = tokenKubeConfig('faulted', { server: proxy.server, skipTLSVerify: true, token: cluster.rolloutsToken });
  return { client: new KubeClusterClient(kc, { meter, ...opts }), meter };
}

const sent = (verb: 'get' | 'list' | 'patch'): number => proxy.plan.requests.get(verb) ?? 0;

async function failure(p: Promise<unknown>): Promise<KubeApiError> {
  const err = await p.then(() => null, (e: unknown) => e);
  assert.ok(err instanceof KubeApiError, `expected a KubeApiError, got ${String(err)}`);
  return err;
}

describe('KubeClusterClient under apiserver faults', () => {
  test('a throttled read waits the Retry-After the server names and is sent again, three times in all, each one counted', async () => {
    const { client, meter } = faultedClient();
    proxy.plan.setTable({ get: { throttle: 1 } });
    const t0 = Date.now();
    const err = await failure(client.get(ref()));
    assert.equal(err.status, 429);
    assert.equal(sent('get'), 3);
    assert.equal(meter.get('k8s.read'), 3);
    assert.ok(Date.now() - t0 >= 2_000, `two waits of Retry-After: 1 s, took ${Date.now() - t0} ms`);
  });

  test('a throttled write is sent again too: the server says it did not act', async () => {
    const { client, meter } = faultedClient();
    proxy.plan.setTable({ patch: { throttle: 1 } });
    await failure(client.write({ verb: 'patch', ref: ref(), patchType: 'merge', patch: { metadata: { annotations: { a: '1' } } }, reason: 'test' }));
    assert.equal(sent('patch'), 3);
    assert.equal(meter.get('k8s.write'), 3);
  });

  test('a Retry-After longer than the pass may wait is left to the next pass, with the wait on the error', async () => {
    const { client } = faultedClient({ maxRetryAfterMs: 500 });
    proxy.plan.setTable({ list: { throttle: 1 } });
    const err = await failure(client.list('apps/v1', 'ReplicaSet', ns, 'app=target'));
    assert.equal(sent('list'), 1);
    assert.equal(err.retryAfterSeconds, 1);
  });

  test('a read with no answer is abandoned at its deadline and sent once more; a write is sent once', async () => {
    const { client, meter } = faultedClient({ requestTimeoutMs: 300 });
    proxy.plan.setTable({ get: { hang: 1 }, patch: { hang: 1 } });
    const t0 = Date.now();
    const read = await failure(client.get(ref()));
    const took = Date.now() - t0;
    assert.equal(read.status, 0);
    assert.match(read.message, /no complete answer within 300 ms/);
    assert.equal(sent('get'), 2);
    // A lower bound only: each attempt waited its deadline (how long beyond it is the bench's to report).
    assert.ok(took >= 600, `two deadlines of 300 ms, took ${took} ms`);
    const write = await failure(client.write({ verb: 'patch', ref: ref(), patchType: 'merge', patch: { spec: { replicas: 0 } }, reason: 'test' }));
    assert.equal(write.status, 0);
    assert.equal(sent('patch'), 1);
    assert.deepEqual([meter.get('k8s.read'), meter.get('k8s.write')], [2, 1]);
  });

  test('a write whose answer is lost was applied, and is not sent again: the next pass observes it', async () => {
    const { client } = faultedClient();
    proxy.plan.setTable({ patch: { dropResponse: 1 } });
    const err = await failure(client.write({ verb: 'patch', ref: ref(), patchType: 'merge', patch: { metadata: { annotations: { lost: 'answer' } } }, reason: 'test' }));
    assert.equal(err.status, 0);
    assert.equal(sent('patch'), 1);
    proxy.plan.setTable({});
    assert.equal((await client.get(ref()))?.metadata.annotations?.lost, 'answer');
  });

  test('a watcher\'s starting resourceVersion is a read like the others: sent again after a throttle', async () => {
    const { client } = faultedClient();
    proxy.plan.setTable({ list: { throttle: 1 } });
    await failure(client.listVersion(`/apis/apps/v1/namespaces/${ns}/replicasets`));
    assert.equal(sent('list'), 3);
    proxy.plan.setTable({});
    assert.match(await client.listVersion(`/apis/apps/v1/namespaces/${ns}/replicasets`), /^\d+$/);
  });
});
