// DELETE /v1/clusters/<name> (rollouts clusters deregister) through the real routes and the
// in-memory store: a cluster never leaves a workload held. Refused (409, naming the member and why)
// while a fleet member there is mid-release or a Rollout no fleet owns is there, nothing changed;
// deleted at once when nothing is stored; otherwise marked leaving, fleets no longer select it,
// no rollout may be applied to it, and the removal of its last member deletes the registration.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { denial, type AuthorizationPolicy } from '../../../shared/api/authorization.ts';
import { memberSpec } from '../../../shared/fleet/member.ts';
import { parseFleetRollout } from '../../../shared/fleet/parse.ts';
import { initialState } from '../../../shared/rollout/state.ts';
import type { ReleaseState } from '../../../shared/rollout/types.ts';
import { finishLeaving } from '../../../shared/reconcile/clusterLeave.ts';
import type { ReconcileDeps } from '../../../shared/reconcile/deps.ts';
import { FLEET_CLUSTERS, fleetDoc } from '../../support/battery/fleetFixtures.ts';
import { ALICE, api, release, rolloutDoc, type Api } from './apiFixtures.ts';

const MEMBER = { cluster: 'eu-1', namespace: 'battery', name: 'web' };

async function fleetWithMember(state: ReleaseState): Promise<Api> {
  const a = api();
  for (const c of FLEET_CLUSTERS) await a.call('PUT', `/v1/clusters/${c.name}`, { endpoint: { server: `https://${c.name}.example` }, labels: c.labels });
  await a.call('PUT', '/v1/fleets/web', fleetDoc('web'));
  await a.store.putSpec(MEMBER, memberSpec(parseFleetRollout(fleetDoc('web')), FLEET_CLUSTERS[1]!, 'rest'), null, 0);
  await a.store.saveState(MEMBER, { state, outbox: { history: [], events: [] } }, 0);
  a.queue.clear();
  return a;
}

const atRest = (): ReleaseState => ({ ...initialState(), phase: 'Healthy', stableRevision: 'rev-a' });
const midRelease = (): ReleaseState => ({ ...atRest(), phase: 'Progressing', message: 'step 1/2: upgrading', release: release({ permit: { id: 'p1', fleet: 'web', fleetRelease: 'f1@2030-01-01T00:00:00.000Z' } }) });

