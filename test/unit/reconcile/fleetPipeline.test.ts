// The fleet pass in the pipeline (shared/reconcile/fleet/reconcileFleet.ts) over the in-memory store
// and three in-memory clusters: it creates the member Rollouts it owns, sends permits through its
// outbox exactly once (a crash between the STATE write and the flush replays it), members' own
// passes ask for their fleet's, and a cluster that leaves the selection has its member asked to go.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseFleetRollout } from '../../../shared/fleet/parse.ts';
import { memberKey } from '../../../shared/fleet/member.ts';
import { queueKeyString, type QueueKey } from '../../../shared/fleet/key.ts';
import { FLEET_EVENT } from '../../../shared/fleet/events.ts';
import { reconcile } from '../../../shared/reconcile/reconcile.ts';
import { reconcileFleet } from '../../../shared/reconcile/fleet/reconcileFleet.ts';
import type { ReconcileDeps } from '../../../shared/reconcile/deps.ts';
import type { ReconcileQueue } from '../../../shared/ports.ts';
import { fleetDocument } from '../../support/sim/fleetSim.ts';
import { MemoryStateStore } from '../../support/fakes/memoryStateStore.ts';
import { Pipeline, dieAt } from './pipelineFixtures.ts';
import { reconcileWorker } from '../../../shared/local/adapters.ts';

const CLUSTERS = ['c1', 'c2', 'c3'];

class RecordingQueue implements ReconcileQueue {
  readonly sent: string[] = [];
  async enqueue(key: QueueKey): Promise<void> {
    this.sent.push(queueKeyString(key));
  }
}

async function fleetBed() {
  const clock = { now: () => new Date('2026-11-30T10:00:00.000Z') };
  const store = new MemoryStateStore({ clock });
  const planes = new Map<string, Pipeline>();
  for (const c of CLUSTERS) planes.set(c, await Pipeline.start({ spec: false, store }));
  await store.putCluster({ name: 'c1', endpoint: { server: 'https://c1' }, labels: { env: 'prod', ring: 'canary' } });
  await store.putCluster({ name: 'c2', endpoint: { server: 'https://c2' }, labels: { env: 'prod' } });
  await store.putCluster({ name: 'c3', endpoint: { server: 'https://c3' }, labels: { env: 'prod' } });
  const spec = parseFleetRollout(fleetDocument());
  await store.putFleetSpec('web', spec, fleetDocument(), 0);
  const queue = new RecordingQueue();
  const pipeline = planes.get('c1') as Pipeline;
  const deps = (extra: Partial<ReconcileDeps> = {}): ReconcileDeps => ({
    ...pipeline.deps(),
    store,
    clock,
    clusters: { client: async (name: string) => (planes.get(name) as Pipeline).cluster },
    queue,
    ...extra,
  });
  const member = (c: string) => memberKey(spec, c);
  return { store, spec, queue, deps, member, events: pipeline.events };
}

