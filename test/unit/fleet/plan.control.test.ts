// Fleet verbs: pause and resume act on the fleet and on the members it set releasing; approve opens
// the wave that waits for it and no other; skip lets a member with nothing to release through; a
// verb that does not fit the fleet's state is consumed with the reason, and a command applies once.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FLEET_EVENT } from '../../../shared/fleet/events.ts';
import { FleetSim, cluster, fleetCommand, fleetDocument } from '../../support/sim/fleetSim.ts';
import { revisionOf } from '../../support/sim/workloadSim.ts';

const V2 = revisionOf('app:v2');
const release = () => fleetCommand({ type: 'release', change: { type: 'images', images: { app: 'app:v2' } } });
const three = () => [cluster('canary', { ring: 'canary' }), cluster('eu'), cluster('us')];
const withApprovalStep = { strategy: { canary: { steps: [{ replicas: 1 }, { replicas: '100%' }] } } };

function ignored(f: FleetSim): string[] {
  return f.results.flatMap((r) => r.events).filter((e) => e.type === FLEET_EVENT.CommandIgnored).map((e) => e.message);
}

describe('planFleet: pause and resume', () => {
  it('pauses the members releasing and starts no other; resume resumes exactly those', () => {
    const f = FleetSim.of(fleetDocument('web', { template: withApprovalStep, waves: [{ name: 'all' }] }), three());
    f.settle([release()]);
    assert.deepEqual(f.counts(V2), { canary: 1, eu: 0, us: 0 }, 'canary waits for its own step approval');
    const paused = f.fleetStep([fleetCommand({ type: 'pause' })]);
    assert.deepEqual(paused.memberCommands.map((c) => [c.member.cluster, c.command.type]), [['canary', 'pause']]);
    f.memberCommand('canary', { type: 'approve' });
    f.settle();
    f.advance(3600);
    f.settle();
    assert.deepEqual(f.counts(V2), { canary: 1, eu: 0, us: 0 }, 'nothing moves while the fleet is paused');
    assert.equal(f.state.phase, 'Paused');
    assert.match(f.state.message, /^paused at wave 1\/1 "all" \(rollouts fleet resume web\)$/);
    const resumed = f.fleetStep([fleetCommand({ type: 'resume' })]);
    assert.deepEqual(resumed.memberCommands.map((c) => [c.member.cluster, c.command.type]), [['canary', 'resume']]);
    f.settle();
    assert.equal(f.counts(V2).canary, 4);
    assert.equal(f.state.release?.waves[0]?.members.find((m) => m.cluster === 'eu')?.status, 'Releasing');
  });

  it('paused with no release running, a new release starts nothing until resumed', () => {
    const f = FleetSim.of(fleetDocument(), three());
    f.settle([fleetCommand({ type: 'pause' })]);
    assert.equal(f.state.phase, 'Paused');
    assert.match(f.state.message, /^paused: the next fleet release waits for rollouts fleet resume web$/);
    f.settle([release()]);
    assert.deepEqual(f.counts(V2), { canary: 0, eu: 0, us: 0 });
    f.settle([fleetCommand({ type: 'resume' })]);
    assert.equal(f.counts(V2).canary, 4);
  });
});

describe('planFleet: approve, skip and verbs that do not fit', () => {
  it('ignores an approval for another wave, or before the wave has released, and says why', () => {
    const f = FleetSim.of(fleetDocument('web', { template: withApprovalStep }), three());
    f.settle([release()]);
    f.settle([fleetCommand({ type: 'approve' })]);
    assert.match(ignored(f).at(-1) ?? '', /approve by alice ignored: wave "canary" is still releasing \(0 of 1 members done\): approve it once it has released/);
    f.memberCommand('canary', { type: 'approve' });
    f.settle();
    f.settle([fleetCommand({ type: 'approve', wave: 'rest' })]);
    assert.match(ignored(f).at(-1) ?? '', /wave "rest" is not the wave waiting for approval \("canary" is\)/);
    assert.deepEqual(f.counts(V2), { canary: 4, eu: 0, us: 0 });
    f.settle([fleetCommand({ type: 'approve', wave: 'canary', releaseId: 'f1' })]);
    assert.equal(f.counts(V2).eu, 1);
  });

  it('refuses a release while one is in progress, and takes one after a halt as the fix forward', () => {
    const f = FleetSim.of(fleetDocument('web', { template: { progressDeadlineSeconds: 60 } }), three());
    f.member('canary').sim.neverReady.add(V2);
    f.settle([release()]);
    f.settle([fleetCommand({ type: 'release', change: { type: 'images', images: { app: 'app:v3' } } })]);
    assert.match(ignored(f).at(-1) ?? '', /release by alice ignored: fleet release f1 is in progress \(wave 1\/2 "canary"\): abort it or wait for it to end/);
    f.advance(61);
    f.settle();
    assert.equal(f.state.phase, 'Halted');
    f.settle([fleetCommand({ type: 'release', change: { type: 'images', images: { app: 'app:v3' } } })]);
    assert.equal(f.state.lastRelease?.state, 'Halted');
    assert.equal(f.state.release?.id, 'f2');
    assert.equal(f.counts(revisionOf('app:v3')).canary, 4);
  });

  it('skips a member with nothing to release, so its wave goes on', () => {
    const f = FleetSim.of(fleetDocument(), three());
    f.syncImage('app:v2', ['eu', 'us']);
    f.settle();
    assert.equal(f.state.cause?.kind, 'AwaitingChange');
    f.settle([fleetCommand({ type: 'skip', cluster: 'canary' }, 'dave')]);
    assert.equal(f.statuses().canary, 'Skipped');
    assert.ok(f.results.flatMap((r) => r.events).some((e) => e.message === 'wave canary completed: none of its members had anything to release'), 'nothing released, nothing to approve');
    assert.deepEqual(f.counts(V2), { canary: 0, eu: 4, us: 4 });
  });

  it('applies a command delivered twice once', () => {
    const f = FleetSim.of(fleetDocument(), three());
    const cmd = release();
    f.settle([cmd]);
    f.settle([cmd]);
    assert.equal(f.state.releaseSeq, 1);
    assert.deepEqual(ignored(f), []);
  });

  it('ignores an abort with nothing in progress', () => {
    const f = FleetSim.of(fleetDocument(), three());
    f.settle([fleetCommand({ type: 'abort' })]);
    assert.deepEqual(ignored(f), ['abort by alice ignored: no fleet release in progress']);
    assert.equal(f.state.phase, 'Idle');
  });
});
