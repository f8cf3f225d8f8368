// What the planner does when commands and template changes arrive mid-release: during a hand-back,
// in the pass that changes the template, many at once, between a release request and its release
// (regressions the soak, npm run soak, found; each test is named after the failure it showed).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { statusView } from '../../../shared/api/views.ts';
import { plan } from '../../../shared/rollout/plan.ts';
import { APPLIED_COMMAND_MEMORY, initialState } from '../../../shared/rollout/state.ts';
import type { ReleaseState, WorkloadView } from '../../../shared/rollout/types.ts';
import { command, rolloutSpec } from '../../support/sim/scenario.ts';

const NOW = new Date('2026-12-01T10:00:00.000Z');

function handingBack(): { state: ReleaseState; view: WorkloadView } {
  const state: ReleaseState = {
    ...initialState(), phase: 'Progressing', stableRevision: 'v1', releaseSeq: 1,
    release: {
      id: 'r1', kind: 'release', stableRevision: 'v1', targetRevision: 'v2', stepIndex: 2, stepState: 'Upgrading', stepStartedAt: NOW.toISOString(),
      stepReadyAt: null, observedReplicas: 3, startedAt: NOW.toISOString(), notBefore: null, finalizing: true, failure: null, gated: false,
      endPhase: 'Completed', templateSet: true, strategy: 'Partition',
    },
  };
  // Every pod on v2, the Deployment handed back (unpaused, the user's strategy): the native controller records completion.
  const view: WorkloadView = {
    kind: 'Deployment', exists: true, replicas: 3, templateRevision: 'v2', held: false, observed: true, nativeComplete: false, maxSurge: 1, maxUnavailable: 0,
    problems: [], strategy: null, nextAvailableAt: null, toReplace: [], blocked: null,
    revisions: [
      { id: 'v2', number: 2, images: { app: 'app:v2' }, desired: 3, current: 3, ready: 3, available: 3 },
      { id: 'v1', number: 1, images: { app: 'app:v1' }, desired: 0, current: 0, ready: 0, available: 0 },
    ],
  };
  return { state, view };
}

describe('plan: what the soak found', () => {
  it('holds the workload before a release command changes its template during the hand-back (pods of an unapproved image rolled natively)', () => {
    const { state, view } = handingBack();
    const r = plan(rolloutSpec(), state, view, NOW, [command({ type: 'release', change: { type: 'images', images: { app: 'app:v3' } } })]);
    const types = r.actions.map((a) => a.type);
    assert.ok(types.indexOf('hold') >= 0 && types.indexOf('hold') < types.indexOf('set-template'), `hold before set-template: ${types.join(', ')}`);
  });

  it('still lets the native controller finish a hand-back when no template change is asked', () => {
    const { state, view } = handingBack();
    const r = plan(rolloutSpec(), state, view, NOW, []);
    assert.ok(!r.actions.some((a) => a.type === 'hold'), r.actions.map((a) => a.type).join(', '));
  });
});

describe('plan: every release has an end (soak)', () => {
  it('ends a rollback that an undo replaces in the same pass (abort then undo left the aborted release without an end)', () => {
    const { state, view } = handingBack();
    // v0 completed a release before v1 did: where an undo after the abort goes (undo.ts).
    const v0 = { id: 'v0', number: 0, images: { app: 'app:v0' }, desired: 0, current: 0, ready: 0, available: 0 };
    const held = { ...view, held: true, strategy: 'Partition' as const, revisions: [...view.revisions, v0] };
    const r = plan(rolloutSpec(), { ...state, completedRevisions: ['v0', 'v1'], release: { ...state.release!, finalizing: false, stepIndex: 1, stepState: 'StepPaused' } }, held, NOW,
      [command({ type: 'abort' }), command({ type: 'undo' })]);
    const ends = r.events.filter((e) => e.releaseId === 'r1' && ['Release Superseded', 'Release Aborted', 'Release Completed'].includes(e.type));
    assert.deepEqual(ends.map((e) => e.type), ['Release Superseded']);
    assert.equal(r.nextState.release?.kind, 'undo');
    assert.equal(r.nextState.release?.targetRevision, 'v0');
    assert.notEqual(r.nextState.release?.id, 'r1');
  });
});

