// Property: a hook that succeeded is never run again for the same pod and phase, whatever happens
// around it — crashes before or after the call, outcomes lost, retries, duplicate passes from the
// same STATE, time jumps — and a pod is never replaced before its preUpdate succeeded. A call whose
// outcome was lost may be delivered again, but only with the key of the call that took it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Hook, Invocation, InvocationResult } from '../../../shared/rollout/checkTypes.ts';
import { hookKey } from '../../../shared/rollout/hooks.ts';
import { HookLoop } from '../../support/sim/podSetSim.ts';
import { rolloutSpec, steps } from '../../support/sim/scenario.ts';

type Op = { op: 'pass' } | { op: 'crash-after-calls' } | { op: 'crash-before-calls' } | { op: 'duplicate' } | { op: 'settle' } | { op: 'tick'; seconds: number };
type Outcome = 'ok' | 'retryable' | 'refused';

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.constant({ op: 'pass' } as Op) },
  { weight: 1, arbitrary: fc.constant({ op: 'crash-after-calls' } as Op) },
  { weight: 1, arbitrary: fc.constant({ op: 'crash-before-calls' } as Op) },
  { weight: 1, arbitrary: fc.constant({ op: 'duplicate' } as Op) },
  { weight: 4, arbitrary: fc.constant({ op: 'settle' } as Op) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 120 }).map((seconds) => ({ op: 'tick', seconds }) as Op) },
);
const hook = (retries: number): Hook => ({ target: { kind: 'exec', command: ['true'], container: null }, timeoutSeconds: 10, retries, backoffSeconds: 2 });

describe('plan: pod hooks under crashes and duplicates (property)', () => {
  it('never runs a hook again once its success was recorded, and never replaces a pod before its preUpdate', () => {
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 5 }), fc.array(opArb, { minLength: 20, maxLength: 160 }), fc.array(fc.constantFrom<Outcome>('ok', 'ok', 'ok', 'retryable', 'refused'), { minLength: 1, maxLength: 40 }),
      fc.integer({ min: 0, max: 3 }), fc.boolean(),
      (replicas, ops, outcomes, retries, rollback) => {
        let n = 0;
        const answer = (call: Invocation, now: Date): InvocationResult | null => {
          if (call.type !== 'run-hook') return null;
          const o = outcomes[n++ % outcomes.length] as Outcome;
          const outcome = o === 'ok' ? { result: 'succeeded' as const, output: '' } : { result: 'failed' as const, retryable: o === 'retryable', output: o };
          return { type: 'run-hook', phase: call.phase, pod: call.pod, attempt: call.attempt, outcome, at: now.toISOString() };
        };
        const spec = rolloutSpec({
          workloadRef: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web' }, deploymentStrategy: null, onDeletePolicy: 'Automatic',
          steps: steps('1:none', '50%:none', '100%'), rollbackOnFailure: rollback, lifecycle: { preUpdate: hook(retries), postUpdate: hook(retries) },
        });
        const loop = new HookLoop(spec, replicas, answer);
        loop.run((l) => l.state.stableRevision === 'v1');
        loop.sim.template = 'v2';
        // Per (release, kind, phase, pod): the key of the call whose success was recorded.
        const succeeded = new Map<string, string>();
        const scope = (c: Extract<Invocation, { type: 'run-hook' }>) => `${c.idempotencyKey.split('/')[0]}:${hookKey(c.phase, c.pod)}`;
        for (const o of ops) {
          const before = loop.calls.length;
          if (o.op === 'settle') loop.sim.settle(loop.now);
          else if (o.op === 'tick') loop.now = new Date(loop.now.getTime() + o.seconds * 1000);
          else if (o.op === 'duplicate') {
            // Two passes planned from the same STATE: the second finds the first's calls in flight.
            const saved = structuredClone(loop.state);
            loop.pass({ crashBeforeCalls: true });
            loop.state = saved;
            loop.pass();
          } else loop.pass({ crashAfterCalls: o.op === 'crash-after-calls', crashBeforeCalls: o.op === 'crash-before-calls' });
          for (const c of loop.calls.slice(before)) {
            if (c.type !== 'run-hook') continue;
            assert.equal(succeeded.get(scope(c)), undefined, `${c.phase} on ${c.pod} ran again (${c.idempotencyKey}) after it succeeded`);
          }
          const rel = loop.state.release;
          for (const [key, record] of Object.entries(rel?.hooks ?? {})) {
            if (record.status === 'Succeeded' && rel) succeeded.set(`${rel.id}${rel.kind === 'release' ? '' : `-${rel.kind}`}:${key}`, key);
          }
          if (rel?.kind === 'release') {
            for (const p of loop.sim.pods) {
              const replaced = p.gone || p.revision === rel.targetRevision;
              if (replaced) assert.equal(rel.hooks?.[hookKey('preUpdate', p.name)]?.status, 'Succeeded', `${p.name} replaced before its preUpdate succeeded`);
            }
          }
        }
      },
    ), { numRuns: 300 });
  });
});
