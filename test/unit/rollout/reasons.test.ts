// The one-line reason and its cause, as the planner composes them from the state and the view.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Blocker } from '../../../shared/rollout/cause.ts';
import { degradedReason, explain, fieldOf, unreachableReason } from '../../../shared/rollout/message.ts';
import { initialState } from '../../../shared/rollout/state.ts';
import type { Release, ReleaseState, RevisionView, WorkloadView } from '../../../shared/rollout/types.ts';
import { rolloutSpec, steps } from '../../support/sim/scenario.ts';

const NOW = new Date('2030-01-07T10:00:00.000Z');
const spec = rolloutSpec({ steps: steps('1', '50%:60s', '100%') });

function rev(id: string, n: Partial<RevisionView> = {}): RevisionView {
  return { id, number: id === 'v2' ? 2 : 1, images: { app: id }, desired: 0, current: 0, ready: 0, available: 0, ...n };
}

function view(over: Partial<WorkloadView> = {}): WorkloadView {
  return {
    kind: 'Deployment', exists: true, replicas: 10, templateRevision: 'v2',
    revisions: [rev('v2', { desired: 1, current: 1 }), rev('v1', { desired: 9, current: 9, ready: 9, available: 9 })],
    held: true, observed: true, nativeComplete: false, maxSurge: 1, maxUnavailable: 0, problems: [], strategy: 'MinReadySeconds', nextAvailableAt: null, toReplace: [], blocked: null, ...over,
  };
}

function releasing(rel: Partial<Release> = {}, state: Partial<ReleaseState> = {}): ReleaseState {
  const release: Release = {
    id: 'r1', kind: 'release', stableRevision: 'v1', targetRevision: 'v2', stepIndex: 0, stepState: 'Verifying', stepStartedAt: '2030-01-07T09:59:00.000Z',
    stepReadyAt: null, observedReplicas: 10, startedAt: '2030-01-07T09:59:00.000Z', notBefore: null, finalizing: false, failure: null, gated: false,
    endPhase: 'Completed', templateSet: true, strategy: 'MinReadySeconds', ...rel,
  };
  return { ...initialState(), phase: 'Progressing', stableRevision: 'v1', release, ...state };
}

function blocker(name: string, over: Partial<Blocker> = {}): Blocker {
  return { kind: 'PodNotReady', object: `pod/${name}`, revision: 'v2', reason: 'ImagePullBackOff', message: 'Back-off pulling image "app:v2"', since: '2030-01-07T09:59:30.000Z', transient: false, ...over };
}