describe('plan: a new image mid-release (soak)', () => {
  it('moves no pods in the pass that changes the template (the old batch budget rolled the new image past step 1)', () => {
    const { state, view } = handingBack();
    const midRelease: ReleaseState = { ...state, release: { ...state.release!, finalizing: false, stepIndex: 1, stepState: 'Upgrading' } };
    const held = { ...view, held: true, strategy: 'Partition' as const };
    const r = plan(rolloutSpec(), midRelease, held, NOW, [command({ type: 'release', change: { type: 'images', images: { app: 'app:v3' } } })]);
    assert.deepEqual(r.actions.map((a) => a.type), ['set-template']);
  });
});

describe('plan: many commands at once (soak)', () => {
  it('consumes every command of a pass even when they are more than the applied-id memory (the earliest stayed pending and were applied again on every pass)', () => {
    const { state, view } = handingBack();
    const held = { ...view, held: true, strategy: 'Partition' as const };
    const pauses = Array.from({ length: APPLIED_COMMAND_MEMORY + 5 }, (_, i) => command({ type: i % 2 === 0 ? 'pause' : 'resume' }));
    const s = { ...state, commands: pauses, release: { ...state.release!, finalizing: false, stepIndex: 1, stepState: 'StepPaused' as const } };
    const first = plan(rolloutSpec(), s, held, NOW);
    assert.deepEqual(first.nextState.commands, [], 'nothing left pending');
    assert.equal(first.events.filter((e) => e.commandId !== null && e.commandId !== undefined).length, pauses.length, 'one event per command');
    const again = plan(rolloutSpec(), first.nextState, held, NOW);
    assert.deepEqual(again.events.filter((e) => e.commandId), [], 'no command applied twice');
  });
});

describe('plan: a release request between its template change and its release (soak)', () => {
  const healthy = (): { state: ReleaseState; view: WorkloadView } => {
    const { state, view } = handingBack();
    const stableView: WorkloadView = { ...view, held: true, strategy: null, templateRevision: 'v1', revisions: [{ id: 'v1', number: 1, images: { app: 'app:v1' }, desired: 3, current: 3, ready: 3, available: 3 }] };
    return { state: { ...state, phase: 'Healthy', release: null }, view: stableView };
  };

  it('keeps the request visible until the next pass starts its release (the status said settled in between, and the drain stopped)', () => {
    const { state, view } = healthy();
    const asked = plan(rolloutSpec(), state, view, NOW, [command({ type: 'release', change: { type: 'images', images: { app: 'app:v2' } } })]);
    assert.equal(asked.nextState.release, null);
    assert.equal(asked.nextState.requestedBy, 'tester');
    const stored = { spec: { spec: rolloutSpec(), specVersion: 1, document: {} }, state: { state: asked.nextState, version: 2, outbox: { history: [], events: [] } } };
    assert.equal(statusView(stored.spec as never, stored.state).settled, false);
    const withV2: WorkloadView = { ...view, templateRevision: 'v2', revisions: [{ id: 'v2', number: 2, images: { app: 'app:v2' }, desired: 0, current: 0, ready: 0, available: 0 }, ...view.revisions] };
    const started = plan(rolloutSpec(), asked.nextState, withV2, NOW);
    assert.equal(started.nextState.release?.requestedBy, 'tester');
    assert.equal(started.nextState.requestedBy, null);
  });

  it('forgets a request whose change made no new revision, so the rollout settles', () => {
    const { state, view } = healthy();
    const r = plan(rolloutSpec(), { ...state, requestedBy: 'tester', scheduledStartAt: '2026-12-02T00:00:00.000Z' }, view, NOW);
    assert.equal(r.nextState.requestedBy, null);
    assert.equal(r.nextState.scheduledStartAt, null);
    assert.equal(r.nextState.release, null);
  });
});

