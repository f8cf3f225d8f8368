// Clusters come and go while a fleet release runs, and the run never aborts for it: a cluster that
// starts matching joins the wave its labels select (or the last), or releases on its own at once
// when that wave has released; one that is deregistered or stops matching leaves with a history
// entry. Release windows are read in each member cluster's own time zone.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FLEET_EVENT } from '../../../shared/fleet/events.ts';
import { FleetSim, cluster, fleetCommand, fleetDocument } from '../../support/sim/fleetSim.ts';
import { revisionOf } from '../../support/sim/workloadSim.ts';

const V2 = revisionOf('app:v2');
const release = () => fleetCommand({ type: 'release', change: { type: 'images', images: { app: 'app:v2' } } });
const three = () => [cluster('canary', { ring: 'canary' }), cluster('eu'), cluster('us')];

function events(f: FleetSim, type: string): string[] {
  return f.results.flatMap((r) => r.events).filter((e) => e.type === type).map((e) => e.message);
}

describe('planFleet: clusters registered and deregistered mid-run', () => {
  it('puts a cluster registered before its wave opens into the wave its labels select', () => {
    const waves = [{ name: 'canary', selector: { matchLabels: { ring: 'canary' } }, after: { approval: true } }, { name: 'eu', selector: { matchLabels: { region: 'eu' } } }, { name: 'rest' }];
    const f = FleetSim.of(fleetDocument('web', { waves }), [cluster('canary', { ring: 'canary' }), cluster('eu-1', { region: 'eu' }), cluster('us', { region: 'us' })]);
    f.settle([release()]);
    f.clusters.push(cluster('eu-2', { region: 'eu' }));
    f.settle();
    assert.deepEqual(events(f, FLEET_EVENT.MemberJoined), ['cluster eu-2 joined wave eu (its labels select it)']);
    assert.equal(f.counts(V2)['eu-2'], 0, 'it waits for its wave');
    assert.equal(f.member('eu-2').spec.fleet?.wave, 'eu');
    f.settle([fleetCommand({ type: 'approve' })]);
    assert.equal(f.counts(V2)['eu-2'], 4);
    assert.equal(f.state.phase, 'Completed');
  });

  it('releases a cluster that joins a wave that has released on its own, at once, without holding later waves', () => {
    const f = FleetSim.of(fleetDocument(), three());
    f.settle([release()]);
    f.clusters.push(cluster('canary-2', { ring: 'canary' }));
    f.settle();
    assert.deepEqual(events(f, FLEET_EVENT.MemberJoined), ['cluster canary-2 joined wave canary (its labels select it): that wave has released, so it releases on its own, at once']);
    assert.equal(f.counts(V2)['canary-2'], 4);
    assert.equal(f.state.release?.waves[0]?.members.find((m) => m.cluster === 'canary-2')?.late, true);
    f.settle([fleetCommand({ type: 'approve' })]);
    assert.equal(f.state.phase, 'Completed');
  });

  it('adopts a cluster registered after the release as it runs; a GitOps sync of it releases it alone, the others already running it', () => {
    const f = FleetSim.of(fleetDocument(), three());
    f.syncImage('app:v2');
    f.settle();
    f.settle([fleetCommand({ type: 'approve' })]);
    assert.equal(f.state.lastRelease?.id, 'f1');
    f.clusters.push(cluster('eu-2'));
    f.settle();
    assert.equal(f.counts(V2)['eu-2'], 0, 'registered after the release ended: it runs what it ran');
    assert.equal(f.state.phase, 'Completed');
    f.syncImage('app:v2', ['eu-2']);
    f.settle();
    assert.equal(f.counts(V2)['eu-2'], 4);
    assert.equal(f.state.lastRelease?.id, 'f2');
    assert.deepEqual(f.statuses(), { canary: 'NoChange', eu: 'NoChange', us: 'NoChange', 'eu-2': 'Completed' });
  });

  it('puts a cluster no wave selects in the last wave', () => {
    const f = FleetSim.of(fleetDocument('web', { waves: [{ name: 'canary', selector: { matchLabels: { ring: 'canary' } }, after: { approval: true } }, { name: 'eu', selector: { matchLabels: { region: 'eu' } } }] }), [cluster('canary', { ring: 'canary' }), cluster('eu-1', { region: 'eu' })]);
    f.settle([release()]);
    f.clusters.push(cluster('ap-1', { region: 'ap' }));
    f.settle();
    assert.deepEqual(events(f, FLEET_EVENT.MemberJoined), ['cluster ap-1 joined wave eu (no wave selects it, so the last wave)']);
    assert.equal(f.counts(V2)['ap-1'], 0, 'it waits for its wave');
    f.settle([fleetCommand({ type: 'approve' })]);
    assert.equal(f.counts(V2)['ap-1'], 4);
  });

  it('lets a deregistered cluster leave with a history entry, and completes the run without it', () => {
    const f = FleetSim.of(fleetDocument(), three());
    f.settle([release()]);
    f.clusters = f.clusters.filter((c) => c.name !== 'us');
    f.settle([fleetCommand({ type: 'approve' })]);
    assert.deepEqual(events(f, FLEET_EVENT.MemberLeft), ['cluster us left wave rest: it was deregistered']);
    assert.equal(f.state.phase, 'Completed');
    assert.deepEqual(f.statuses(), { canary: 'Completed', eu: 'Completed', us: 'Left' });
  });

  it('lets a cluster whose labels stop matching leave, and stops wanting its member rollout', () => {
    const f = FleetSim.of(fleetDocument(), three());
    f.settle([release()]);
    f.clusters = f.clusters.map((c) => (c.name === 'eu' ? { ...c, labels: { env: 'staging' } } : c));
    const r = f.settle([fleetCommand({ type: 'approve' })]);
    assert.deepEqual(events(f, FLEET_EVENT.MemberLeft), ['cluster eu left wave rest: its labels no longer match spec.clusterSelector']);
    assert.deepEqual(r.members.map((m) => m.cluster), ['canary', 'us']);
    assert.equal(f.state.phase, 'Completed');
  });

  it('never aborts, halts or rolls back for clusters coming and going', () => {
    const f = FleetSim.of(fleetDocument(), three());
    f.settle([release()]);
    f.clusters = f.clusters.filter((c) => c.name !== 'canary');
    f.settle();
    f.clusters.push(cluster('canary', { ring: 'canary' }));
    f.settle([fleetCommand({ type: 'approve' })]);
    assert.equal(f.state.phase, 'Completed');
    assert.ok(!f.events().some((t) => t === FLEET_EVENT.Halted || t === FLEET_EVENT.RollbackStarted));
  });
});

