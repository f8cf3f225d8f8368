// A fleet release goes wave by wave: a wave opens only once every member of the wave before it has
// completed, as its own STATE says, and that wave's after-wave tasks passed; within a wave at most
// maxConcurrency members release at once. Both ways a release starts, `fleet release --image` and a
// template changed in every cluster at once, are paced the same. Real member plans, simulated pods.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { planFleet } from '../../../shared/fleet/plan.ts';
import { FLEET_EVENT } from '../../../shared/fleet/events.ts';
import { initialFleetState } from '../../../shared/fleet/state.ts';
import { initialState } from '../../../shared/rollout/state.ts';
import type { ReleaseState } from '../../../shared/rollout/types.ts';
import { FleetSim, cluster, fleetCommand, fleetDocument } from '../../support/sim/fleetSim.ts';
import { Driver } from '../../support/sim/scenario.ts';
import { WorkloadSim, revisionOf } from '../../support/sim/workloadSim.ts';

const V2 = revisionOf('app:v2');
const IMAGES = { type: 'images' as const, images: { app: 'app:v2' } };
const release = () => fleetCommand({ type: 'release', change: IMAGES });
const three = () => [cluster('canary', { ring: 'canary' }), cluster('eu', { region: 'eu' }), cluster('us', { region: 'us' })];

/** Members of `clusters` with a release of theirs moving under the running fleet release. */
function releasing(f: FleetSim, clusters: string[]): string[] {
  const ref = f.state.release?.ref;
  return clusters.filter((c) => {
    const rel = f.member(c).state.release;
    return rel !== null && rel.kind === 'release' && rel.permit?.fleetRelease === ref;
  });
}

