// PUT /v1/rollouts/{cluster}/{namespace}/{name}: validation, conditional store, enqueue, and that
// a refused request changes nothing.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import type { RolloutKey, RolloutSpec } from '../../../shared/rollout/types.ts';
import { KEY, PATH, api, awaitingApproval, rolloutDoc, seedRollout, seedState, type Api } from './apiFixtures.ts';
import { MemoryCluster } from '../../support/fakes/memoryCluster.ts';

async function assertNothingChanged(a: Api): Promise<void> {
  assert.deepEqual(await a.store.listRollouts(), []);
  assert.equal((await a.store.load(KEY)).spec, null);
  assert.deepEqual(a.queue.sent, []);
}

describe('apply', () => {
  test('a new Rollout is stored, queued for reconcile, and answered 201 with the normalised spec', async () => {
    const a = api();
    const res = await a.call('PUT', PATH, rolloutDoc());
    assert.equal(res.status, 201);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.deepEqual(res.json.rollout, KEY);
    assert.equal(res.json.specVersion, 1);
    assert.equal(res.json.unchanged, false);
    const spec = res.json.spec as RolloutSpec;
    assert.deepEqual(spec.steps[0], { replicas: 1, pause: { type: 'approval' } });
    const stored = await a.store.load(KEY);
    assert.deepEqual(stored.spec?.document, rolloutDoc());
    assert.deepEqual(a.queue.sent, [{ key: KEY, delaySeconds: 0, reason: 'api' }]);
  });

  test('a changed Rollout replaces the stored one (200, next specVersion)', async () => {
    const a = api();
    await a.call('PUT', PATH, rolloutDoc());
    const res = await a.call('PUT', PATH, rolloutDoc({ steps: [{ replicas: '100%' }] }));
    assert.equal(res.status, 200);
    assert.equal(res.json.specVersion, 2);
    assert.equal((await a.store.load(KEY)).spec?.spec.steps.length, 1);
  });

  test('a stored spec (new or changed) is announced to the watch catalogue; an unchanged one is not', async () => {
    const stored: string[] = [];
    const a = api({ onSpecStored: (key) => stored.push(key.name) });
    const doc = rolloutDoc();
    assert.equal((await a.call('PUT', PATH, doc)).status, 201);
    assert.equal((await a.call('PUT', PATH, doc)).status, 200);
    assert.deepEqual(stored, ['web']);
  });

  test('applying the same document again writes nothing but still queues a reconcile', async () => {
    const a = api();
    await a.call('PUT', PATH, rolloutDoc());
    const res = await a.call('PUT', PATH, rolloutDoc());
    assert.equal(res.status, 200);
    assert.equal(res.json.unchanged, true);
    assert.equal(res.json.specVersion, 1);
    assert.equal(a.queue.sent.length, 2);
  });

  test('the document may come as {"yaml": "..."} or as a raw YAML body', async () => {
    const a = api();
    assert.equal((await a.call('PUT', PATH, { yaml: stringify(rolloutDoc()) })).status, 201);
    const raw = await a.call('PUT', PATH, stringify(rolloutDoc({ steps: [{ replicas: '100%' }] })), { headers: { 'content-type': 'application/yaml' } });
    assert.equal(raw.status, 200);
    assert.equal(raw.json.specVersion, 2);
  });

  test('a YAML body with two documents is a 400 naming the yaml field', async () => {
    const a = api();
    const res = await a.call('PUT', PATH, { yaml: `${stringify(rolloutDoc())}---\n${stringify(rolloutDoc())}` });
    assert.equal(res.status, 400);
    assert.deepEqual(res.json.error, { message: 'invalid request: yaml: must hold exactly one YAML document (found 2)', issues: [{ path: 'yaml', reason: 'must hold exactly one YAML document (found 2)' }] });
    await assertNothingChanged(a);
  });

  test('malformed JSON is a 400 that changes nothing', async () => {
    const a = api();
    const res = await a.call('PUT', PATH, '{"apiVersion": ');
    assert.equal(res.status, 400);
    const error = res.json.error as { issues: { path: string; reason: string }[] };
    assert.equal(error.issues[0]?.path, '(body)');
    assert.match(error.issues[0]?.reason ?? '', /^malformed JSON/);
    await assertNothingChanged(a);
  });

  test('an invalid Rollout is a 422 listing every field and reason, and changes nothing', async () => {
    const a = api();
    const res = await a.call('PUT', PATH, rolloutDoc({ steps: [{ replicas: 'lots' }] }));
    assert.equal(res.status, 422);
    const error = res.json.error as { message: string; issues: { path: string; reason: string }[] };
    assert.ok(error.issues.some((i) => i.path === 'spec.strategy.canary.steps[0].replicas'), JSON.stringify(error.issues));
    await assertNothingChanged(a);
  });

  test('a workload kind without a driver is refused with "not supported yet"', async () => {
    const a = api();
    const res = await a.call('PUT', PATH, rolloutDoc({ kind: 'StatefulSet' }));
    assert.equal(res.status, 422);
    assert.deepEqual((res.json.error as { issues: unknown }).issues, [{ path: 'spec.workloadRef.kind', reason: 'not supported yet' }]);
    await assertNothingChanged(a);
  });

  test('a Kruise Rollout with traffic routing on a Deployment is accepted; on another kind it is refused until a release can run it, naming the field', async () => {
    const a = api();
    const doc = rolloutDoc({ steps: [{ replicas: 1, traffic: '10%' }, { replicas: '100%' }] });
    Object.assign((doc.spec as { strategy: { canary: Record<string, unknown> } }).strategy.canary, { trafficRoutings: [{ service: 'web', gateway: { httpRouteName: 'web' } }] });
    const res = await a.call('PUT', PATH, doc);
    assert.equal(res.status, 201);
    assert.deepEqual((res.json.spec as RolloutSpec).trafficRouting, { service: 'web', gracePeriodSeconds: 3, provider: { type: 'gateway', httpRouteName: 'web' } });

    const other = api({ supportedKinds: ['Deployment', 'StatefulSet'] });
    const cloneSet = rolloutDoc({ kind: 'StatefulSet', steps: [{ replicas: 1, traffic: '10%' }, { replicas: '100%' }] });
    Object.assign((cloneSet.spec as { strategy: { canary: Record<string, unknown> } }).strategy.canary, { trafficRoutings: [{ service: 'web', gateway: { httpRouteName: 'web' } }] });
    const refused = await other.call('PUT', PATH, cloneSet);
    assert.equal(refused.status, 422);
    assert.deepEqual((refused.json.error as { issues: unknown }).issues, [{
      path: 'spec.strategy.canary.trafficRoutings',
      reason: 'is valid, but serverless-rollouts cannot run it yet (docs/traffic.md): traffic routing through HTTPRoute web for a StatefulSet (a Deployment\'s release can)',
    }]);
    await assertNothingChanged(other);
  });

  test('the traffic routing cannot change while a release is in progress', async () => {
    const a = api();
    await seedRollout(a);
    await seedState(a, awaitingApproval());
    const doc = rolloutDoc({ steps: [{ replicas: 1, traffic: '10%' }, { replicas: '50%' }, { replicas: '100%' }] });
    Object.assign((doc.spec as { strategy: { canary: Record<string, unknown> } }).strategy.canary, { trafficRoutings: [{ service: 'web', gateway: { httpRouteName: 'web' } }] });
    const res = await a.call('PUT', PATH, doc);
    assert.equal(res.status, 422);
    assert.deepEqual((res.json.error as { issues: unknown }).issues, [{ path: 'spec.strategy.canary.trafficRoutings', reason: 'cannot change while a release is in progress (abort it or wait until it ends)' }]);
  });

  test('a router that cannot do what a step asks is refused on its field (ingress-nginx matches one header)', async () => {
    const a = api();
    const doc = rolloutDoc({ steps: [{ replicas: 1, matches: [{ headers: [{ name: 'a', value: '1' }, { name: 'b', value: '2' }] }] }, { replicas: '100%' }] });
    Object.assign((doc.spec as { strategy: { canary: Record<string, unknown> } }).strategy.canary, { trafficRoutings: [{ service: 'web', ingress: { name: 'web' } }] });
    const res = await a.call('PUT', PATH, doc);
    assert.equal(res.status, 422);
    assert.deepEqual((res.json.error as { issues: { path: string }[] }).issues.map((i) => i.path), ['spec.strategy.canary.steps[0].matches[0].headers']);
    await assertNothingChanged(a);
  });

  test('the document must name the rollout and namespace of the URL', async () => {
    const a = api();
    const res = await a.call('PUT', PATH, rolloutDoc({ name: 'api', namespace: 'other' }));
    assert.equal(res.status, 422);
    assert.deepEqual((res.json.error as { issues: { path: string }[] }).issues.map((i) => i.path), ['metadata.name', 'metadata.namespace']);
    await assertNothingChanged(a);
  });

  test('when clusters must be registered, an unknown cluster is a 404 on "cluster"', async () => {
    const a = api({ requireRegisteredCluster: true });
    const res = await a.call('PUT', PATH, rolloutDoc());
    assert.equal(res.status, 404);
    assert.equal((res.json.error as { issues: { path: string }[] }).issues[0]?.path, 'cluster');
    await assertNothingChanged(a);
    await a.store.putCluster({ name: 'prod', eks: { clusterName: 'prod', region: 'eu-west-1' } });
    assert.equal((await a.call('PUT', PATH, rolloutDoc())).status, 201);
  });

  test('an API that serves named clusters only (local mode) answers 404 for any other, and stores nothing', async () => {
    const a = api({ clusterNames: ['local'] });
    const res = await a.call('PUT', PATH, rolloutDoc());
    assert.equal(res.status, 404);
    assert.match(String((res.json.error as { message: string }).message), /cluster "prod" is not registered \(this API serves "local"\)/);
    await assertNothingChanged(a);
  });

  test('a body over the limit is a 413 before anything is parsed', async () => {
    const a = api({ maxBodyBytes: 100 });
    const res = await a.call('PUT', PATH, `{"x": "${'é'.repeat(60)}"}`);
    assert.equal(res.status, 413);
    assert.match((res.json.error as { message: string }).message, /limit is 100/);
    await assertNothingChanged(a);
  });

  test('a concurrent apply that wrote first makes this one a 409, not a lost update', async () => {
    const a = api();
    await a.call('PUT', PATH, rolloutDoc());
    const putSpec = a.store.putSpec.bind(a.store);
    a.store.putSpec = async (key: RolloutKey, spec: RolloutSpec, doc: unknown, expected: number) => {
      await putSpec(key, spec, doc, expected); // the other writer
      return putSpec(key, spec, doc, expected);
    };
    const res = await a.call('PUT', PATH, rolloutDoc({ steps: [{ replicas: '100%' }] }));
    assert.equal(res.status, 409);
    assert.match((res.json.error as { message: string }).message, /not at specVersion 1/);
  });

  test('the workload cannot be swapped while a release is in progress', async () => {
    const a = api();
    await seedRollout(a);
    await seedState(a, awaitingApproval());
    const doc = rolloutDoc();
    (doc.spec as { workloadRef: { name: string } }).workloadRef.name = 'other';
    const res = await a.call('PUT', PATH, doc);
    assert.equal(res.status, 422);
    assert.equal((res.json.error as { issues: { path: string }[] }).issues[0]?.path, 'spec.workloadRef');
  });

  test('the number of steps cannot change while a release is in progress; their replicas and pauses can', async () => {
    const a = api();
    await seedRollout(a);
    await seedState(a, awaitingApproval());
    const fewer = await a.call('PUT', PATH, rolloutDoc({ steps: [{ replicas: 1 }, { replicas: '100%' }] }));
    assert.equal(fewer.status, 422);
    assert.deepEqual((fewer.json.error as { issues: unknown }).issues, [{ path: 'spec.strategy.canary.steps', reason: 'the number of steps (3) cannot change while a release is in progress' }]);
    const tuned = await a.call('PUT', PATH, rolloutDoc({ steps: [{ replicas: 2, pause: {} }, { replicas: '60%', pause: { duration: 30 } }, { replicas: '100%' }] }));
    assert.equal(tuned.status, 200);
  });

  test('when queueing fails the spec is kept and the answer is a 503 saying a retry is safe', async () => {
    const a = api();
    a.queue.failWith = new Error('SQS down');
    const res = await a.call('PUT', PATH, rolloutDoc());
    assert.equal(res.status, 503);
    assert.match((res.json.error as { message: string }).message, /repeating the request is safe/);
    assert.equal((await a.store.load(KEY)).spec?.specVersion, 1);
    a.queue.failWith = null;
    const retry = await a.call('PUT', PATH, rolloutDoc());
    assert.deepEqual([retry.status, retry.json.unchanged, a.queue.sent.length], [200, true, 1]);
  });
});

