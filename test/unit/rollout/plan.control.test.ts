import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { plan } from '../../../shared/rollout/plan.ts';
import { EVENT } from '../../../shared/rollout/events.ts';
import { revisionOf } from '../../support/sim/workloadSim.ts';
import { command, rolloutSpec, setup, steps } from '../../support/sim/scenario.ts';

const V1 = revisionOf('app:v1');
const V2 = revisionOf('app:v2');

describe('plan: pause, abort, undo and failures', () => {
  it('changes no object while paused and continues on resume', () => {
    const d = setup(10);
    d.sim.setImage('app:v2');
    d.settle([command({ type: 'pause' })]);
    assert.equal(d.state.phase, 'Paused');
    assert.equal(d.sim.count(V2), 0);
    const r = d.step();
    assert.deepEqual(r.actions, [], 'no actions at all while paused');
    d.settle([command({ type: 'resume' })]);
    assert.equal(d.state.phase, 'Progressing');
    assert.equal(d.sim.count(V2), 1);
  });

  it('pauses mid-batch and leaves the pods where they are', () => {
    const d = setup(10);
    d.sim.setImage('app:v2');
    d.settle();
    d.step([command({ type: 'approve' })]); // batch 2 starts moving
    const moving = d.sim.count(V2);
    d.step([command({ type: 'pause' })]);
    d.sim.settle();
    d.step();
    assert.equal(d.sim.count(V2), moving);
  });

  it('aborts mid-release: every pod back on the stable revision, phase Aborted', () => {
    const d = setup(10);
    d.sim.setImage('app:v2');
    d.settle();
    d.settle([command({ type: 'approve' })]);
    d.settle([command({ type: 'abort' })]);
    assert.equal(d.state.phase, 'Aborted');
    assert.equal(d.sim.template, V1, 'the pod template is put back');
    assert.equal(d.sim.count(V1), 10);
    assert.equal(d.sim.count(V2), 0);
    assert.ok(d.eventTypes().includes(EVENT.ReleaseAborted));
  });

  it('treats a template put back to stable by hand as a direct rollback', () => {
    const d = setup(10);
    d.sim.setImage('app:v2');
    d.settle();
    d.sim.setImage('app:v1');
    d.settle();
    assert.equal(d.state.phase, 'Aborted');
    assert.equal(d.sim.count(V1), 10);
  });

  it('undoes to an earlier revision after completion', () => {
    const d = setup(4, rolloutSpec({ steps: steps('50%:none', '100%') }));
    d.sim.setImage('app:v2');
    d.settle();
    assert.equal(d.state.phase, 'Completed');
    d.settle([command({ type: 'undo', toRevision: 1 })]);
    assert.equal(d.state.phase, 'Completed');
    assert.equal(d.state.stableRevision, V1);
    assert.equal(d.sim.template, V1);
    assert.equal(d.sim.count(V1), 4);
    assert.ok(d.eventTypes().includes(EVENT.UndoStarted));
  });

  it('ignores undo to a revision that is not retained', () => {
    const d = setup(4);
    const r = d.step([command({ type: 'undo', toRevision: 7 })]);
    assert.match(r.events.find((e) => e.type === EVENT.CommandIgnored)?.message ?? '', /revision 7 is not retained/);
  });

  it('fails a batch that never becomes ready at the deadline, and waits for retry', () => {
    const d = setup(4, rolloutSpec({ progressDeadlineSeconds: 120 }));
    d.sim.neverReady.add(V2);
    d.sim.setImage('app:v2');
    const r = d.settle();
    assert.equal(d.state.phase, 'Progressing');
    assert.equal(r.wakeAt, new Date(Date.parse(d.state.release!.stepStartedAt) + 120_000).toISOString());
    d.advance(121);
    d.settle();
    assert.equal(d.state.phase, 'Failed');
    assert.match(d.state.message, /did not become ready within 120s/);
    d.advance(600);
    assert.deepEqual(d.step().actions.filter((a) => a.type === 'distribute'), [], 'a failed release is frozen');
    d.sim.neverReady.delete(V2);
    d.settle([command({ type: 'retry' })]);
    assert.equal(d.state.phase, 'Progressing');
    assert.equal(d.state.release?.stepState, 'StepPaused');
  });

  it('rolls back automatically when the batch fails and rollbackOnFailure is set', () => {
    const d = setup(4, rolloutSpec({ progressDeadlineSeconds: 60, rollbackOnFailure: true }));
    d.sim.neverReady.add(V2);
    d.sim.setImage('app:v2');
    d.settle();
    d.advance(61);
    d.settle();
    assert.equal(d.state.phase, 'Failed');
    assert.equal(d.sim.template, V1);
    assert.equal(d.sim.count(V1), 4);
    assert.equal(d.sim.count(V2), 0);
    assert.ok(d.eventTypes().includes(EVENT.RolledBack));
  });
});

