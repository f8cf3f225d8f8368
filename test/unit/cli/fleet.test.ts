// `rollouts fleet …` and what it prints, against the real API core in memory (cliHarness.ts): apply,
// the verbs, list, status, history, and get drawing waves × clusters with each member's own reason.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FLEET_CLUSTERS, fleetDoc, fleetFixtureState } from '../../support/battery/fleetFixtures.ts';
import { harness, type Harness } from './cliHarness.ts';

const NO_OUTBOX = { history: [], events: [], memberCommands: [] };

async function fleetHarness(): Promise<Harness> {
  const h = harness();
  for (const c of FLEET_CLUSTERS) await h.api.store.putCluster({ name: c.name, endpoint: { server: `https://${c.name}` }, labels: c.labels, ...(c.timeZone ? { timeZone: c.timeZone } : {}) });
  h.files['fleet.yaml'] = JSON.stringify(fleetDoc('web'));
  return h;
}

describe('rollouts fleet', () => {
  test('apply creates, then reports unchanged, naming the clusters it selects', async () => {
    const h = await fleetHarness();
    assert.deepEqual(await h.cli('fleet', 'apply', '-f', 'fleet.yaml'), { code: 0, out: 'fleetrollout/web created (clusters: canary, eu-1, us-1)\n', err: '' });
    assert.deepEqual(await h.cli('fleet', 'apply', '-f', 'fleet.yaml'), { code: 0, out: 'fleetrollout/web unchanged (clusters: canary, eu-1, us-1)\n', err: '' });
    assert.deepEqual(h.requests, ['PUT /v1/fleets/web', 'PUT /v1/fleets/web']);
  });

  test('apply of an invalid FleetRollout prints each field and reason, and exits 1', async () => {
    const h = await fleetHarness();
    h.files['fleet.yaml'] = JSON.stringify(fleetDoc('web', { waves: [{ name: 'most', percent: 150 }, { name: 'rest' }] }));
    const r = await h.cli('fleet', 'apply', '-f', 'fleet.yaml');
    assert.equal(r.code, 1);
    assert.match(r.err, /^spec\.waves\[0\]\.percent: must be <= 100%$/m);
    assert.deepEqual(await h.api.store.listFleets(), []);
  });

  test('release records the images on the fleet; approve with nothing waiting is refused with the reason', async () => {
    const h = await fleetHarness();
    await h.cli('fleet', 'apply', '-f', 'fleet.yaml');
    assert.deepEqual(await h.cli('fleet', 'release', 'web', '--image', 'app=registry.invalid/app:v2'), { code: 0, out: 'fleet/web: release requested (app=registry.invalid/app:v2)\n', err: '' });
    const { state } = (await h.api.store.loadFleet('web')).state;
    assert.deepEqual(state.commands.map((c) => [c.type, c.type === 'release' ? c.change : null]), [['release', { type: 'images', images: { app: 'registry.invalid/app:v2' } }]]);
    const r = await h.cli('fleet', 'approve', 'web');
    assert.equal(r.code, 1);
    assert.match(r.err, /approve: no fleet release is waiting for approval/);
  });

  test('get draws the waves × clusters of the running release with each member\'s status and reason', async () => {
    const h = await fleetHarness();
    await h.cli('fleet', 'apply', '-f', 'fleet.yaml');
    await h.api.store.saveFleetState('web', { state: fleetFixtureState('running'), outbox: NO_OUTBOX }, 0);
    const r = await h.cli('fleet', 'get', 'web');
    assert.equal(r.code, 0, r.err);
    const lines = r.out.split('\n');
    assert.match(lines[0] ?? '', /^fleet\/web: Progressing: fleet release f1, wave 1\/2 "canary"/);
    assert.match(lines[1] ?? '', /^release f1 \(Progressing\): app=registry\.invalid\/app:v2$/);
    assert.match(lines[2] ?? '', /^WAVE\s+STATE\s+CLUSTER\s+STATUS\s+STEP\s+REASON$/);
    assert.match(lines[3] ?? '', /^1 canary\s+Releasing\s+canary\s+Releasing\s+-\s+\S/);
    assert.match(lines[4] ?? '', /^2 rest\s+Pending\s+eu-1\s+Waiting\s+-/);
    assert.match(lines[5] ?? '', /^2 rest\s+Pending\s+us-1\s+Waiting\s+-/);
    const json = await h.cli('fleet', 'get', 'web', '-o', 'json');
    assert.equal(JSON.parse(json.out).state.release.id, 'f1');
  });

  test('get --watch draws until the fleet release ends', async () => {
    const h = await fleetHarness();
    await h.cli('fleet', 'apply', '-f', 'fleet.yaml');
    await h.api.store.saveFleetState('web', { state: fleetFixtureState('running'), outbox: NO_OUTBOX }, 0);
    const done = { ...fleetFixtureState('running'), phase: 'Completed' as const, message: 'fleet release f1 completed', release: null, lastRelease: fleetFixtureState('running').release };
    h.onSleep = async () => {
      const current = await h.api.store.loadFleet('web');
      if (current.state.state.phase !== 'Completed') await h.api.store.saveFleetState('web', { state: done, outbox: NO_OUTBOX }, current.state.version);
    };
    const r = await h.cli('fleet', 'get', 'web', '--watch');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^fleet\/web: Progressing/);
    assert.match(r.out, /\nfleet\/web: Completed: fleet release f1 completed\n/);
  });

  test('list, status and history', async () => {
    const h = await fleetHarness();
    assert.deepEqual(await h.cli('fleet', 'list'), { code: 0, out: 'no fleets\n', err: '' });
    await h.cli('fleet', 'apply', '-f', 'fleet.yaml');
    const list = await h.cli('fleet', 'list');
    assert.equal(list.out, 'NAME  WORKLOAD                PHASE  RELEASE  MESSAGE\nweb   Deployment battery/web  Idle   -        -\n');
    assert.deepEqual(await h.cli('fleet', 'status', 'web'), { code: 0, out: 'fleet/web: Idle\n', err: '' });
    assert.deepEqual(await h.cli('fleet', 'history', 'web'), { code: 0, out: 'no history for fleet web\n', err: '' });
    await h.api.store.putFleetHistory('web', [{ releaseId: 'f1', seq: 100, at: '2030-01-01T00:00:00.000Z', type: 'Fleet Wave Started', phase: 'Progressing', stepIndex: null, message: 'wave 1/2 "canary" started', by: null, wave: 'canary', cluster: null }]);
    const history = await h.cli('fleet', 'history', 'web');
    assert.match(history.out, /^AT\s+RELEASE\s+EVENT\s+WAVE\s+CLUSTER\s+MESSAGE\n2030-01-01T00:00:00.000Z\s+f1\s+Fleet Wave Started\s+canary\s+-\s+wave 1\/2 "canary" started\n$/);
    const missing = await h.cli('fleet', 'status', 'nope');
    assert.deepEqual([missing.code, missing.err], [1, 'error: fleet nope not found\n']);
  });
});