describe('DELETE /v1/clusters/<name>', () => {
  it('is refused while a fleet member there is mid-release, naming it and why, and changes nothing', async () => {
    const a = await fleetWithMember(midRelease());
    const before = JSON.stringify([await a.store.listClusters(), await a.store.load(MEMBER)]);
    const res = await a.call('DELETE', '/v1/clusters/eu-1');
    assert.equal(res.status, 409, JSON.stringify(res.json));
    const issues = (res.json.error as { issues: { path: string; reason: string }[] }).issues;
    assert.deepEqual(issues.map((i) => i.path), ['name']);
    assert.match(issues[0]!.reason, /^fleet web's member battery\/web in cluster eu-1 is mid-release: a release of revision rev-b is in flight \(Progressing: step 1\/2: upgrading\)/);
    assert.equal(JSON.stringify([await a.store.listClusters(), await a.store.load(MEMBER)]), before);
    assert.deepEqual(a.queue.keys(), []);
  });

  it('is refused while a Rollout no fleet owns is there', async () => {
    const a = api();
    await a.call('PUT', '/v1/clusters/prod', { endpoint: { server: 'https://prod.example' } });
    await a.call('PUT', '/v1/rollouts/prod/shop/web', rolloutDoc());
    const res = await a.call('DELETE', '/v1/clusters/prod');
    assert.equal(res.status, 409);
    assert.match((res.json.error as { message: string }).message, /rollout shop\/web, which no fleet owns: delete it first/);
    assert.ok(await a.store.getCluster('prod'));
  });

  it('deletes a cluster with nothing stored at once; an unknown one is a 404', async () => {
    const a = api();
    await a.call('PUT', '/v1/clusters/spare', { endpoint: { server: 'https://spare.example' } });
    const res = await a.call('DELETE', '/v1/clusters/spare');
    assert.deepEqual([res.status, res.json], [200, { cluster: 'spare', deregistered: true, handingBack: [] }]);
    assert.equal(await a.store.getCluster('spare'), null);
    assert.equal((await a.call('DELETE', '/v1/clusters/spare')).status, 404);
  });

  it('marks a cluster whose members are at rest leaving: fleets stop selecting it, no rollout may be applied, and the last removal deletes it', async () => {
    const a = await fleetWithMember(atRest());
    const res = await a.call('DELETE', '/v1/clusters/eu-1');
    assert.equal(res.status, 202, JSON.stringify(res.json));
    assert.deepEqual([res.json.deregistered, res.json.handingBack], [false, [MEMBER]]);
    assert.deepEqual((await a.store.getCluster('eu-1'))?.leaving, { since: a.clock.now().toISOString(), by: ALICE });
    assert.deepEqual(a.queue.keys(), ['F#web', 'eu-1/battery/web'], 'the fleet looks again (its member leaves), and the member');
    // A fleet applied now does not count it.
    const applied = await a.call('PUT', '/v1/fleets/web', fleetDoc('web', { maxFailures: 1 }));
    assert.deepEqual(applied.json.clusters, ['canary', 'us-1']);
    const refused = await a.call('PUT', '/v1/rollouts/eu-1/shop/api', rolloutDoc({ name: 'api' }));
    assert.equal(refused.status, 409);
    assert.match((refused.json.error as { issues: { path: string; reason: string }[] }).issues[0]!.reason, /^cluster "eu-1" is being deregistered/);
    // The member hands its workload back and is forgotten: its cluster goes with it.
    const deps = { store: a.store } as unknown as ReconcileDeps;
    await finishLeaving(deps, 'eu-1');
    assert.ok(await a.store.getCluster('eu-1'), 'kept while a rollout is stored for it');
    await a.store.deleteRollout(MEMBER);
    await finishLeaving(deps, 'eu-1');
    assert.equal(await a.store.getCluster('eu-1'), null);
  });

  it('local mode with several clusters (clusterNames and registrations): a deregistered one takes no rollout until registered again', async () => {
    const a = api({ clusterNames: ['c1', 'c2'], requireRegisteredCluster: true });
    for (const c of ['c1', 'c2']) await a.call('PUT', `/v1/clusters/${c}`, { endpoint: { server: `https://${c}.example` } });
    assert.equal((await a.call('DELETE', '/v1/clusters/c2')).status, 200);
    const refused = await a.call('PUT', '/v1/rollouts/c2/shop/web', rolloutDoc());
    assert.equal(refused.status, 404);
    assert.match((refused.json.error as { message: string }).message, /^cluster "c2" is not registered \(PUT \/v1\/clusters\/c2 first\)$/);
    assert.equal((await a.call('PUT', '/v1/rollouts/c1/shop/web', rolloutDoc())).status, 201);
  });

  it('a PUT while it leaves keeps the cluster', async () => {
    const a = await fleetWithMember(atRest());
    await a.call('DELETE', '/v1/clusters/eu-1');
    await a.call('PUT', '/v1/clusters/eu-1', { endpoint: { server: 'https://eu-1.example' }, labels: FLEET_CLUSTERS[1]!.labels });
    assert.equal((await a.store.getCluster('eu-1'))?.leaving, undefined);
  });

  it('is its own verb in the authorization policy, scoped to the cluster', () => {
    const policy: AuthorizationPolicy = { fourEyes: false, rules: [{ principals: [ALICE], verbs: ['registerCluster'], clusters: ['eu-*'], namespaces: ['*'] }] };
    assert.match(denial(policy, ALICE, 'deregisterCluster', { cluster: 'eu-1' }) ?? '', /may not deregisterCluster in cluster "eu-1"/);
    const allowed: AuthorizationPolicy = { ...policy, rules: [{ ...policy.rules[0]!, verbs: ['deregisterCluster'] }] };
    assert.equal(denial(allowed, ALICE, 'deregisterCluster', { cluster: 'eu-1' }), null);
    assert.match(denial(allowed, ALICE, 'deregisterCluster', { cluster: 'us-1' }) ?? '', /may not deregisterCluster in cluster "us-1"/);
  });
});
