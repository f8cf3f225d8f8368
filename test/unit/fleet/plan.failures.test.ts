// Failure handling of a fleet release: a member that fails counts against maxFailures; past it the
// fleet halts (no new cluster starts) and, with rollbackOnFailure, every member released or
// releasing goes back, all at once. A failed after-wave gate halts it too. An unreachable cluster
// holds its wave, named, and counts as failed only after unreachableDeadline. `fleet abort` rolls
// back on demand.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FLEET_EVENT } from '../../../shared/fleet/events.ts';
import { FleetSim, cluster, fleetCommand, fleetDocument } from '../../support/sim/fleetSim.ts';
import { revisionOf } from '../../support/sim/workloadSim.ts';

const V1 = revisionOf('app:v1');
const V2 = revisionOf('app:v2');
const release = () => fleetCommand({ type: 'release', change: { type: 'images', images: { app: 'app:v2' } } });
const three = () => [cluster('canary', { ring: 'canary' }), cluster('eu'), cluster('us')];
const deadline = { progressDeadlineSeconds: 60 };

describe('planFleet: a member that fails', () => {
  it('halts the fleet at the first failure (maxFailures 0): no other cluster starts, and the reason names it', () => {
    const f = FleetSim.of(fleetDocument('web', { template: deadline }), three());
    f.member('canary').sim.neverReady.add(V2);
    f.settle([release()]);
    f.advance(61);
    f.settle();
    assert.equal(f.state.phase, 'Halted');
    assert.match(f.state.message, /^fleet release f1 halted: 1 member failed, more than maxFailures 0: canary \(failed: step 1 did not become ready within 60s/);
    assert.equal(f.state.cause?.kind, 'Halted');
    assert.deepEqual(f.counts(V2), { canary: 2, eu: 0, us: 0 }, 'the failed canary stays as it failed; nothing else moved');
    assert.equal(f.member('eu').sim.template, V1);
    f.settle([fleetCommand({ type: 'approve' })]);
    assert.deepEqual(f.counts(V2), { canary: 2, eu: 0, us: 0 }, 'an approval does not reopen a halted release');
    assert.ok(f.events().includes(FLEET_EVENT.MemberFailed) && f.events().includes(FLEET_EVENT.Halted));
  });

  it('with rollbackOnFailure, revokes every member released or releasing in one pass, and ends RolledBack', () => {
    const f = FleetSim.of(fleetDocument('web', { template: deadline, waves: [{ name: 'all', maxConcurrency: 3 }], spec: { rollbackOnFailure: true } }), three());
    f.member('us').sim.neverReady.add(V2);
    f.settle([release()]);
    assert.deepEqual(f.counts(V2), { canary: 4, eu: 4, us: 2 });
    f.advance(61);
    f.membersStep();
    const r = f.fleetStep();
    assert.deepEqual(r.memberCommands.map((c) => [c.member.cluster, c.command.type]), [['canary', 'revoke'], ['eu', 'revoke'], ['us', 'revoke']], 'all at once');
    f.settle();
    assert.equal(f.state.phase, 'RolledBack');
    assert.deepEqual(f.counts(V1), { canary: 4, eu: 4, us: 4 });
    assert.deepEqual(f.counts(V2), { canary: 0, eu: 0, us: 0 });
    assert.deepEqual(f.statuses(), { canary: 'RolledBack', eu: 'RolledBack', us: 'RolledBack' });
  });

  it('tolerates maxFailures failures: the next wave opens and the release completes', () => {
    const f = FleetSim.of(fleetDocument('web', { template: deadline, waves: [{ name: 'first', count: 2, maxConcurrency: 2 }, { name: 'rest' }], spec: { maxFailures: 1 } }), three());
    f.member('canary').sim.neverReady.add(V2);
    f.settle([release()]);
    f.advance(61);
    f.settle();
    assert.equal(f.state.phase, 'Completed');
    assert.deepEqual(f.statuses(), { canary: 'Failed', eu: 'Completed', us: 'Completed' });
    assert.match(f.results.flatMap((r) => r.events).find((e) => e.type === FLEET_EVENT.ReleaseCompleted)?.message ?? '', /1 failed, 2 completed/);
  });

  it('counts a member rolled back in its own cluster (rollouts abort there) as failed', () => {
    const f = FleetSim.of(fleetDocument('web', { template: { strategy: { canary: { steps: [{ replicas: 1 }, { replicas: '100%' }] } } } }), three());
    f.settle([release()]);
    f.memberCommand('canary', { type: 'abort' });
    f.settle();
    assert.equal(f.state.phase, 'Halted');
    assert.equal(f.statuses().canary, 'Failed');
  });
});

describe('planFleet: after-wave gates and bake', () => {
  const gated = (over: Record<string, unknown> = {}) => fleetDocument('web', {
    waves: [{ name: 'canary', selector: { matchLabels: { ring: 'canary' } }, after: { gates: [{ name: 'errors', http: { url: 'http://127.0.0.1:9/errors' }, interval: '1m' }] } }, { name: 'rest', maxConcurrency: 2 }],
    spec: { rollbackOnFailure: true, ...over },
  });

  it('checks the gate once the wave is done, and opens the next wave when it passes', () => {
    const f = FleetSim.of(gated(), three());
    const r = f.settle([release()]);
    assert.deepEqual(r.invocations.map((i) => [i.type, i.gate.name, i.context.wave, i.context.clusters]), [['check-gate', 'errors', 'canary', ['canary']]]);
    assert.match(f.state.message, /wave 1\/2 "canary": released; analyzing: gate errors 0\/1 checks passed, first check pending/);
    assert.deepEqual(f.counts(V2), { canary: 4, eu: 0, us: 0 });
    f.recordGate([{ gate: 'errors', wave: 'canary', measurement: { result: 'pass', value: '0.01' } }]);
    f.settle();
    assert.equal(f.state.phase, 'Completed');
  });

  it('halts on a failed gate and rolls the canary back; nothing starts in the other clusters', () => {
    const f = FleetSim.of(gated(), three());
    f.settle([release()]);
    f.recordGate([{ gate: 'errors', wave: 'canary', measurement: { result: 'fail', value: '0.31' } }]);
    f.settle();
    assert.equal(f.state.phase, 'RolledBack');
    assert.match(f.state.lastRelease?.endReason ?? '', /after-wave gate errors of wave canary failed: 1 failed checks \(failureLimit 0\); last value: 0.31/);
    assert.deepEqual(f.counts(V2), { canary: 0, eu: 0, us: 0 });
    assert.deepEqual(f.counts(V1), { canary: 4, eu: 4, us: 4 });
    assert.equal(f.member('eu').sim.template, V1);
  });

  it('bakes the wave for its bake time before the next wave opens, and wakes up then', () => {
    const f = FleetSim.of(fleetDocument('web', { waves: [{ name: 'canary', selector: { matchLabels: { ring: 'canary' } }, after: { bake: '10m' } }, { name: 'rest' }] }), three());
    const r = f.settle([release()]);
    const doneAt = f.state.release?.waves[0]?.membersDoneAt as string;
    assert.equal(r.wakeAt, new Date(Date.parse(doneAt) + 600_000).toISOString());
    assert.match(f.state.message, /released; baking until 2026-11-30T10:10:00Z/);
    f.advance(599);
    f.settle();
    assert.deepEqual(f.counts(V2), { canary: 4, eu: 0, us: 0 });
    f.advance(1);
    f.settle();
    assert.equal(f.state.phase, 'Completed');
  });
});

describe('planFleet: an unreachable cluster', () => {
  it('holds its wave with a reason naming it, and goes on when the cluster answers again', () => {
    const f = FleetSim.of(fleetDocument(), three());
    f.down.add('canary');
    f.membersStep();
    const r = f.settle([release()]);
    assert.match(f.state.message, /wave 1\/2 "canary": cluster canary unreachable since 2026-11-30T10:00:00Z; it counts as failed at 2026-11-30T10:10:00Z: cluster "canary" unreachable: connect ECONNREFUSED/);
    assert.deepEqual({ kind: f.state.cause?.kind, cluster: f.state.cause?.cluster, until: f.state.cause?.until }, { kind: 'ClusterUnreachable', cluster: 'canary', until: '2026-11-30T10:10:00.000Z' });
    assert.equal(r.wakeAt, '2026-11-30T10:10:00.000Z');
    f.advance(300);
    f.down.delete('canary');
    f.settle();
    assert.deepEqual(f.counts(V2), { canary: 4, eu: 0, us: 0 });
    assert.match(f.state.message, /awaiting approval/);
  });

  it('counts it as failed after unreachableDeadline, and halts', () => {
    const f = FleetSim.of(fleetDocument('web', { spec: { unreachableDeadline: '2m' } }), three());
    f.settle([release()]);
    f.down.add('eu');
    f.settle([fleetCommand({ type: 'approve' })]);
    assert.equal(f.state.phase, 'Progressing');
    assert.match(f.state.message, /cluster eu unreachable since/);
    assert.equal(f.counts(V2).us, 0, 'permitted as it went away, eu holds the one slot');
    f.advance(121);
    f.settle();
    assert.equal(f.state.phase, 'Halted');
    assert.match(f.state.message, /eu \(cluster eu unreachable since .* \(unreachableDeadline 120s\)\)/);
  });

  it('takes no slot when unreachable before its turn: the next member of the wave goes, and the wave waits for it', () => {
    const f = FleetSim.of(fleetDocument(), three());
    f.settle([release()]);
    f.down.add('eu');
    f.membersStep();
    f.settle([fleetCommand({ type: 'approve' })]);
    assert.deepEqual(f.counts(V2), { canary: 4, eu: 0, us: 4 });
    assert.equal(f.state.phase, 'Progressing', 'the wave is not done without eu');
    assert.match(f.state.message, /wave 2\/2 "rest": cluster eu unreachable since/);
    f.down.delete('eu');
    f.settle();
    assert.equal(f.state.phase, 'Completed');
  });
});

describe('planFleet: abort', () => {
  it('returns every member released or releasing to its stable revision, all at once, and ends Aborted', () => {
    const f = FleetSim.of(fleetDocument('web', { template: { strategy: { canary: { steps: [{ replicas: 1 }, { replicas: '100%' }] } } }, waves: [{ name: 'canary', selector: { matchLabels: { ring: 'canary' } } }, { name: 'rest', maxConcurrency: 2 }] }), three());
    f.settle([release()]);
    f.memberCommand('canary', { type: 'approve' });
    f.settle();
    assert.deepEqual(f.counts(V2), { canary: 4, eu: 1, us: 1 }, 'canary done, both rest members at step 1');
    const r = f.fleetStep([fleetCommand({ type: 'abort' }, 'carol')]);
    assert.deepEqual(r.memberCommands.map((c) => [c.member.cluster, c.command.type, c.command.by]), [['canary', 'revoke', 'carol'], ['eu', 'revoke', 'carol'], ['us', 'revoke', 'carol']]);
    f.settle();
    assert.equal(f.state.phase, 'Aborted');
    assert.deepEqual(f.counts(V1), { canary: 4, eu: 4, us: 4 });
    assert.ok(f.events().includes(FLEET_EVENT.Aborted));
  });
});