describe('planFleet: release windows in each cluster\'s own time zone', () => {
  it('releases the cluster whose window is open and holds the other, naming its window and waking at its opening', () => {
    // Monday 10:00 UTC: 11:00 in Paris (open), 19:00 in Tokyo (closed until Tuesday 09:00 Tokyo).
    const clusters = [cluster('paris', {}, 'Europe/Paris'), cluster('tokyo', {}, 'Asia/Tokyo')];
    const doc = fleetDocument('web', { template: { releaseWindows: [{ days: ['Mon', 'Tue', 'Wed', 'Thu'], start: '09:00', end: '16:00' }] }, waves: [{ name: 'all', maxConcurrency: 2 }] });
    const f = FleetSim.of(doc, clusters);
    const first = f.fleetStep([release()]);
    assert.deepEqual(first.memberCommands.map((c) => c.member.cluster), ['paris']);
    assert.equal(first.wakeAt, '2026-12-01T00:00:00.000Z');
    f.settle();
    assert.deepEqual(f.counts(V2), { paris: 4, tokyo: 0 });
    assert.match(f.state.message, /cluster tokyo waits: outside its release windows; next opens at 2026-12-01T00:00:00Z \(Tue 09:00 Asia\/Tokyo\)/);
    assert.deepEqual({ kind: f.state.cause?.kind, cluster: f.state.cause?.cluster, until: f.state.cause?.until }, { kind: 'Window', cluster: 'tokyo', until: '2026-12-01T00:00:00.000Z' });
    f.advance(14 * 3600);
    f.settle();
    assert.deepEqual(f.counts(V2), { paris: 4, tokyo: 4 });
  });

  it('does not let a member outside its window take a slot: the next one in the wave goes first', () => {
    const clusters = [cluster('a-tokyo', {}, 'Asia/Tokyo'), cluster('b-paris', {}, 'Europe/Paris')];
    const doc = fleetDocument('web', { template: { releaseWindows: [{ days: ['Mon'], start: '09:00', end: '16:00' }] }, waves: [{ name: 'all', maxConcurrency: 1 }] });
    const r = FleetSim.of(doc, clusters).fleetStep([release()]);
    assert.deepEqual(r.memberCommands.map((c) => c.member.cluster), ['b-paris']);
  });
});

describe('planFleet: a fleet that selects no cluster', () => {
  it('says so, and ignores a release', () => {
    const f = FleetSim.of(fleetDocument('web', { selector: { matchLabels: { env: 'prod' } } }), [cluster('a')]);
    f.clusters = [];
    f.settle([release()]);
    assert.equal(f.state.phase, 'Idle');
    assert.equal(f.state.cause?.kind, 'NoClusters');
    assert.match(f.state.message, /spec\.clusterSelector \(env=prod\) selects no registered cluster/);
    assert.match(events(f, FLEET_EVENT.CommandIgnored)[0] ?? '', /selects no registered cluster/);
  });
});
