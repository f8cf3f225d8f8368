// The fleet routes of the API (shared/api/fleetRoutes.ts) against the in-memory store: the 59 fleet
// cases of the bad-input battery through the real routes (each answered with its status, field and
// reason, and nothing changed), the happy paths, a member Rollout that only its fleet may change,
// and the authorization on the fleet and on each member's cluster and namespace.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AuthorizationPolicy } from '../../../shared/api/authorization.ts';
import { memberSpec } from '../../../shared/fleet/member.ts';
import { parseFleetRollout } from '../../../shared/fleet/parse.ts';
import { FLEET_BATTERY } from '../../support/battery/fleetCases.ts';
import { FLEET_CLUSTERS, FLEET_FIXTURES, fleetDoc, fleetFixtureState } from '../../support/battery/fleetFixtures.ts';
import { ALICE, api, type Api } from './apiFixtures.ts';

const NO_OUTBOX = { history: [], events: [], memberCommands: [] };

async function register(a: Api): Promise<void> {
  for (const c of FLEET_CLUSTERS) {
    const res = await a.call('PUT', `/v1/clusters/${c.name}`, { endpoint: { server: `https://${c.name}.example` }, labels: c.labels, ...(c.timeZone ? { timeZone: c.timeZone } : {}) });
    assert.equal(res.status, 201, JSON.stringify(res.json));
  }
}

/** The battery's set-up through the API: the clusters, and each fixture fleet in its state (as its passes would have left it). */
async function batteryApi(): Promise<Api> {
  const a = api();
  await register(a);
  for (const fixture of FLEET_FIXTURES) {
    const res = await a.call('PUT', `/v1/fleets/${fixture}`, fleetDoc(fixture));
    assert.equal(res.status, 201, JSON.stringify(res.json));
    await a.store.saveFleetState(fixture, { state: fleetFixtureState(fixture), outbox: NO_OUTBOX }, 0);
  }
  return a;
}

/** Everything a bad request could have changed. */
async function snapshot(a: Api): Promise<unknown> {
  const fleets = await a.store.listFleets();
  return JSON.parse(JSON.stringify({
    clusters: await a.store.listClusters(),
    fleets: await Promise.all([...fleets, 'web'].map(async (n) => ({ n, f: await a.store.loadFleet(n) }))),
  }));
}

describe('the fleet cases of the bad-input battery, through the API', () => {
  it('answers each case with its status, the field and the reason, and changes nothing', async () => {
    const a = await batteryApi();
    for (const c of FLEET_BATTERY) {
      const before = await snapshot(a);
      const res = await a.call(c.method, c.path, c.body);
      const label = `${c.category}: ${c.name}`;
      assert.equal(res.status, c.status, `${label}: ${JSON.stringify(res.json)}`);
      const issues = (res.json.error as { issues?: { path: string; reason: string }[] }).issues ?? [];
      const named = issues.filter((i) => i.path === c.field);
      assert.ok(named.some((i) => c.reason.test(i.reason)), `${label}: no issue at ${c.field} matching ${c.reason}: ${JSON.stringify(issues)}`);
      assert.deepEqual(await snapshot(a), before, `${label}: something changed`);
    }
    assert.ok(FLEET_BATTERY.length >= 30);
  });
});

