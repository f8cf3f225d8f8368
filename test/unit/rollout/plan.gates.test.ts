// Step gates as the planner decides them (pure): checked once the batch is ready, every interval,
// until `count` successes; more failed checks than failureLimit, or more errors in a row than
// consecutiveErrorLimit, fail the release with the gate's last value (cause Gate) and roll back
// when configured; an inconclusive check waits and says so; the pause comes after the gates.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Gate, GateMeasurement, Invocation, InvocationResult } from '../../../shared/rollout/checkTypes.ts';
import { EVENT } from '../../../shared/rollout/events.ts';
import type { Step } from '../../../shared/rollout/types.ts';
import { HookLoop } from '../../support/sim/podSetSim.ts';
import { rolloutSpec } from '../../support/sim/scenario.ts';

const errorRate = (over: Partial<Gate> = {}): Gate => ({
  name: 'error-rate', provider: { kind: 'prometheus', url: 'http://127.0.0.1:9090', query: 'app_errors_ratio', condition: { op: '<', value: 0.05 }, sigv4: null },
  intervalSeconds: 30, initialDelaySeconds: 0, count: 3, failureLimit: 2, consecutiveErrorLimit: 4, timeoutSeconds: 5, ...over,
});
const gated = (gates: Gate[], pause: Step['pause'] = { type: 'none' }): Step[] => [{ replicas: 1, pause, gates }, { replicas: '100%', pause: { type: 'none' } }];
const spec = (s: Step[], over: Parameters<typeof rolloutSpec>[0] = {}) => rolloutSpec({ workloadRef: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web' }, deploymentStrategy: null, onDeletePolicy: 'Automatic', steps: s, ...over });

/** Answers gate checks from a script of measurements (the last one repeats). */
function measurements(...script: GateMeasurement[]) {
  let i = 0;
  return (call: Invocation, now: Date): InvocationResult | null => {
    if (call.type !== 'check-gate') return null;
    const m = script[Math.min(i, script.length - 1)] as GateMeasurement;
    i += 1;
    return { type: 'check-gate', gate: call.gate.name, stepIndex: call.context.step - 1, measurement: m, at: now.toISOString() };
  };
}
const pass = (v = '0.01'): GateMeasurement => ({ result: 'pass', value: v });
const fail = (v = '0.07'): GateMeasurement => ({ result: 'fail', value: v });

function started(loop: HookLoop): HookLoop {
  loop.run((l) => l.state.stableRevision === 'v1');
  loop.sim.template = 'v2';
  return loop;
}

describe('plan: step gates', () => {
  it('checks a gate every interval once the batch is ready and advances after count successes', () => {
    const loop = started(new HookLoop(spec(gated([errorRate()])), 4, measurements(pass())));
    loop.run((l) => l.state.release?.stepState === 'Analyzing', { seconds: 1 });
    assert.equal(loop.sim.pods.filter((p) => p.revision === 'v2').length, 1, 'the batch is ready before the gate is checked');
    loop.run((l) => l.state.release?.stepIndex === 1 || l.state.phase === 'Completed', { seconds: 5 });
    const checks = loop.calls.filter((c) => c.type === 'check-gate');
    assert.equal(checks.length, 3, 'exactly count checks');
    assert.ok(loop.events.some((e) => e.type === EVENT.GatePassed && e.message === 'gate error-rate passed: 3 successful checks; last value: 0.01'));
    loop.run((l) => l.state.phase === 'Completed');
  });

  it('does not check again before the interval has passed', () => {
    const loop = started(new HookLoop(spec(gated([errorRate({ count: 100 })])), 2, measurements(pass())));
    loop.run((l) => l.state.release?.stepState === 'Analyzing', { seconds: 1 });
    const t0 = loop.now.getTime();
    loop.run((l) => l.now.getTime() - t0 >= 95_000, { seconds: 1 });
    assert.equal(loop.calls.filter((c) => c.type === 'check-gate').length, 4, 'at 0s, 30s, 60s and 90s');
    assert.match(loop.state.message, /^step 1\/2: analyzing: gate error-rate 4\/100 checks passed, last value 0\.01$/);
    assert.deepEqual(loop.state.cause && [loop.state.cause.kind, loop.state.cause.object, loop.state.cause.detail], ['Gate', 'gate/error-rate', '0.01']);
  });

  it('waits while the gate fails within failureLimit, and advances when it recovers', () => {
    const loop = started(new HookLoop(spec(gated([errorRate()])), 4, measurements(fail(), fail(), pass(), pass(), pass())));
    loop.run((l) => l.state.release?.stepIndex === 1, { seconds: 5 });
    assert.equal(loop.events.filter((e) => e.type === EVENT.GateCheckFailed).length, 2);
    assert.equal(loop.state.phase, 'Progressing');
  });

  it('fails the release after more than failureLimit failed checks, with the gate\'s last value as the cause', () => {
    const loop = started(new HookLoop(spec(gated([errorRate()])), 4, measurements(pass(), fail('0.07'), fail('0.09'), fail('0.11'))));
    loop.run((l) => l.state.phase === 'Failed', { seconds: 5 });
    assert.equal(loop.state.message, 'failed: gate error-rate failed at step 1: 3 failed checks (failureLimit 2); last value: 0.11');
    assert.deepEqual(loop.state.cause && [loop.state.cause.kind, loop.state.cause.object, loop.state.cause.detail], ['Gate', 'gate/error-rate', '0.11']);
    assert.equal(loop.sim.pods.filter((p) => p.revision === 'v2').length, 1, 'the next batch never started');
  });

  it('rolls back to stable when configured, and keeps saying which gate failed', () => {
    const loop = started(new HookLoop(spec(gated([errorRate({ failureLimit: 0 })]), { rollbackOnFailure: true }), 4, measurements(fail('0.2'))));
    loop.run((l) => l.state.phase === 'Failed' && l.state.release === null, { seconds: 5 });
    assert.ok(loop.sim.pods.every((p) => p.revision === 'v1'));
    assert.equal(loop.state.message, 'release r1 failed, rolled back to revision v1: gate error-rate failed at step 1: 1 failed checks (failureLimit 0); last value: 0.2');
    assert.equal(loop.state.cause?.kind, 'Gate');
  });

  it('waits on an inconclusive check and says so, counting it for nothing', () => {
    const loop = started(new HookLoop(spec(gated([errorRate({ count: 1 })])), 2, measurements({ result: 'inconclusive', value: 'no data: the query returned no samples' })));
    loop.run((l) => l.calls.filter((c) => c.type === 'check-gate').length >= 5, { seconds: 30 });
    assert.equal(loop.state.release?.stepState, 'Analyzing');
    assert.match(loop.state.message, /gate error-rate 0\/1 checks passed, inconclusive, waiting for data \(no data: the query returned no samples\)$/);
  });

  it('fails after more consecutive errors than consecutiveErrorLimit, and an error in between resets nothing but the streak', () => {
    const err = { result: 'error', value: 'HTTP 503: unavailable' } as const;
    const loop = started(new HookLoop(spec(gated([errorRate({ consecutiveErrorLimit: 2, count: 5 })])), 2, measurements(err, err, pass(), err, err, err)));
    loop.run((l) => l.state.phase === 'Failed', { seconds: 30 });
    assert.equal(loop.state.message, 'failed: gate error-rate failed at step 1: 3 checks in a row could not be made (consecutiveErrorLimit 2); last: HTTP 503: unavailable');
  });

  it('runs the gates before the step\'s approval pause', () => {
    const loop = started(new HookLoop(spec(gated([errorRate({ count: 1 })], { type: 'approval' })), 2, measurements(pass())));
    loop.run((l) => l.state.release?.stepState === 'StepPaused', { seconds: 5 });
    const types = loop.events.map((e) => e.type);
    assert.ok(types.indexOf(EVENT.GatePassed) < types.indexOf(EVENT.AwaitingApproval));
  });

  it('checks the gates of the last 100% step before handing back', () => {
    const last: Step[] = [{ replicas: '100%', pause: { type: 'none' }, gates: [errorRate({ count: 1 })] }];
    const loop = started(new HookLoop(spec(last), 2, measurements(fail())));
    loop.run((l) => l.state.release?.stepState === 'Analyzing', { seconds: 5 });
    assert.ok(loop.sim.pods.every((p) => p.revision === 'v2'));
    assert.equal(loop.state.release?.finalizing, false, 'not handed back before the gate');
  });
});
