// Pod hooks and the per-pod update timeout, as the planner decides them (pure): preUpdate before a
// pod is replaced, highest ordinal first, one pod in flight at a time; postUpdate once it is Ready;
// retries with backoff; Failed with the hook's output; a lost outcome delivered again with the same
// idempotency key; rollback when configured. The calls are scripted (test/support/sim/podSetSim.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Hook, Invocation, InvocationResult } from '../../../shared/rollout/checkTypes.ts';
import { EVENT } from '../../../shared/rollout/events.ts';
import { HookLoop, succeedAll } from '../../support/sim/podSetSim.ts';
import { rolloutSpec, steps } from '../../support/sim/scenario.ts';

const exec = (command: string): Hook => ({ target: { kind: 'exec', command: ['sh', '-c', command], container: null }, timeoutSeconds: 10, retries: 3, backoffSeconds: 5 });
const spec = (over: Parameters<typeof rolloutSpec>[0] = {}) => rolloutSpec({
  workloadRef: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web' }, deploymentStrategy: null, onDeletePolicy: 'Automatic',
  steps: steps('2:none', '100%'),
  lifecycle: { preUpdate: exec('read-only on'), postUpdate: exec('read-only off') },
  ...over,
});

function release(loop: HookLoop): void {
  loop.run((l) => l.state.stableRevision === 'v1');
  loop.sim.template = 'v2';
}

const failing = (pod: string, times: number, retryable = true) => {
  const seen = new Map<string, number>();
  return (call: Invocation, now: Date): InvocationResult => {
    if (call.type === 'run-hook' && call.phase === 'preUpdate' && call.pod === pod) {
      const n = (seen.get(pod) ?? 0) + 1;
      seen.set(pod, n);
      if (n <= times) return { type: 'run-hook', phase: call.phase, pod, attempt: call.attempt, outcome: { result: 'failed', retryable, output: retryable ? 'HTTP 500: busy' : 'HTTP 403: read-only switch refused by policy' }, at: now.toISOString() };
    }
    return succeedAll(call, now);
  };
};