describe('plan: spec changes mid-release', () => {
  it('redoes the last step when the spec lost steps under a running release', () => {
    const d = setup(10);
    d.sim.setImage('app:v2');
    d.settle();
    d.settle([command({ type: 'approve' })]);
    assert.equal(d.state.release?.stepIndex, 1);
    d.spec = rolloutSpec({ steps: steps('1') });
    d.settle();
    assert.equal(d.state.release?.stepIndex, 0);
    assert.equal(d.state.release?.stepState, 'StepPaused', 'the remaining step waits for its approval again');
    assert.equal(d.sim.count(V2), 5, 'a batch never moves backwards (Kruise #203) and never on without the approval');
  });
});

describe('plan: release windows and scheduled starts', () => {
  const window = { days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'] as const, start: '09:00', end: '17:00', timeZone: 'UTC' };

  it('moves nothing outside the window and wakes up when it opens', () => {
    const d = setup(10, rolloutSpec({ windows: [{ ...window, days: [...window.days] }] }));
    d.now = new Date('2026-12-05T12:00:00.000Z'); // a Saturday
    d.sim.setImage('app:v2');
    const r = d.settle();
    assert.equal(d.sim.count(V2), 0);
    assert.equal(r.wakeAt, '2026-12-07T09:00:00.000Z');
    assert.match(d.state.message, /outside the release windows/);
    d.now = new Date('2026-12-07T09:00:00.000Z');
    d.settle();
    assert.equal(d.sim.count(V2), 1);
  });

  it('does not count time spent waiting for the window against the batch deadline', () => {
    const d = setup(10, rolloutSpec({ windows: [{ ...window, days: [...window.days] }], progressDeadlineSeconds: 600 }));
    d.now = new Date('2026-12-05T12:00:00.000Z'); // Saturday: closed until Monday 09:00
    d.sim.setImage('app:v2');
    d.settle();
    assert.equal(d.state.release?.gated, true);
    d.now = new Date('2026-12-07T09:00:00.000Z');
    d.settle();
    assert.equal(d.state.phase, 'Progressing', 'two days of waiting are not a 600 s deadline miss');
    assert.equal(d.state.release?.gated, false);
    assert.equal(d.sim.count(V2), 1);
    assert.ok(d.eventTypes().includes(EVENT.WaitingForWindow));
  });

  it('does not start a release before startAt', () => {
    const d = setup(10, rolloutSpec({ startAt: '2026-12-01T00:00:00.000Z' }));
    d.sim.setImage('app:v2');
    const r = d.settle();
    assert.equal(d.sim.count(V2), 0);
    assert.equal(r.wakeAt, '2026-12-01T00:00:00.000Z');
    d.now = new Date('2026-12-01T00:00:01.000Z');
    d.settle();
    assert.equal(d.sim.count(V2), 1);
  });

  it('applies a release command: template change now, pods not before --at', () => {
    const d = setup(10);
    d.settle([command({ type: 'release', change: { type: 'images', images: { app: 'app:v2' } }, startAt: '2026-12-02T00:00:00.000Z' })]);
    assert.equal(d.sim.template, V2);
    assert.equal(d.state.release?.notBefore, '2026-12-02T00:00:00.000Z');
    assert.equal(d.sim.count(V2), 0);
  });

  it('lists "Release Requested" under the release it asks for, not under the one before it', () => {
    const d = setup(10);
    d.settle([command({ type: 'release', change: { type: 'images', images: { app: 'app:v2' } } })]);
    const events = d.results.flatMap((r) => r.events);
    const requested = events.find((e) => e.type === EVENT.ReleaseRequested);
    const started = events.find((e) => e.type === EVENT.ReleaseStarted);
    assert.ok(requested && started, events.map((e) => e.type).join(', '));
    assert.equal(requested.releaseId, d.state.release?.id);
    assert.equal(requested.releaseId, started.releaseId);
  });
});

describe('plan: degraded workloads and deletion', () => {
  it('reports Degraded, touches nothing and keeps commands while the workload is missing', () => {
    const d = setup(4);
    const view = { ...d.sim.view(), exists: false };
    const approve = command({ type: 'approve' });
    const r = plan(d.spec, { ...d.state, commands: [approve] }, view, d.now);
    assert.equal(r.nextState.phase, 'Degraded');
    assert.deepEqual(r.actions, []);
    assert.deepEqual(r.nextState.commands, [approve]);
  });

  it('refuses a workload whose selector selects every pod', () => {
    const d = setup(4);
    const view = { ...d.sim.view(), problems: ['spec.selector selects every pod'] };
    const r = plan(d.spec, d.state, view, d.now);
    assert.equal(r.nextState.phase, 'Degraded');
    assert.deepEqual(r.actions, []);
  });

  it('hands the workload back on delete, then reports removed', () => {
    const d = setup(4);
    const first = d.step([command({ type: 'delete' })]);
    assert.deepEqual(first.actions, [{ type: 'release-hold' }]);
    assert.equal(first.removed, false);
    const second = d.step();
    assert.equal(second.removed, true);
  });
});