describe('reconcileFleet', () => {
  it('creates a member Rollout in every selected cluster, owned by the fleet and naming its wave, and enqueues each', async () => {
    const bed = await fleetBed();
    const r = await reconcileFleet('web', bed.deps());
    assert.equal(r.outcome, 'progressed');
    for (const [c, wave] of [['c1', 'canary'], ['c2', 'rest'], ['c3', 'rest']] as const) {
      const stored = (await bed.store.load(bed.member(c))).spec;
      assert.deepEqual(stored?.spec.fleet, { name: 'web', wave }, c);
      assert.deepEqual((stored?.document as { ownedBy: unknown }).ownedBy, { kind: 'FleetRollout', name: 'web' });
    }
    assert.deepEqual(bed.queue.sent.sort(), ['c1/default/web', 'c2/default/web', 'c3/default/web']);
    bed.queue.sent.length = 0;
    assert.equal((await reconcileFleet('web', bed.deps())).outcome, 'noop', 'a second pass changes nothing');
    assert.deepEqual(bed.queue.sent, []);
  });

  it('local mode\'s queue worker runs a fleet key as a fleet pass', async () => {
    const bed = await fleetBed();
    const seen: string[] = [];
    const worker = reconcileWorker(bed.deps(), { onResult: (key, _reason, r) => seen.push(`${key} ${r.outcome}`) });
    await worker({ fleet: 'web' }, 'api');
    assert.deepEqual(seen, ['F#web progressed']);
    assert.deepEqual((await bed.store.load(bed.member('c1'))).spec?.spec.fleet, { name: 'web', wave: 'canary' });
  });

  it('a member\'s transition asks for a pass of its fleet', async () => {
    const bed = await fleetBed();
    await reconcileFleet('web', bed.deps());
    bed.queue.sent.length = 0;
    const r = await reconcile(bed.member('c2'), bed.deps());
    assert.equal(r.outcome, 'progressed');
    assert.deepEqual(bed.queue.sent, ['F#web']);
  });

  it('a release permits the canary cluster only; a crash after the STATE write sends the permit once, on the next pass', async () => {
    const bed = await fleetBed();
    await reconcileFleet('web', bed.deps());
    for (const c of CLUSTERS) await reconcile(bed.member(c), bed.deps());
    await bed.store.recordFleetCommand('web', { type: 'release', change: { type: 'images', images: { app: 'web:v2' } }, id: 'rel-1', at: '2026-11-30T10:00:00.000Z', by: 'alice' });
    bed.queue.sent.length = 0;
    await assert.rejects(reconcileFleet('web', bed.deps({ crashPoint: dieAt('after-persist') })), /simulated crash/);
    const stored = await bed.store.loadFleet('web');
    assert.equal(stored.state.outbox.memberCommands.length, 1, 'the permit waits in the outbox');
    assert.deepEqual((await bed.store.load(bed.member('c1'))).state.state.commands, [], 'and is not on the member yet');

    await reconcileFleet('web', bed.deps());
    await reconcileFleet('web', bed.deps());
    const permits = (c: string) => bed.store.load(bed.member(c)).then((m) => [...m.state.state.commands.map((x) => x.type), ...m.state.state.appliedCommandIds]);
    assert.deepEqual(await permits('c1'), ['permit'], 'recorded on the canary member once');
    assert.deepEqual(await permits('c2'), []);
    assert.deepEqual(await permits('c3'), []);
    assert.ok(bed.queue.sent.includes('c1/default/web'), 'the canary member is enqueued');
    assert.deepEqual((await bed.store.loadFleet('web')).state.outbox.memberCommands, [], 'the outbox is cleared');
    const history = await bed.store.listFleetHistory('web');
    assert.deepEqual(history.filter((h) => h.type === FLEET_EVENT.MemberPermitted).map((h) => h.cluster), ['c1']);
    assert.ok(bed.events.fleetEvents.some((e) => e.type === FLEET_EVENT.ReleaseStarted), 'the events are published');
  });

  it('a cluster that no longer matches the selector has its member asked to go; the others stay', async () => {
    const bed = await fleetBed();
    await reconcileFleet('web', bed.deps());
    await bed.store.putCluster({ name: 'c3', endpoint: { server: 'https://c3' }, labels: { env: 'dev' } });
    bed.queue.sent.length = 0;
    await reconcileFleet('web', bed.deps());
    assert.deepEqual((await bed.store.load(bed.member('c3'))).state.state.commands.map((c) => c.type), ['delete']);
    assert.deepEqual((await bed.store.load(bed.member('c2'))).state.state.commands, []);
    assert.deepEqual(bed.queue.sent, ['c3/default/web']);
  });

  it('a Rollout of the same name that the fleet does not own is left alone, and the pass says so', async () => {
    const bed = await fleetBed();
    const { rolloutSpec } = await import('../../support/sim/scenario.ts');
    const theirs = { ...rolloutSpec(), cluster: 'c2' };
    await bed.store.putSpec(bed.member('c2'), theirs, { kind: 'Rollout' }, 0);
    const r = await reconcileFleet('web', bed.deps());
    assert.match(r.error ?? '', /a Rollout default\/web not owned by this fleet exists in cluster c2/);
    const stored = await bed.store.load(bed.member('c2'));
    assert.equal(stored.spec?.specVersion, 1, 'not written');
    assert.equal(stored.spec?.spec.fleet ?? null, null);
  });

  it('a deleted fleet\'s leftover STATE is removed, and a fleet never applied is missing', async () => {
    const bed = await fleetBed();
    await bed.store.recordFleetCommand('web', { type: 'pause', id: 'p1', at: '2026-11-30T10:00:00.000Z', by: 'alice' });
    assert.equal((await reconcileFleet('nope', bed.deps())).outcome, 'missing');
    const store = new MemoryStateStore();
    await store.recordFleetCommand('gone', { type: 'pause', id: 'p1', at: '2026-11-30T10:00:00.000Z', by: 'alice' });
    assert.equal((await reconcileFleet('gone', bed.deps({ store }))).outcome, 'removed');
    assert.equal((await store.loadFleet('gone')).state.version, 0);
  });
});