describe('planFleet: a release with the fleet\'s change', () => {
  it('releases the canary wave, waits for approval, then the rest one cluster at a time', () => {
    const f = FleetSim.of(fleetDocument(), three());
    f.settle([release()]);
    assert.deepEqual(f.counts(V2), { canary: 4, eu: 0, us: 0 }, 'only the canary cluster changed, and completed');
    assert.equal(f.member('eu').sim.template, revisionOf('app:v1'), 'a later wave\'s template is not even changed yet');
    assert.equal(f.state.phase, 'Progressing');
    assert.match(f.state.message, /^fleet release f1, wave 1\/2 "canary": released; awaiting approval since 2026-11-30T10:00:00Z \(rollouts fleet approve web\)$/);
    assert.deepEqual({ kind: f.state.cause?.kind, wave: f.state.cause?.wave }, { kind: 'Approval', wave: 'canary' });

    // Wave 2, one member at a time: step the fleet and members and watch every pass.
    f.fleetStep([fleetCommand({ type: 'approve' })]);
    for (let i = 0; i < 30 && f.state.phase === 'Progressing'; i += 1) {
      assert.ok(releasing(f, ['eu', 'us']).length <= 1, `never two wave-2 members at once (pass ${i}: ${releasing(f, ['eu', 'us']).join(', ')})`);
      f.membersStep();
      f.fleetStep();
    }
    assert.equal(f.state.phase, 'Completed');
    assert.deepEqual(f.counts(V2), { canary: 4, eu: 4, us: 4 });
    const order = f.results.flatMap((r) => r.events).filter((e) => e.type === FLEET_EVENT.MemberPermitted).map((e) => e.cluster);
    assert.deepEqual(order, ['canary', 'eu', 'us']);
  });

  it('names what it waits on: the wave, the cluster and the member\'s own reason and cause', () => {
    const f = FleetSim.of(fleetDocument('web', { template: { strategy: { canary: { steps: [{ replicas: 1 }, { replicas: '100%' }] } } } }), three());
    f.settle([release()]);
    assert.match(f.state.message, /^fleet release f1, wave 1\/2 "canary": cluster canary releasing: step 1\/2: awaiting approval since 2026-11-30T10:00:00Z \(rollouts approve web\)$/);
    const c = f.state.cause;
    assert.deepEqual({ kind: c?.kind, wave: c?.wave, cluster: c?.cluster, member: c?.member?.kind, object: c?.member?.object }, { kind: 'Member', wave: 'canary', cluster: 'canary', member: 'Approval', object: 'step/1' });
  });

  it('opens a wave\'s members maxConcurrency at a time (a percent of the wave, rounded down, at least one)', () => {
    const clusters = [cluster('a'), cluster('b'), cluster('c'), cluster('d'), cluster('e')];
    const f = FleetSim.of(fleetDocument('web', { waves: [{ name: 'all', maxConcurrency: '40%' }] }), clusters);
    const r = f.fleetStep([release()]);
    assert.deepEqual(r.memberCommands.map((c) => c.member.cluster), ['a', 'b'], '40% of 5 is 2');
    f.settle();
    assert.equal(f.state.phase, 'Completed');
  });

  it('opens members in the order of the wave\'s sorting label', () => {
    const clusters = [cluster('a', { order: '3' }), cluster('b', { order: '1' }), cluster('c', { order: '2' })];
    const f = FleetSim.of(fleetDocument('web', { waves: [{ name: 'all', sortingLabelKey: 'order' }] }), clusters);
    f.settle([release()]);
    assert.deepEqual(f.results.flatMap((r) => r.events).filter((e) => e.type === FLEET_EVENT.MemberPermitted).map((e) => e.cluster), ['b', 'c', 'a']);
  });

  it('completes a member whose template already was the change, with nothing to release', () => {
    const f = FleetSim.of(fleetDocument('web', { waves: [{ name: 'all', maxConcurrency: 3 }] }), three());
    const us = new Driver(new WorkloadSim(4, 'app:v2'), f.member('us').spec);
    us.settle();
    f.members.set('us', us);
    f.settle([release()]);
    assert.equal(f.state.phase, 'Completed');
    assert.deepEqual(f.statuses(), { canary: 'Completed', eu: 'Completed', us: 'NoChange' });
    assert.ok(f.results.flatMap((r) => r.events).some((e) => e.type === FLEET_EVENT.MemberCompleted && e.message === 'cluster us already ran the change: nothing to release'));
  });

  it('asks its members for nothing more when a pass runs twice over the same STATEs', () => {
    const f = FleetSim.of(fleetDocument(), three());
    f.settle([release()]);
    const observations = [...f.members].map(([c, d]) => ({ cluster: c, state: d.state }));
    const again = planFleet(f.spec, f.state, observations, f.clusters, f.now);
    assert.deepEqual(again.memberCommands, []);
    assert.deepEqual(again.events, []);
    assert.deepEqual(again.nextState, f.state, 'a no-op pass: nothing to write');
  });

  it('plans the same from the same inputs (no clock, no randomness)', () => {
    const f = FleetSim.of(fleetDocument(), three());
    f.settle([release()]);
    f.fleetStep([fleetCommand({ type: 'approve' })]);
    const observations = [...f.members].map(([c, d]) => ({ cluster: c, state: d.state }));
    assert.deepEqual(planFleet(f.spec, f.state, observations, f.clusters, f.now), planFleet(f.spec, f.state, observations, f.clusters, f.now));
  });
});

