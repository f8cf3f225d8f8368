import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { plan } from '../../../shared/rollout/plan.ts';
import { EVENT } from '../../../shared/rollout/events.ts';
import { revisionOf } from '../../support/sim/workloadSim.ts';
import { command, rolloutSpec, setup, steps } from '../../support/sim/scenario.ts';

const V1 = revisionOf('app:v1');
const V2 = revisionOf('app:v2');

describe('plan: adopting and releasing a Deployment', () => {
  it('adopts the running revision as stable, holds the workload and reports Healthy', () => {
    const d = setup(10);
    assert.equal(d.sim.held, true);
    assert.equal(d.state.stableRevision, V1);
    assert.equal(d.state.phase, 'Healthy');
    assert.ok(d.eventTypes().includes(EVENT.Adopted));
  });

  it('moves exactly 1, then 5, then 10 pods, and nothing advances without approval', () => {
    const d = setup(10);
    d.sim.setImage('app:v2');
    d.settle();
    assert.equal(d.state.release?.stepIndex, 0);
    assert.equal(d.state.release?.stepState, 'StepPaused');
    assert.equal(d.sim.count(V2), 1);
    assert.equal(d.sim.count(V1), 9);

    d.advance(3600);
    d.settle();
    assert.equal(d.sim.count(V2), 1, 'an hour later, still one pod: approval pauses do not expire');

    d.settle([command({ type: 'approve' })]);
    assert.equal(d.state.release?.stepIndex, 1);
    assert.equal(d.sim.count(V2), 5);
    assert.equal(d.sim.count(V1), 5);

    d.settle([command({ type: 'approve' })]);
    assert.equal(d.state.release, null);
    assert.equal(d.state.phase, 'Completed');
    assert.equal(d.state.stableRevision, V2);
    assert.equal(d.sim.count(V2), 10);
    assert.equal(d.sim.count(V1), 0);
    assert.equal(d.sim.held, true, 'held again after handing the finished revision to the native controller');
  });

  it('releases each batch within the maxUnavailable budget', () => {
    const d = setup(10);
    d.sim.maxSurge = 0;
    d.sim.maxUnavailable = 1;
    d.sim.setImage('app:v2');
    d.settle();
    d.settle([command({ type: 'approve' })]);
    d.settle([command({ type: 'approve' })]);
    assert.equal(d.state.phase, 'Completed');
    assert.ok(d.sim.minAvailableSeen >= 9, `availability fell to ${d.sim.minAvailableSeen}`);
  });

  it('applies the same approve command once even when delivered three times', () => {
    const d = setup(10);
    d.sim.setImage('app:v2');
    d.settle();
    const approve = command({ type: 'approve' }, 'approve-1');
    d.settle([approve]);
    d.settle([approve]);
    d.settle([approve]);
    assert.equal(d.state.release?.stepIndex, 1);
    assert.equal(d.sim.count(V2), 5);
    assert.equal(d.eventTypes().filter((t) => t === EVENT.StepApproved).length, 1);
    const approved = d.results.flatMap((r) => r.events).find((e) => e.type === EVENT.StepApproved);
    assert.equal(approved?.by, 'tester', 'the history records who approved');
    assert.equal(d.results.flatMap((r) => r.events).find((e) => e.type === EVENT.BatchReady)?.by, null, "the controller's own transitions have no principal");
  });

  it('ignores an approve that does not find the release awaiting approval', () => {
    const d = setup(10);
    d.sim.setImage('app:v2');
    const r = d.step([command({ type: 'approve' })]);
    assert.ok(r.events.some((e) => e.type === EVENT.CommandIgnored));
    d.settle();
    assert.equal(d.state.release?.stepIndex, 0);
    assert.equal(d.state.release?.stepState, 'StepPaused');
  });

  it('keeps one stable pod for a Deployment percent step below 100% (N−1 cap)', () => {
    const d = setup(5, rolloutSpec({ steps: steps('90%', '100%') }));
    d.sim.setImage('app:v2');
    d.settle();
    assert.equal(d.sim.count(V2), 4);
    assert.equal(d.sim.count(V1), 1);
  });

  it('continues through timed pauses and wakes up when the pause ends', () => {
    const d = setup(4, rolloutSpec({ steps: steps('1:30s', '100%') }));
    d.sim.setImage('app:v2');
    const r = d.settle();
    assert.equal(d.state.release?.stepState, 'StepPaused');
    const readyAt = Date.parse(d.state.release!.stepReadyAt!);
    assert.equal(r.wakeAt, new Date(readyAt + 30_000).toISOString());
    d.advance(31);
    d.settle();
    assert.equal(d.state.phase, 'Completed');
  });

  it('restarts the batch against the new replica count when the workload is scaled mid-step', () => {
    const d = setup(10);
    d.sim.setImage('app:v2');
    d.settle();
    d.settle([command({ type: 'approve' })]);
    assert.equal(d.sim.count(V2), 5);
    d.sim.replicas = 20; // as an HPA would
    d.settle();
    assert.ok(d.eventTypes().includes(EVENT.BatchRestarted));
    assert.equal(d.state.release?.stepIndex, 1);
    assert.equal(d.sim.count(V2), 10);
    assert.equal(d.sim.count(V1), 10);
  });

  it('restarts from step 1 when a new template arrives mid-release (continuous release)', () => {
    const d = setup(10);
    d.sim.setImage('app:v2');
    d.settle();
    d.settle([command({ type: 'approve' })]);
    d.sim.setImage('app:v3');
    d.settle();
    const V3 = revisionOf('app:v3');
    assert.equal(d.state.release?.targetRevision, V3);
    assert.equal(d.state.release?.stableRevision, V1);
    assert.equal(d.state.release?.stepIndex, 0);
    assert.equal(d.sim.count(V3), 1);
    assert.equal(d.sim.count(V2), 0, 'pods of the superseded revision are replaced');
    assert.equal(d.sim.count(V1), 9);
  });

  it('is a fixed point: planning twice with the same observation changes nothing the second time', () => {
    const d = setup(10);
    d.sim.setImage('app:v2');
    d.settle();
    const again = plan(d.spec, d.state, d.sim.view(), d.now);
    assert.deepEqual(again.nextState, d.state);
    assert.deepEqual(again.events, []);
  });
});