describe('plan: commands behind a template change (soak)', () => {
  const midRelease = (): { state: ReleaseState; view: WorkloadView } => {
    const { state, view } = handingBack();
    return { state: { ...state, release: { ...state.release!, finalizing: false, stepIndex: 0, stepState: 'StepPaused' } }, view: { ...view, held: true, strategy: 'Partition' } };
  };

  it('leaves an undo sent after a release for the next pass (it went to the revision just asked for, every pod at once)', () => {
    const { state, view } = midRelease();
    const release = command({ type: 'release', change: { type: 'images', images: { app: 'app:v3' } } });
    const undo = command({ type: 'undo' });
    const r = plan(rolloutSpec(), { ...state, commands: [release, undo] }, view, NOW);
    assert.deepEqual(r.actions.map((a) => a.type), ['set-template']);
    assert.deepEqual(r.nextState.commands.map((c) => c.id), [undo.id], 'the undo waits for the pass that sees the new template');
    assert.ok(!r.events.some((e) => e.type === 'Undo Started'));
  });

  it('lets a release requested during an undo win over the template the undo was still to put back (the request was silently overwritten)', () => {
    const { state, view } = midRelease();
    const undoing: ReleaseState = { ...state, release: { ...state.release!, id: 'r2', kind: 'undo', targetRevision: 'v1', stableRevision: 'v2', finalizing: true, templateSet: false } };
    const asked = plan(rolloutSpec(), undoing, view, NOW, [command({ type: 'release', change: { type: 'images', images: { app: 'app:v3' } } })]);
    assert.ok(!asked.actions.some((a) => a.type === 'restore-template'), asked.actions.map((a) => a.type).join(', '));
    const withV3: WorkloadView = { ...view, templateRevision: 'v3', revisions: [{ id: 'v3', number: 3, images: { app: 'app:v3' }, desired: 0, current: 0, ready: 0, available: 0 }, ...view.revisions] };
    const next = plan(rolloutSpec(), asked.nextState, withV3, NOW);
    assert.equal(next.nextState.release?.kind, 'release');
    assert.equal(next.nextState.release?.targetRevision, 'v3');
    assert.ok(next.events.some((e) => e.type === 'Release Superseded' && e.releaseId === 'r2'));
  });

  it('ignores an approval given for a release that another has replaced since (it approved the new release\'s first batch)', () => {
    const { state, view } = midRelease();
    const r = plan(rolloutSpec(), state, view, NOW, [command({ type: 'approve', stepIndex: 0, releaseId: 'r0' })]);
    assert.equal(r.nextState.release?.stepState, 'StepPaused');
    assert.match(r.events.find((e) => e.type === 'Command Ignored')?.message ?? '', /approval was for release r0; release r1 is waiting now/);
  });
});

describe('plan: an undo right after a hand-back (soak)', () => {
  it('holds the workload before putting an older template back (the Deployment, handed back unpaused, rolled it natively)', () => {
    const { state, view } = handingBack();
    const undo: ReleaseState = { ...state, release: { ...state.release!, id: 'r2', kind: 'undo', targetRevision: 'v1', stableRevision: 'v2', finalizing: true, templateSet: false, strategy: null } };
    const unheld: WorkloadView = { ...view, held: false, strategy: null };
    const r = plan(rolloutSpec(), undo, unheld, NOW, []);
    const types = r.actions.map((a) => a.type);
    assert.ok(types.indexOf('hold') === 0 && types.includes('restore-template'), types.join(', '));
  });
});

