// Read routes (list, get, status, history), cluster registration, and the routing errors.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { StatusResponse } from '../../../shared/api/types.ts';
import { KEY, PATH, api, awaitingApproval, healthy, seedRollout, seedState } from './apiFixtures.ts';

describe('reads', () => {
  test('list shows each rollout with its phase and step, filtered by cluster and namespace', async () => {
    const a = api();
    await seedRollout(a);
    await seedState(a, awaitingApproval());
    const res = await a.call('GET', '/v1/rollouts', undefined, { query: { cluster: 'prod', namespace: 'shop' } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, {
      rollouts: [{
        rollout: KEY, workload: { kind: 'Deployment', name: 'web' }, phase: 'Progressing', paused: false, message: 'step 1/3: awaiting approval', cause: null,
        step: { index: 0, total: 3, state: 'StepPaused' }, releaseId: 'r1',
      }],
    });
    const other = await a.call('GET', '/v1/rollouts', undefined, { query: { cluster: 'dev' } });
    assert.deepEqual(other.json, { rollouts: [] });
  });

  test('get returns spec, document and state', async () => {
    const a = api();
    await seedRollout(a);
    const res = await a.call('GET', PATH);
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.json).sort(), ['document', 'rollout', 'spec', 'specVersion', 'state', 'version']);
    assert.equal(res.json.version, 0);
    assert.equal((res.json.state as { phase: string }).phase, 'Healthy');
  });

  test('status is settled only once the rollout was reconciled and nothing is in flight', async () => {
    const a = api();
    await seedRollout(a);
    assert.equal(((await a.call('GET', `${PATH}/status`)).json as unknown as StatusResponse).settled, false);
    await seedState(a, awaitingApproval());
    const active = (await a.call('GET', `${PATH}/status`)).json as unknown as StatusResponse;
    assert.deepEqual([active.settled, active.step, active.releaseId, active.revisions], [false, { index: 0, total: 3, state: 'StepPaused' }, 'r1', { stable: 'rev-a', target: 'rev-b' }]);
    await seedState(a, healthy());
    const done = (await a.call('GET', `${PATH}/status`)).json as unknown as StatusResponse;
    assert.deepEqual([done.settled, done.phase, done.step], [true, 'Healthy', null]);
  });

  test('history lists the entries oldest first', async () => {
    const a = api();
    await seedRollout(a);
    const entry = (seq: number) => ({ releaseId: 'r1', seq, at: '2030-01-01T00:00:00.000Z', type: 'Batch Ready', phase: 'Progressing', stepIndex: 0, message: `m${seq}`, by: null });
    await a.store.putHistory(KEY, [entry(200), entry(100)]);
    const res = await a.call('GET', `${PATH}/history`);
    assert.deepEqual((res.json.history as { seq: number }[]).map((h) => h.seq), [100, 200]);
  });

  test('unknown rollouts are 404 on get, status and history', async () => {
    const a = api();
    for (const path of [PATH, `${PATH}/status`, `${PATH}/history`]) assert.equal((await a.call('GET', path)).status, 404, path);
  });
});

