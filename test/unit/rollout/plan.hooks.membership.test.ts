// Which pods a release brought, and so which get its postUpdate (issue 21): decided from the
// revision and the release's record of the pods already on its target when it started, never by
// comparing a pod's creationTimestamp (whole seconds) with the release's start (milliseconds). A pod
// created in the release's first second gets its postUpdate; so does the pod an automatic rollback
// recreates at once, under the rollback's own key; whatever the granularity of the clocks (property).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Hook, Invocation, InvocationResult } from '../../../shared/rollout/checkTypes.ts';
import { HookLoop, succeedAll, wholeSeconds } from '../../support/sim/podSetSim.ts';
import { rolloutSpec, steps } from '../../support/sim/scenario.ts';
import type { RolloutSpec } from '../../../shared/rollout/types.ts';

const notify: Hook = { target: { kind: 'exec', command: ['notify-ready'], container: null }, timeoutSeconds: 10, retries: 0, backoffSeconds: 1 };
const postOnly = (over: Partial<RolloutSpec> = {}) => rolloutSpec({
  workloadRef: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web' }, deploymentStrategy: null, onDeletePolicy: 'Automatic',
  steps: steps('1:none', '100%'), lifecycle: { preUpdate: null, postUpdate: notify }, ...over,
});
/** 265 ms into a second, as in the issue (pod created at …:18Z, release started at …:18.265Z). */
const START = new Date('2026-11-30T10:00:00.265Z');

const postUpdates = (loop: HookLoop, prefix: string) => loop.calls
  .filter((c): c is Extract<Invocation, { type: 'run-hook' }> => c.type === 'run-hook' && c.phase === 'postUpdate' && c.idempotencyKey.startsWith(prefix))
  .map((c) => c.pod).sort();

describe('plan: the pods a release brought get its postUpdate', () => {
  it('calls postUpdate on a pod created in the same second as the release started', () => {
    const loop = new HookLoop(postOnly(), 3, succeedAll, { start: START, stamp: wholeSeconds });
    loop.run((l) => l.state.stableRevision === 'v1');
    loop.sim.template = 'v2';
    // The release starts, and its first pod is replaced within that same second.
    loop.run((l) => l.sim.pods.some((p) => p.revision === 'v2' && !p.gone), { seconds: 0 });
    const first = loop.sim.pods.find((p) => p.revision === 'v2');
    assert.ok(first && Date.parse(first.since) < Date.parse(loop.state.release?.startedAt ?? ''), 'the pod looks older than the release');
    loop.run((l) => l.state.phase === 'Completed');
    assert.deepEqual(postUpdates(loop, 'r1/'), ['web-0', 'web-1', 'web-2'], 'every pod the release brought, the first one too');
  });

  it('calls the rollback\'s postUpdate on the pod an automatic rollback recreates at once, and on no untouched pod', () => {
    // The release's postUpdate on web-2 is refused: the release fails and rolls back.
    const answer = (call: Invocation, now: Date): InvocationResult | null => {
      if (call.type === 'run-hook' && !call.idempotencyKey.includes('-rollback/')) {
        return { type: 'run-hook', phase: call.phase, pod: call.pod, attempt: call.attempt, outcome: { result: 'failed', retryable: false, output: 'HTTP 403: no' }, at: now.toISOString() };
      }
      return succeedAll(call, now);
    };
    const loop = new HookLoop(postOnly({ rollbackOnFailure: true }), 3, answer, { start: START, stamp: wholeSeconds });
    loop.run((l) => l.state.stableRevision === 'v1');
    loop.sim.template = 'v2';
    for (let i = 0; i < 100 && loop.state.release?.kind !== 'rollback'; i += 1) {
      loop.now = new Date(loop.now.getTime() + 5000);
      loop.pass();
      loop.sim.settle(loop.now);
    }
    assert.deepEqual(postUpdates(loop, 'r1/'), ['web-2']);
    // The rollback puts the stable template back and the pod is recreated in the rollback's first second.
    loop.run((l) => l.sim.pods.every((p) => p.revision === 'v1' && !p.gone), { seconds: 0 });
    loop.run((l) => l.state.release === null);
    assert.equal(loop.state.phase, 'Failed');
    assert.deepEqual(postUpdates(loop, 'r1-rollback/'), ['web-2'], 'the recreated pod, under the rollback\'s key; the untouched ones get none');
  });

  it('records the pods already on the target when the release starts', () => {
    const loop = new HookLoop(postOnly({ rollbackOnFailure: true }), 3, succeedAll, { start: START });
    loop.run((l) => l.state.stableRevision === 'v1');
    loop.sim.template = 'v2';
    loop.pass();
    assert.deepEqual(loop.state.release?.podsAtStart, []);
  });

  it('gives every brought pod exactly one postUpdate and no other pod any, whatever the timestamps\' granularity (property)', () => {
    const stamps: Record<string, (at: Date) => string> = {
      milliseconds: (at) => at.toISOString(),
      truncated: wholeSeconds,
      rounded: (at) => wholeSeconds(new Date(Math.round(at.getTime() / 1000) * 1000)),
      microseconds: (at) => `${at.toISOString().slice(0, 23)}000Z`,
    };
    fc.assert(fc.property(
      fc.constantFrom(...Object.keys(stamps)), fc.integer({ min: 0, max: 999 }), fc.integer({ min: 1, max: 5 }),
      fc.array(fc.integer({ min: 0, max: 1500 }), { minLength: 1, maxLength: 8 }), fc.boolean(),
      (granularity, offsetMs, replicas, gapsMs, twoSteps) => {
        const spec = postOnly({ steps: twoSteps ? steps('1:none', '100%') : steps('50%:none', '100%') });
        const loop = new HookLoop(spec, replicas, succeedAll, { start: new Date(Date.parse('2026-11-30T10:00:00Z') + offsetMs), stamp: stamps[granularity] });
        loop.run((l) => l.state.stableRevision === 'v1');
        loop.sim.template = 'v2';
        // Passes and the controller's moves at uneven sub-second and second gaps.
        for (let i = 0; i < 400 && loop.state.phase !== 'Completed'; i += 1) {
          loop.pass();
          loop.sim.settle(loop.now);
          loop.now = new Date(loop.now.getTime() + (gapsMs[i % gapsMs.length] as number));
        }
        assert.equal(loop.state.phase, 'Completed', loop.state.message);
        const all = loop.sim.pods.map((p) => p.name).sort();
        const calls = postUpdates(loop, 'r1/');
        assert.deepEqual(calls, all, `${granularity}: every replaced pod once, no other`);
      },
    ), { numRuns: 200 });
  });
});