describe('plan: pod hooks', () => {
  it('runs preUpdate before and postUpdate after each pod, highest ordinal first, each exactly once', () => {
    const loop = new HookLoop(spec(), 4, succeedAll);
    release(loop);
    loop.run((l) => l.state.phase === 'Completed');
    assert.deepEqual(loop.hookCalls(), [
      'preUpdate web-3 #1', 'postUpdate web-3 #1', 'preUpdate web-2 #1', 'postUpdate web-2 #1',
      'preUpdate web-1 #1', 'postUpdate web-1 #1', 'preUpdate web-0 #1', 'postUpdate web-0 #1',
    ]);
    assert.ok(loop.sim.pods.every((p) => p.revision === 'v2'));
    assert.equal(loop.events.filter((e) => e.type === EVENT.HookSucceeded).length, 8, 'every outcome is in the history');
  });

  it('never replaces a pod before its preUpdate has succeeded', () => {
    const loop = new HookLoop(spec(), 4, succeedAll);
    release(loop);
    const replacedBeforeHook: string[] = [];
    loop.run((l) => {
      for (const p of l.sim.pods) {
        if ((p.gone || p.revision === 'v2') && l.state.release && l.state.release.hooks?.[`preUpdate/${p.name}`]?.status !== 'Succeeded') replacedBeforeHook.push(p.name);
      }
      return l.state.phase === 'Completed';
    });
    assert.deepEqual(replacedBeforeHook, []);
  });

  it('retries a failing preUpdate with doubling backoff, then goes on when it succeeds', () => {
    const loop = new HookLoop(spec(), 3, failing('web-2', 3));
    release(loop);
    const times: number[] = [];
    const answer = loop.answer;
    loop.answer = (c, now) => {
      if (c.type === 'run-hook' && c.pod === 'web-2' && c.phase === 'preUpdate') times.push(now.getTime());
      return answer(c, now);
    };
    loop.run((l) => l.state.phase === 'Completed', { seconds: 1, maxPasses: 400 });
    assert.deepEqual(loop.hookCalls('preUpdate').filter((c) => c.includes('web-2')), ['preUpdate web-2 #1', 'preUpdate web-2 #2', 'preUpdate web-2 #3', 'preUpdate web-2 #4']);
    const gaps = times.slice(1).map((t, i) => Math.round((t - (times[i] as number)) / 1000));
    assert.deepEqual(gaps, [5, 10, 20], 'backoff 5s, doubled each time');
    assert.equal(loop.events.filter((e) => e.type === EVENT.HookAttemptFailed).length, 3);
  });

  it('shows the hook being retried in the reason', () => {
    const loop = new HookLoop(spec(), 3, failing('web-2', 1));
    release(loop);
    loop.run((l) => l.state.release?.hooks?.['preUpdate/web-2']?.status === 'Waiting', { settle: false });
    loop.pass();
    assert.match(loop.state.message, /^step 1\/2: preUpdate hook on pod web-2: attempt 1 failed \(HTTP 500: busy\); next attempt at /);
    assert.equal(loop.state.cause?.kind, 'Hook');
    assert.equal(loop.state.cause?.object, 'pod/web-2');
  });

  it('fails the release with the hook\'s output when the target refuses, without replacing the pod', () => {
    const loop = new HookLoop(spec(), 3, failing('web-2', 99, false));
    release(loop);
    loop.run((l) => l.state.phase === 'Failed');
    assert.equal(loop.state.message, 'failed: preUpdate hook on pod web-2 failed after 1 attempt: HTTP 403: read-only switch refused by policy');
    assert.deepEqual(loop.state.cause && { kind: loop.state.cause.kind, object: loop.state.cause.object }, { kind: 'Hook', object: 'pod/web-2' });
    assert.ok(loop.sim.pods.every((p) => p.revision === 'v1' && !p.gone), 'no pod was replaced');
    assert.deepEqual(loop.hookCalls(), ['preUpdate web-2 #1'], 'a refusal is not retried');
  });

  it('fails after the last retry, and rolls back to stable when configured', () => {
    const loop = new HookLoop(spec({ rollbackOnFailure: true, steps: steps('1:none', '100%') }), 3, failing('web-1', 99));
    release(loop);
    loop.run((l) => l.state.phase === 'Failed' && l.state.release === null, { seconds: 10, maxPasses: 400 });
    assert.ok(loop.sim.pods.every((p) => p.revision === 'v1'), `pods back on stable: ${JSON.stringify(loop.sim.pods.map((p) => p.revision))}`);
    assert.match(loop.state.message, /^release r1 failed, rolled back to revision v1: preUpdate hook on pod web-1 failed after 4 attempts: HTTP 500: busy$/);
    assert.equal(loop.state.cause?.kind, 'Hook');
    // Putting the stable template back makes the controller replace the updated pod at once (no
    // preUpdate can come first); its postUpdate runs under the rollback's own key, untouched pods get none.
    const rollbackCalls = loop.calls.filter((c) => c.type === 'run-hook' && c.idempotencyKey.startsWith('r1-rollback/'));
    assert.deepEqual(rollbackCalls.map((c) => (c.type === 'run-hook' ? `${c.phase} ${c.pod}` : '')), ['postUpdate web-2']);
  });

  it('delivers a call whose outcome was lost again with the same idempotency key, once its timeout has passed', () => {
    const loop = new HookLoop(spec(), 2, succeedAll);
    release(loop);
    const first = loop.calls.length;
    loop.pass({ crashAfterCalls: true });
    const lost = loop.calls[first];
    assert.ok(lost?.type === 'run-hook');
    loop.now = new Date(loop.now.getTime() + 20_000);
    loop.pass();
    assert.equal(loop.calls.length, first + 1, 'not again before its timeout (10s) and the grace (30s)');
    loop.now = new Date(loop.now.getTime() + 25_000);
    loop.pass();
    const again = loop.calls[first + 1];
    assert.ok(again?.type === 'run-hook');
    assert.equal(again.idempotencyKey, lost.idempotencyKey);
    assert.equal(again.idempotencyKey, 'r1/web-1/preUpdate/1');
    loop.run((l) => l.state.phase === 'Completed');
    assert.equal(loop.hookCalls().filter((c) => c === 'preUpdate web-1 #1').length, 2);
  });

  it('calls each hook at most once per pass even when planned twice from the same state', () => {
    const loop = new HookLoop(spec(), 2, succeedAll);
    release(loop);
    loop.pass();
    const first = loop.lastPlan?.invocations ?? [];
    assert.equal(first.length, 1);
    // The same pass again, from the STATE it persisted before calling: the call is in flight.
    loop.pass({ crashBeforeCalls: true });
    assert.equal(loop.lastPlan?.invocations.length, 0);
  });
});

describe('plan: per-pod update timeout', () => {
  it('fails the release naming the pod, its phase and its last condition', () => {
    const loop = new HookLoop(spec({ lifecycle: undefined, podUpdateTimeoutSeconds: 60, steps: steps('1', '100%') }), 3, succeedAll);
    release(loop);
    loop.sim.neverReady.add('v2');
    loop.run((l) => l.state.phase === 'Failed', { seconds: 10 });
    assert.match(loop.state.message, /^failed: pod web-2 was not Ready on revision v2 within 60s \(podUpdateTimeout\): phase Pending, Ready False \(ContainersNotReady: containers with unready status: \[app\]\)$/);
    assert.deepEqual(loop.state.cause && [loop.state.cause.kind, loop.state.cause.object], ['PodNotReady', 'pod/web-2']);
  });

  it('does not fail a pod that becomes Ready in time', () => {
    const loop = new HookLoop(spec({ lifecycle: undefined, podUpdateTimeoutSeconds: 60, steps: steps('1:none', '100%') }), 3, succeedAll);
    release(loop);
    loop.run((l) => l.state.phase === 'Completed', { seconds: 10 });
  });
});