describe('fleet routes', () => {
  it('apply creates (201), an identical apply is unchanged (200), and each queues the fleet\'s pass', async () => {
    const a = api();
    await register(a);
    const created = await a.call('PUT', '/v1/fleets/web', fleetDoc('web'));
    assert.equal(created.status, 201);
    assert.deepEqual(created.json, { fleet: 'web', specVersion: 1, unchanged: false, clusters: ['canary', 'eu-1', 'us-1'] });
    const again = await a.call('PUT', '/v1/fleets/web', fleetDoc('web'));
    assert.deepEqual([again.status, again.json.unchanged], [200, true]);
    assert.deepEqual(a.queue.keys(), ['F#web', 'F#web']);
  });

  it('registering or relabelling a cluster queues each fleet\'s pass (a cluster may join or leave)', async () => {
    const a = api();
    await register(a);
    await a.call('PUT', '/v1/fleets/web', fleetDoc('web'));
    a.queue.clear();
    assert.equal((await a.call('PUT', '/v1/clusters/ap-1', { endpoint: { server: 'https://ap-1.example' }, labels: { env: 'prod' } })).status, 201);
    assert.deepEqual(a.queue.keys(), ['F#web']);
  });

  it('a document whose name is not the URL\'s is refused, and so is a workload change', async () => {
    const a = api();
    await register(a);
    assert.equal((await a.call('PUT', '/v1/fleets/other', fleetDoc('web'))).status, 422);
    await a.call('PUT', '/v1/fleets/web', fleetDoc('web'));
    const res = await a.call('PUT', '/v1/fleets/web', fleetDoc('web', { workload: { namespace: 'battery', kind: 'Deployment', name: 'api' } }));
    assert.equal(res.status, 422);
    assert.equal((res.json.error as { issues: { path: string }[] }).issues[0]?.path, 'spec.workload');
  });

  it('get, list and history read what the passes stored; an unknown fleet is a 404', async () => {
    const a = api();
    await register(a);
    await a.call('PUT', '/v1/fleets/web', fleetDoc('web'));
    const got = await a.call('GET', '/v1/fleets/web');
    assert.equal(got.status, 200);
    assert.deepEqual([got.json.fleet, got.json.specVersion, (got.json.state as { phase: string }).phase, got.json.members], ['web', 1, 'Idle', []]);
    const list = await a.call('GET', '/v1/fleets');
    assert.deepEqual(list.json, { fleets: [{ name: 'web', workload: { namespace: 'battery', kind: 'Deployment', apiVersion: 'apps/v1', name: 'web' }, phase: 'Idle', message: '', releaseId: null }] });
    assert.deepEqual((await a.call('GET', '/v1/fleets/web/history')).json, { fleet: 'web', history: [] });
    assert.equal((await a.call('GET', '/v1/fleets/nope')).status, 404);
  });

  it('a release is recorded once by its commandId and queues the fleet\'s pass; a repeat answers duplicate', async () => {
    const a = api();
    await register(a);
    await a.call('PUT', '/v1/fleets/web', fleetDoc('web'));
    const res = await a.call('POST', '/v1/fleets/web/release', { images: { app: 'registry.invalid/app:v2' }, commandId: 'ship-v2' });
    assert.equal(res.status, 202, JSON.stringify(res.json));
    assert.deepEqual((res.json.command as { change: unknown }).change, { type: 'images', images: { app: 'registry.invalid/app:v2' } });
    const dup = await a.call('POST', '/v1/fleets/web/release', { images: { app: 'registry.invalid/app:v2' }, commandId: 'ship-v2' });
    assert.deepEqual([dup.status, dup.json.duplicate], [200, true]);
    const { state } = (await a.store.loadFleet('web')).state;
    assert.deepEqual(state.commands.map((c) => [c.id, c.type, c.by]), [['ship-v2', 'release', ALICE]]);
    assert.equal(a.queue.keys().at(-1), 'F#web');
  });

  it('delete asks each member to go and removes the fleet; refused while a fleet release runs', async () => {
    const a = api();
    await register(a);
    await a.call('PUT', '/v1/fleets/running', fleetDoc('running'));
    await a.store.saveFleetState('running', { state: fleetFixtureState('running'), outbox: NO_OUTBOX }, 0);
    const refused = await a.call('DELETE', '/v1/fleets/running');
    assert.equal(refused.status, 409);
    assert.match((refused.json.error as { message: string }).message, /fleet release f1 is in progress: abort it/);

    await a.call('PUT', '/v1/fleets/web', fleetDoc('web'));
    const spec = parseFleetRollout(fleetDoc('web'));
    const eu = FLEET_CLUSTERS[1]!;
    await a.store.putSpec({ cluster: 'eu-1', namespace: 'battery', name: 'web' }, memberSpec(spec, eu, 'rest'), null, 0);
    const res = await a.call('DELETE', '/v1/fleets/web');
    assert.equal(res.status, 202, JSON.stringify(res.json));
    assert.deepEqual(res.json.members, ['eu-1']);
    assert.deepEqual((await a.store.load({ cluster: 'eu-1', namespace: 'battery', name: 'web' })).state.state.commands.map((c) => c.type), ['delete']);
    assert.deepEqual(await a.store.listFleets(), ['running']);
  });
});