describe('clusters', () => {
  test('registering a cluster queues a reconcile of each of its rollouts, and only those', async () => {
    const a = api();
    await seedRollout(a);
    await a.store.putSpec({ ...KEY, cluster: 'dev' }, { ...(await a.store.load(KEY)).spec!.spec, cluster: 'dev' }, null, 0);
    assert.equal((await a.call('PUT', '/v1/clusters/prod', { eks: { clusterName: 'prod-eks', region: 'eu-west-1' } })).status, 201);
    assert.deepEqual(a.queue.sent, [{ key: KEY, delaySeconds: 0, reason: 'api' }]);
  });

  test('an EKS cluster is registered (201), updated (200), read and listed', async () => {
    const a = api();
    const eks = { clusterName: 'prod-eks', region: 'eu-west-1', roleArn: 'arn:aws:iam::123456789012:role/rollouts' };
    assert.equal((await a.call('PUT', '/v1/clusters/prod', { eks })).status, 201);
    assert.equal((await a.call('PUT', '/v1/clusters/prod', { eks: { ...eks, region: 'us-east-1' } })).status, 200);
    assert.deepEqual((await a.call('GET', '/v1/clusters/prod')).json, { cluster: { name: 'prod', eks: { ...eks, region: 'us-east-1' } } });
    assert.deepEqual((await a.call('GET', '/v1/clusters')).json, { clusters: [{ name: 'prod', eks: { ...eks, region: 'us-east-1' } }] });
  });

  test('a registration needs exactly one of eks and endpoint, with valid fields', async () => {
    const a = api();
    const cases: [unknown, string][] = [
      [{}, 'eks'],
      [{ eks: { clusterName: 'x', region: 'eu-west-1' }, endpoint: { server: 'https://k' } }, 'eks'],
      [{ eks: { clusterName: 'x', region: 'Europe' } }, 'eks.region'],
      [{ endpoint: { server: 'ftp://k' } }, 'endpoint.server'],
      [{ name: 'other', endpoint: { server: 'https://k' } }, 'name'],
    ];
    for (const [body, path] of cases) {
      const res = await a.call('PUT', '/v1/clusters/prod', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal((res.json.error as { issues: { path: string }[] }).issues[0]?.path, path, JSON.stringify(res.json));
    }
    assert.deepEqual(await a.store.listClusters(), []);
  });

  test('a registration carries the labels and time zone fleets pick clusters and read windows by', async () => {
    const a = api();
    const body = { endpoint: { server: 'https://k' }, labels: { ring: 'canary', 'topology.kubernetes.io/region': 'eu-west-1' }, timeZone: 'Europe/Paris' };
    assert.equal((await a.call('PUT', '/v1/clusters/prod', body)).status, 201);
    assert.deepEqual((await a.call('GET', '/v1/clusters/prod')).json, { cluster: { name: 'prod', ...body } });
    assert.deepEqual((await a.call('GET', '/v1/clusters')).json, { clusters: [{ name: 'prod', ...body }] });
  });

  test('bad labels and an unknown time zone are refused with the field, and nothing is registered', async () => {
    const a = api();
    const endpoint = { server: 'https://k' };
    const cases: [unknown, string, RegExp][] = [
      [{ endpoint, labels: { 'ring/x/y': 'canary' } }, 'labels["ring/x/y"]', /at most one "\/"/],
      [{ endpoint, labels: { ring: 'not valid!' } }, 'labels.ring', /invalid label value/],
      [{ endpoint, labels: ['ring'] }, 'labels', /must be a mapping/],
      [{ endpoint, timeZone: 'Mars/Olympus' }, 'timeZone', /unknown IANA time zone/],
    ];
    for (const [body, path, reason] of cases) {
      const res = await a.call('PUT', '/v1/clusters/prod', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      const issue = (res.json.error as { issues: { path: string; reason: string }[] }).issues[0];
      assert.equal(issue?.path, path, JSON.stringify(res.json));
      assert.match(issue?.reason ?? '', reason);
    }
    assert.deepEqual(await a.store.listClusters(), []);
  });

  test('an unregistered cluster is a 404', async () => {
    assert.equal((await api().call('GET', '/v1/clusters/nope')).status, 404);
  });
});

describe('routing', () => {
  test('an unknown route is a 404 and a known path with the wrong method a 405 naming the allowed ones', async () => {
    const a = api();
    assert.equal((await a.call('GET', '/v2/things')).status, 404);
    assert.equal((await a.call('POST', `${PATH}/launch`)).status, 404);
    const res = await a.call('POST', `${PATH}/history`);
    assert.equal(res.status, 405);
    assert.equal(res.headers.allow, 'GET');
    assert.equal((await a.call('PATCH', PATH)).headers.allow, 'PUT, GET, DELETE');
  });

  test('bad path and query parameters are 400s naming the parameter', async () => {
    const a = api();
    const bad = await a.call('GET', '/v1/rollouts/prod/Shop_1/web');
    assert.equal(bad.status, 400);
    assert.equal((bad.json.error as { issues: { path: string }[] }).issues[0]?.path, 'namespace');
    const hash = await a.call('GET', '/v1/rollouts/prod%23x/shop/web');
    assert.equal((hash.json.error as { issues: { path: string }[] }).issues[0]?.path, 'cluster');
    const encoding = await a.call('GET', '/v1/rollouts/prod/shop/%E0%A4%A');
    assert.equal(encoding.status, 400);
    const query = await a.call('GET', '/v1/rollouts', undefined, { query: { namespace: 'A B' } });
    assert.equal((query.json.error as { issues: { path: string }[] }).issues[0]?.path, 'namespace');
  });

  test('an unexpected failure is a 500 without details, reported to onError', async () => {
    const seen: unknown[] = [];
    const a = api({ onError: (err) => seen.push(err) });
    a.store.listRollouts = async () => {
      throw new TypeError('boom');
    };
    const res = await a.call('GET', '/v1/rollouts');
    assert.equal(res.status, 500);
    assert.doesNotMatch(res.body, /boom/);
    assert.equal(seen.length, 1);
  });
});