describe('planFleet: a template changed in every cluster at once (GitOps)', () => {
  it('releases it in the same paced order: no wave-2 pod before the canary completed and the approval', () => {
    const f = FleetSim.of(fleetDocument(), three());
    f.syncImage('app:v2');
    f.settle();
    assert.deepEqual(f.counts(V2), { canary: 4, eu: 0, us: 0 });
    assert.equal(f.member('eu').sim.template, V2, 'the template changed in every cluster');
    assert.match(f.member('eu').state.message, /^held for fleet web \(wave rest\)/, 'the member says who holds it');
    assert.match(f.state.message, /wave 1\/2 "canary": released; awaiting approval/);
    f.advance(3600);
    f.settle();
    assert.deepEqual(f.counts(V2), { canary: 4, eu: 0, us: 0 }, 'time alone opens nothing');
    f.settle([fleetCommand({ type: 'approve' })]);
    assert.deepEqual(f.counts(V2), { canary: 4, eu: 4, us: 4 });
    assert.equal(f.state.phase, 'Completed');
    assert.equal(f.state.lastRelease?.change, null);
    assert.deepEqual(f.state.lastRelease?.images, { app: 'app:v2' });
  });

  it('waits for a member whose template has not changed yet, naming it, until it changes or is skipped', () => {
    const f = FleetSim.of(fleetDocument(), three());
    f.syncImage('app:v2', ['eu', 'us']); // the sync has not reached the canary cluster yet
    f.settle();
    assert.deepEqual(f.counts(V2), { canary: 0, eu: 0, us: 0 });
    assert.match(f.state.message, /wave 1\/2 "canary": cluster canary waits: its template has not changed: waiting for the new template to reach it \(rollouts fleet skip web canary if it has none to release\)/);
    assert.deepEqual({ kind: f.state.cause?.kind, cluster: f.state.cause?.cluster }, { kind: 'AwaitingChange', cluster: 'canary' });
    f.syncImage('app:v2', ['canary']);
    f.settle();
    assert.deepEqual(f.counts(V2), { canary: 4, eu: 0, us: 0 });
  });

  it('starts again from the first wave when a newer template arrives mid-release', () => {
    const f = FleetSim.of(fleetDocument(), three());
    f.syncImage('app:v2');
    f.settle();
    f.syncImage('app:v3');
    f.settle();
    assert.equal(f.state.lastRelease?.state, 'Superseded');
    assert.match(f.state.lastRelease?.endReason ?? '', /cluster canary holds app=app:v3 after its turn/);
    assert.equal(f.state.release?.id, 'f2');
    assert.deepEqual(f.counts(revisionOf('app:v3')), { canary: 4, eu: 0, us: 0 }, 'v3 goes through the canary first');
    f.settle([fleetCommand({ type: 'approve' })]);
    assert.deepEqual(f.counts(revisionOf('app:v3')), { canary: 4, eu: 4, us: 4 });
  });
});

describe('planFleet: "completed" means completed for this fleet release, as observed on the cluster', () => {
  it('never opens a wave on a member STATE left from an earlier release', () => {
    const f = FleetSim.of(fleetDocument('web', { waves: [{ name: 'canary', selector: { matchLabels: { ring: 'canary' } } }, { name: 'rest' }] }), three());
    f.settle([release()]);
    f.settle([fleetCommand({ type: 'release', change: { type: 'images', images: { app: 'app:v3' } } })]);
    assert.equal(f.state.lastRelease?.state, 'Completed');
    // A third release: the canary's STATE still says Completed (its last release, v3) until its own pass runs.
    const stale: ReleaseState = structuredClone(f.member('canary').state);
    const r = f.fleetStep([fleetCommand({ type: 'release', change: { type: 'images', images: { app: 'app:v4' } } })]);
    assert.equal(stale.phase, 'Completed');
    assert.deepEqual(r.memberCommands.map((c) => c.member.cluster), ['canary'], 'only the canary is permitted');
    for (let i = 0; i < 3; i += 1) {
      const again = planFleet(f.spec, f.state, [{ cluster: 'canary', state: stale }, { cluster: 'eu', state: f.member('eu').state }, { cluster: 'us', state: f.member('us').state }], f.clusters, f.now);
      assert.deepEqual(again.memberCommands, [], 'the stale Completed opens nothing');
      assert.equal(again.nextState.release?.waves[0]?.state, 'Releasing');
    }
  });

  it('has no member rollout to read before the member is applied, and says so', () => {
    const r = planFleet(FleetSim.of(fleetDocument(), three()).spec, initialFleetState(), [{ cluster: 'canary', state: initialState() }], three(), new Date('2026-11-30T10:00:00Z'), [release()]);
    assert.match(r.nextState.message, /cluster canary waits: its member rollout has not adopted the workload yet/);
    assert.equal(r.nextState.cause?.kind, 'MemberMissing');
    assert.deepEqual(r.members.map((m) => [m.cluster, m.fleet?.wave]), [['canary', 'canary'], ['eu', 'rest'], ['us', 'rest']], 'the member rollouts it wants applied');
  });
});