describe('plan: the controller away at the end of a release (soak)', () => {
  it('does not hand back a finished release while the controller has not observed the latest spec (a template set meanwhile rolled to every pod when kube-controller-manager came back)', () => {
    const { state, view } = handingBack();
    const held: WorkloadView = { ...view, kind: 'StatefulSet', held: true, observed: false, strategy: null };
    const r = plan(rolloutSpec(), state, held, NOW, []);
    assert.ok(!r.actions.some((a) => a.type === 'release-hold'), r.actions.map((a) => a.type).join(', '));
    assert.equal(r.nextState.phase, 'Progressing');
    assert.ok(r.requeueSeconds !== null, 'looks again soon');
    const observed = plan(rolloutSpec(), state, { ...held, observed: true }, NOW, []);
    assert.ok(observed.actions.some((a) => a.type === 'release-hold'), 'hands back once observed');
  });
});

describe('plan: a rollback while the controller is away (soak smoke)', () => {
  it('puts the stable template back only once the controller has observed every ReplicaSet (stale counts after kube-controller-manager came back took a pod below the budget)', () => {
    const { state, view } = handingBack();
    const rollback: ReleaseState = { ...state, release: { ...state.release!, kind: 'rollback', endPhase: 'Aborted', targetRevision: 'v1', stableRevision: 'v1', templateSet: false, strategy: 'MinReadySeconds' } };
    const midway: WorkloadView = {
      ...view, held: true, observed: false, strategy: 'MinReadySeconds',
      revisions: [
        { id: 'v2', number: 2, images: { app: 'app:v2' }, desired: 1, current: 1, ready: 1, available: 1 },
        { id: 'v1', number: 1, images: { app: 'app:v1' }, desired: 2, current: 3, ready: 3, available: 3 },
      ],
    };
    const away = plan(rolloutSpec(), rollback, midway, NOW, []);
    assert.ok(!away.actions.some((a) => a.type === 'restore-template'), away.actions.map((a) => a.type).join(', '));
    assert.ok(away.requeueSeconds !== null, 'looks again soon');
    const back = plan(rolloutSpec(), rollback, { ...midway, observed: true }, NOW, []);
    assert.ok(back.actions.some((a) => a.type === 'restore-template'), back.actions.map((a) => a.type).join(', '));
  });
});