describe('reasons: what the release waits on', () => {
  it('names the pod and its waiting reason, the real problems first, with a count of the rest', () => {
    const v = view({ blockers: [blocker('web-b', { reason: 'ContainerCreating', message: '', transient: true, since: '2030-01-07T09:59:59.000Z' }), blocker('web-a'), blocker('web-c', { kind: 'PodUnschedulable', reason: 'Unschedulable', message: '0/3 nodes are available', revision: 'v1' })] });
    const r = explain(spec, releasing(), v, NOW);
    assert.equal(r.message, 'step 1/3: web-a: ImagePullBackOff (Back-off pulling image "app:v2"); and 1 more');
    assert.deepEqual(r.cause, { kind: 'PodNotReady', object: 'pod/web-a', field: null, detail: 'ImagePullBackOff (Back-off pulling image "app:v2")', since: '2030-01-07T09:59:30.000Z', until: null });
  });

  it('says what only someone else can do: the pods a Manual OnDelete batch waits for you to delete, before any pod blocker', () => {
    const waiting = { kind: 'ManualDeletion' as const, text: 'waiting for 1 more pod to be deleted (onDeletePolicy Manual); still on the old revision: web-0' };
    const r = explain(spec, releasing(), view({ blockers: [blocker('web-a')] }), NOW, waiting);
    assert.equal(r.message, `step 1/3: ${waiting.text}`);
    assert.equal(r.cause?.kind, 'ManualDeletion');
    assert.equal(explain(spec, releasing({ finalizing: true }), view(), NOW, waiting).message, `finishing: ${waiting.text}`);
    const paused = { kind: 'WorkloadPaused' as const, text: 'the CloneSet has spec.updateStrategy.paused: true, so it updates no pod; unpause it to go on' };
    assert.equal(explain(spec, releasing({ kind: 'rollback' }), view(), NOW, paused).message, `rolling back to revision v2: ${paused.text}`);
  });

  it('names a pod in an ordinary start-up state only once it has lasted 20 s', () => {
    const starting = blocker('web-a', { reason: 'ContainerCreating', message: '', transient: true, since: '2030-01-07T09:59:50.000Z' });
    assert.equal(explain(spec, releasing(), view({ blockers: [starting] }), NOW).message, 'step 1/3: waiting for pods to be ready');
    assert.equal(explain(spec, releasing(), view({ blockers: [starting] }), new Date('2030-01-07T10:00:10.000Z')).message, 'step 1/3: web-a: ContainerCreating');
  });

  it('says when the budget holds the rest of a batch: no surge left and no pod to spare', () => {
    const v = view({ revisions: [rev('v2', { desired: 1, current: 1 }), rev('v1', { desired: 10, current: 10, ready: 10, available: 10 })] });
    const r = explain(rolloutSpec({ steps: steps('5', '100%') }), releasing({ stepState: 'Upgrading' }), v, NOW);
    assert.equal(r.message, 'step 1/2: the rollout budget (maxSurge 1, maxUnavailable 0) holds the rest of the batch until new pods are available');
    assert.equal(r.cause?.kind, 'Budget');
    const room = view({ revisions: [rev('v2', { desired: 1, current: 1, ready: 1, available: 1 }), rev('v1', { desired: 10, current: 10, ready: 10, available: 10 })] });
    assert.equal(explain(rolloutSpec({ steps: steps('5', '100%') }), releasing({ stepState: 'Upgrading' }), room, NOW).message, 'step 1/2: moving pods');
  });

  it('gives the approval the time it was requested, and the timed pause its end', () => {
    const approval = explain(spec, releasing({ stepState: 'StepPaused', stepReadyAt: '2030-01-07T09:59:42.123Z' }), view(), NOW);
    assert.equal(approval.message, 'step 1/3: awaiting approval since 2030-01-07T09:59:42Z (rollouts approve web)');
    assert.equal(approval.cause?.since, '2030-01-07T09:59:42.123Z');
    const timed = explain(spec, releasing({ stepIndex: 1, stepState: 'StepPaused', stepReadyAt: '2030-01-07T09:59:30.000Z' }), view(), NOW);
    assert.equal(timed.message, 'step 2/3: timed pause of 60s until 2030-01-07T10:00:30Z');
    assert.deepEqual([timed.cause?.kind, timed.cause?.until], ['TimedPause', '2030-01-07T10:00:30.000Z']);
  });

  it('names the scheduled start and where it comes from', () => {
    const r = explain(rolloutSpec({ startAt: '2030-01-08T09:00:00.000Z' }), releasing({ notBefore: '2030-01-08T09:00:00.000Z' }), view(), NOW);
    assert.equal(r.message, 'scheduled: starts at 2030-01-08T09:00:00Z (spec.startAt)');
    assert.deepEqual([r.cause?.kind, r.cause?.object, r.cause?.until], ['ScheduledStart', 'spec.startAt', '2030-01-08T09:00:00.000Z']);
    assert.equal(explain(spec, releasing({ notBefore: '2030-01-08T09:00:00.000Z' }), view(), NOW).cause?.object, 'release --at');
  });

  it('says when and in which zone the next window opens, and which window', () => {
    const windows = [
      { days: ['Sat' as const], start: '10:00', end: '11:00', timeZone: 'America/New_York' },
      { days: ['Tue' as const], start: '09:00', end: '17:00', timeZone: 'Europe/Paris' },
    ];
    const r = explain(rolloutSpec({ windows }), releasing({ gated: true }), view(), NOW); // Monday 11:00 in Paris
    assert.equal(r.message, 'outside the release windows; next opens at 2030-01-08T08:00:00Z (Tue 09:00 Europe/Paris)');
    assert.deepEqual(r.cause, { kind: 'Window', object: 'releaseWindows[1]', field: null, detail: 'Tue 09:00-17:00 Europe/Paris', since: null, until: '2030-01-08T08:00:00.000Z' });
  });

  it('puts the blocker into the failure of a missed deadline, and pauses and idle states have their own', () => {
    const failed = explain(spec, releasing({ failure: 'step 1 did not become ready within 60s: web-a: ImagePullBackOff' }), view(), NOW);
    assert.equal(failed.message, 'failed: step 1 did not become ready within 60s: web-a: ImagePullBackOff');
    assert.equal(failed.cause?.kind, 'Failed');
    assert.equal(explain(spec, releasing({}, { userPaused: true }), view(), NOW).cause?.kind, 'Paused');
    assert.deepEqual(explain(spec, { ...initialState(), stableRevision: 'v1' }, view(), NOW), { message: 'stable at revision v1', cause: null });
  });

  it('names a rollback\'s blocking pods too', () => {
    const r = explain(spec, releasing({ kind: 'rollback', targetRevision: 'v1', finalizing: true }), view({ blockers: [blocker('web-x', { revision: 'v1' })] }), NOW);
    assert.equal(r.message, 'rolling back to revision v1: web-x: ImagePullBackOff (Back-off pulling image "app:v2")');
  });
});

describe('reasons: when nothing can move', () => {
  it('a broken contract names the field or annotation, a missing workload says so', () => {
    const problem = 'annotation rollouts.kruise.io/original-max-surge is "x", which is not a maxSurge';
    const r = degradedReason(spec, view(), [problem, 'another'], NOW);
    assert.equal(r.message, `${problem}; another`);
    assert.deepEqual([r.cause?.kind, r.cause?.field], ['Contract', 'metadata.annotations[rollouts.kruise.io/original-max-surge]']);
    assert.equal(fieldOf('spec.strategy.type Recreate cannot be released in batches'), 'spec.strategy.type');
    assert.deepEqual(degradedReason(spec, view({ exists: false }), [], NOW).message, 'Deployment default/web not found');
  });

  it('an unreachable cluster keeps the time it was first seen', () => {
    const first = unreachableReason(spec, null, 'connect\nECONNREFUSED', NOW);
    assert.equal(first.message, 'cluster "local" unreachable: connect ECONNREFUSED');
    const later = unreachableReason(spec, first.cause, 'connect ECONNREFUSED', new Date('2030-01-07T10:05:00.000Z'));
    assert.equal(later.cause?.since, NOW.toISOString());
  });
});