describe('a member Rollout is its fleet\'s', () => {
  async function withMember(): Promise<Api> {
    const a = api();
    await register(a);
    const spec = parseFleetRollout(fleetDoc('web'));
    await a.store.putSpec({ cluster: 'eu-1', namespace: 'battery', name: 'web' }, memberSpec(spec, FLEET_CLUSTERS[1]!, 'rest'), null, 0);
    await a.store.saveState({ cluster: 'eu-1', namespace: 'battery', name: 'web' }, { state: { ...(await a.store.load({ cluster: 'eu-1', namespace: 'battery', name: 'web' })).state.state, phase: 'Healthy', stableRevision: 'rev-a' }, outbox: { history: [], events: [] } }, 0);
    return a;
  }
  const PATH = '/v1/rollouts/eu-1/battery/web';
  const doc = { apiVersion: 'rollouts.kruise.io/v1beta1', kind: 'Rollout', metadata: { name: 'web' }, spec: { workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, strategy: { canary: { steps: [{ replicas: '100%' }] } } } };

  it('refuses apply, delete, release and undo (409, naming the fleet), and changes nothing', async () => {
    const a = await withMember();
    const before = JSON.stringify(await a.store.load({ cluster: 'eu-1', namespace: 'battery', name: 'web' }));
    for (const [method, path, body] of [['PUT', PATH, doc], ['DELETE', PATH, {}], ['POST', `${PATH}/release`, { images: { app: 'registry.invalid/app:v3' } }], ['POST', `${PATH}/undo`, {}]] as const) {
      const res = await a.call(method, path, body);
      assert.equal(res.status, 409, `${method} ${path}: ${JSON.stringify(res.json)}`);
      assert.match((res.json.error as { message: string }).message, /owned by fleet web; change the FleetRollout/);
    }
    assert.equal(JSON.stringify(await a.store.load({ cluster: 'eu-1', namespace: 'battery', name: 'web' })), before);
  });

  it('apply of a fleet over a Rollout of that name that no fleet owns is refused, naming the cluster', async () => {
    const a = api();
    await register(a);
    await a.call('PUT', '/v1/rollouts/us-1/battery/web', doc);
    const res = await a.call('PUT', '/v1/fleets/web', fleetDoc('web'));
    assert.equal(res.status, 409);
    assert.match((res.json.error as { message: string }).message, /exists in cluster us-1: delete it first/);
    assert.deepEqual(await a.store.listFleets(), []);
  });
});

describe('fleet authorization', () => {
  const policy = (rules: AuthorizationPolicy['rules']): AuthorizationPolicy => ({ rules, fourEyes: true });

  it('a fleet verb needs the verb on the fleet and on each member\'s cluster and namespace', async () => {
    const onFleet = { principals: [ALICE], verbs: ['read' as const, 'apply' as const, 'release' as const], clusters: ['fleet:web'], namespaces: ['*'] };
    const onEu = { principals: [ALICE], verbs: ['apply' as const, 'release' as const], clusters: ['canary', 'eu-1'], namespaces: ['battery'] };
    const reg = { principals: [ALICE], verbs: ['registerCluster' as const], clusters: ['*'], namespaces: ['*'] };
    const a = api({ authorization: policy([onFleet, onEu, reg]) });
    await register(a);
    const res = await a.call('PUT', '/v1/fleets/web', fleetDoc('web'));
    assert.equal(res.status, 403);
    assert.match((res.json.error as { message: string }).message, /may not apply in cluster "us-1", namespace "battery".*acts on its member there/);
    assert.deepEqual(await a.store.listFleets(), []);
    const other = await a.call('PUT', '/v1/fleets/api', fleetDoc('api'));
    assert.equal(other.status, 403, 'apply on another fleet needs a rule for that fleet');
  });

  it('four eyes: the principal that requested a fleet release may not approve its wave', async () => {
    const all = { principals: [ALICE], verbs: ['*' as const], clusters: ['*'], namespaces: ['*'] };
    const a = api({ authorization: policy([all]) });
    await register(a);
    await a.call('PUT', '/v1/fleets/waiting', fleetDoc('waiting'));
    const state = fleetFixtureState('waiting');
    await a.store.saveFleetState('waiting', { state: { ...state, release: state.release && { ...state.release, requestedBy: ALICE } }, outbox: NO_OUTBOX }, 0);
    const res = await a.call('POST', '/v1/fleets/waiting/approve', {});
    assert.equal(res.status, 403);
    assert.match((res.json.error as { message: string }).message, /four-eyes rule/);
    assert.deepEqual((await a.store.loadFleet('waiting')).state.state.commands, []);
  });
});