describe('plan: a scale while paused (soak)', () => {
  function pausedMidRelease(desired: { v1: number; v2: number }, replicas: number): { state: ReleaseState; view: WorkloadView } {
    const { state, view } = handingBack();
    const paused: ReleaseState = { ...state, phase: 'Paused', userPaused: true, release: { ...state.release!, finalizing: false, stepIndex: 0, stepState: 'StepPaused', observedReplicas: 5 } };
    const held: WorkloadView = {
      ...view, replicas, held: true, strategy: 'Partition',
      revisions: [
        { id: 'v2', number: 2, images: { app: 'app:v2' }, desired: desired.v2, current: desired.v2, ready: desired.v2, available: desired.v2 },
        { id: 'v1', number: 1, images: { app: 'app:v1' }, desired: desired.v1, current: desired.v1, ready: desired.v1, available: desired.v1 },
      ],
    };
    return { state: paused, view: held };
  }

  it('follows a scale-down of a paused Partition release on the stable revision, the new one keeping its pods (ReplicaSets asked for 5 pods of a Deployment scaled to 3)', () => {
    const { state, view } = pausedMidRelease({ v1: 4, v2: 1 }, 3);
    const r = plan(rolloutSpec(), state, view, NOW, []);
    const moves = r.actions.filter((a) => a.type === 'distribute');
    assert.deepEqual(moves.map((a) => a.type === 'distribute' && a.distribution), [{ v2: 1, v1: 2 }]);
    assert.equal(r.nextState.release?.stepIndex, 0, 'nothing advances');
    assert.equal(r.nextState.phase, 'Paused');
  });

  it('follows a scale-down in the pass that changes the template, and looks again soon (a restart chain with cut watches left 6 pods asked of a Deployment scaled to 4 for two minutes)', () => {
    const { state, view } = pausedMidRelease({ v1: 4, v2: 1 }, 3);
    const moving: ReleaseState = { ...state, phase: 'Progressing', userPaused: false };
    const r = plan(rolloutSpec(), moving, view, NOW, [command({ type: 'release', change: { type: 'images', images: { app: 'app:v3' } } })]);
    assert.deepEqual(r.actions.filter((a) => a.type === 'distribute').map((a) => a.type === 'distribute' && a.distribution), [{ v2: 1, v1: 2 }]);
    assert.ok(r.actions.some((a) => a.type === 'set-template'));
    assert.ok(r.requeueSeconds !== null && r.requeueSeconds <= 2, `requeue ${String(r.requeueSeconds)}`);
  });

  it('follows a scale-down of a Partition release frozen by a failure (nobody else scales a held Deployment)', () => {
    const { state, view } = pausedMidRelease({ v1: 4, v2: 1 }, 3);
    const failed: ReleaseState = { ...state, phase: 'Failed', userPaused: false, release: { ...state.release!, stepState: 'Upgrading', failure: 'step 1 did not become ready within 60s' } };
    const r = plan(rolloutSpec(), failed, view, NOW, []);
    assert.deepEqual(r.actions.filter((a) => a.type === 'distribute').map((a) => a.type === 'distribute' && a.distribution), [{ v2: 1, v1: 2 }]);
    assert.equal(r.nextState.phase, 'Failed');
  });

  it('follows a scale-down of a paused Partition rollback (ReplicaSets asked for 6 pods of a Deployment scaled to 3 for 80 s)', () => {
    const { state, view } = pausedMidRelease({ v1: 4, v2: 1 }, 3);
    const rollback: ReleaseState = { ...state, release: { ...state.release!, kind: 'rollback', targetRevision: 'v1', stableRevision: 'v1', finalizing: true, templateSet: true, endPhase: 'Aborted' } };
    const r = plan(rolloutSpec(), rollback, { ...view, templateRevision: 'v1' }, NOW, []);
    assert.deepEqual(r.actions.filter((a) => a.type === 'distribute').map((a) => a.type === 'distribute' && a.distribution), [{ v1: 3, v2: 0 }]);
  });

  it('moves nothing while paused when nobody scaled', () => {
    const { state, view } = pausedMidRelease({ v1: 4, v2: 1 }, 5);
    const r = plan(rolloutSpec(), state, view, NOW, []);
    assert.deepEqual(r.actions.filter((a) => a.type === 'distribute'), []);
  });
});

describe('plan: a rollback whose template was pruned (soak)', () => {
  it('applies a release asked meanwhile instead of keeping it pending behind the Degraded rollback forever', () => {
    const { state, view } = handingBack();
    const stuck: ReleaseState = { ...state, release: { ...state.release!, id: 'r2', kind: 'rollback', targetRevision: 'v0', stableRevision: 'v0', finalizing: false, stepIndex: 0, templateSet: false } };
    const held: WorkloadView = { ...view, held: true, strategy: 'Partition' };
    const pause = command({ type: 'pause' });
    const degraded = plan(rolloutSpec(), { ...stuck, commands: [pause] }, held, NOW, [pause]);
    assert.equal(degraded.nextState.phase, 'Degraded');
    assert.match(degraded.nextState.message, /no longer retains/);
    assert.equal(degraded.nextState.commands.length, 1, 'other commands wait until it is fixed');
    const release = command({ type: 'release', change: { type: 'images', images: { app: 'app:v3' } } });
    const fixed = plan(rolloutSpec(), { ...stuck, commands: [release] }, held, NOW, [release]);
    assert.notEqual(fixed.nextState.phase, 'Degraded');
    assert.ok(fixed.actions.some((a) => a.type === 'set-template'), fixed.actions.map((a) => a.type).join(', '));
    assert.deepEqual(fixed.nextState.commands, []);
  });
});