describe('apply checks the workload it is given', () => {
  const deployment = (strategy: Record<string, unknown>, annotations: Record<string, string> = {}) => ({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop', annotations },
    spec: { replicas: 3, strategy, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'web:v1' }] } } },
  });

  test('a Deployment on strategy Recreate is refused (422 naming spec.workloadRef and why), and nothing is stored', async () => {
    const cluster = new MemoryCluster();
    cluster.put(deployment({ type: 'Recreate' }));
    const a = api({ clusters: { client: async () => cluster } });
    const res = await a.call('PUT', PATH, rolloutDoc());
    assert.equal(res.status, 422);
    const issues = (res.json.error as { issues: { path: string; reason: string }[] }).issues;
    assert.deepEqual(issues.map((i) => i.path), ['spec.workloadRef']);
    assert.match(issues[0]?.reason ?? '', /Deployment shop\/web has spec\.strategy\.type Recreate.*batches need RollingUpdate/);
    await assertNothingChanged(a);
  });

  test('RollingUpdate passes, so does a Partition release in flight (Recreate only while it holds the user\'s strategy), and a Deployment not created yet', async () => {
    const cluster = new MemoryCluster();
    const a = api({ clusters: { client: async () => cluster } });
    assert.equal((await a.call('PUT', PATH, rolloutDoc())).status, 201, 'not there yet: the reconcile reports it');
    cluster.put(deployment({ type: 'Recreate' }, { 'rollouts.serverless-rollouts.io/original-strategy': '{"type":"RollingUpdate"}' }));
    assert.equal((await a.call('PUT', PATH, rolloutDoc({ steps: [{ replicas: '100%' }] }))).status, 200);
  });

  test('a second Rollout for the same workload is refused (409 naming the first) and changes nothing', async () => {
    const a = api();
    assert.equal((await a.call('PUT', PATH, rolloutDoc())).status, 201);
    const other = { ...rolloutDoc({ name: 'web-again' }) };
    const res = await a.call('PUT', '/v1/rollouts/prod/shop/web-again', other);
    assert.equal(res.status, 409);
    assert.match(String((res.json.error as { message: string }).message), /Deployment shop\/web is already managed by rollout web/);
    assert.equal((await a.store.load({ ...KEY, name: 'web-again' })).spec, null);
    assert.deepEqual(await a.store.listRollouts(), [KEY]);
  });
});
