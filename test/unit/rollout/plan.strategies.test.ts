// The planner's side of the release strategies (issue 10), kind-agnostic: it records the strategy a
// release starts with and passes it on, re-holds a workload found unheld while it carries a
// strategy's changes (finalizing included), waits on Available pods and looks again when the next
// one turns Available, and reports a rollback target the workload no longer retains.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { plan } from '../../../shared/rollout/plan.ts';
import { EVENT } from '../../../shared/rollout/events.ts';
import type { WorkloadView } from '../../../shared/rollout/types.ts';
import { revisionOf } from '../../support/sim/workloadSim.ts';
import { command, rolloutSpec, setup, steps } from '../../support/sim/scenario.ts';

const V2 = revisionOf('app:v2');

describe('plan: release strategies', () => {
  it('a release keeps the strategy it started with, even when the spec changes mid-release', () => {
    const d = setup(10, rolloutSpec({ deploymentStrategy: 'MinReadySeconds' }));
    d.sim.setImage('app:v2');
    const r = d.step();
    assert.equal(d.state.release?.strategy, 'MinReadySeconds');
    assert.ok(r.actions.some((a) => a.type === 'distribute' && a.strategy === 'MinReadySeconds'));
    d.spec = rolloutSpec({ deploymentStrategy: 'Partition' });
    const again = d.step();
    assert.ok(again.actions.every((a) => a.type !== 'distribute' || a.strategy === 'MinReadySeconds'));
  });

  it('what the workload carries wins over the record (a lost or stale STATE)', () => {
    const d = setup(10, rolloutSpec({ deploymentStrategy: 'MinReadySeconds' }));
    d.sim.setImage('app:v2');
    const view: WorkloadView = { ...d.sim.view(), strategy: 'Partition' };
    const r = plan(d.spec, d.state, view, d.now);
    assert.equal(r.nextState.release?.strategy, 'Partition', 'a release starting now');
    const started = d.step().nextState;
    assert.equal(started.release?.strategy, 'MinReadySeconds');
    assert.equal(plan(d.spec, started, view, d.now).nextState.release?.strategy, 'Partition', 'a release in flight');
  });

  it('re-holds a workload found unheld while it carries a strategy\'s changes, finalizing included', () => {
    const d = setup(4, rolloutSpec({ steps: steps('50%:none', '100%') }));
    d.sim.setImage('app:v2');
    d.settle();
    d.sim.setImage('app:v3');
    d.step();
    const finalizing = { ...d.state, release: d.state.release && { ...d.state.release, finalizing: true } };
    const handedBack: WorkloadView = { ...d.sim.view(), held: false, strategy: null };
    assert.ok(!plan(d.spec, finalizing, handedBack, d.now).actions.some((a) => a.type === 'hold'), 'finalizing hands back on purpose');
    const resumedOnRecreate: WorkloadView = { ...d.sim.view(), held: false, strategy: 'Partition' };
    const r = plan(d.spec, finalizing, resumedOnRecreate, d.now);
    assert.equal(r.actions[0]?.type, 'hold', 'someone resumed it while it still carries the takeover');
    assert.ok(r.events.some((e) => e.type === EVENT.HoldRestored));
  });

  it('a deleted rollout hands back a workload that still carries a strategy\'s changes even when someone unpaused it', () => {
    const d = setup(4);
    const view: WorkloadView = { ...d.sim.view(), held: false, strategy: 'Partition' };
    const r = plan(d.spec, d.state, view, d.now, [command({ type: 'delete' })]);
    assert.deepEqual(r.actions, [{ type: 'release-hold' }]);
    assert.equal(r.removed, false);
  });

  it('waits on Available pods and looks again when the next one turns Available', () => {
    const d = setup(10);
    d.sim.setImage('app:v2');
    d.step();
    d.sim.settle();
    const notYet: WorkloadView = {
      ...d.sim.view(),
      revisions: d.sim.view().revisions.map((r) => (r.id === V2 ? { ...r, available: 0 } : r)),
      nextAvailableAt: new Date(d.now.getTime() + 1500).toISOString(),
    };
    const r = plan(d.spec, d.state, notYet, d.now);
    assert.equal(r.nextState.release?.stepState, 'Verifying', 'Ready is not enough');
    assert.equal(r.requeueSeconds, 1.5);
    const ready = plan(d.spec, d.state, d.sim.view(), d.now);
    assert.equal(ready.nextState.release?.stepState, 'StepPaused');
  });

  it('a last step of every pod without a pause is the finish itself: no batch of its own', () => {
    const d = setup(10, rolloutSpec({ steps: steps('50%:none', '100%') }));
    d.sim.setImage('app:v2');
    d.settle();
    const types = d.eventTypes();
    assert.equal(types.filter((t) => t === EVENT.BatchReady).length, 1);
    assert.ok(types.includes(EVENT.Finalizing) && types.includes(EVENT.ReleaseCompleted));
    assert.ok(d.results.some((r) => r.actions.some((a) => a.type === 'distribute' && a.final)), 'the finish is the final distribute');
  });

  it('a rollback whose target revision is no longer retained is Degraded with the reason, and touches nothing', () => {
    const d = setup(10);
    d.sim.setImage('app:v2');
    d.settle();
    const aborting = plan(d.spec, d.state, d.sim.view(), d.now, [command({ type: 'abort' })]).nextState;
    const pruned: WorkloadView = { ...d.sim.view(), revisions: d.sim.view().revisions.filter((r) => r.id === V2) };
    const r = plan(d.spec, aborting, pruned, d.now);
    assert.equal(r.nextState.phase, 'Degraded');
    assert.match(r.nextState.message, /needs the pod template of revision .* which the workload no longer retains/);
    assert.deepEqual(r.actions, []);
  });
});
