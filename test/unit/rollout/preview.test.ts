import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { previewBatches } from '../../../shared/rollout/preview.ts';
import type { IntOrPercent, Step } from '../../../shared/rollout/types.ts';
import { WORKLOAD_KINDS } from '../../../shared/rollout/types.ts';

const approval = { type: 'approval' } as const;
const none = { type: 'none' } as const;

describe('previewBatches', () => {
  test('a 10-replica Deployment with steps 1, 50%, 100%', () => {
    const steps: Step[] = [{ replicas: 1, pause: approval }, { replicas: '50%', pause: approval }, { replicas: '100%', pause: none }];
    assert.deepEqual(previewBatches('Deployment', 10, steps), {
      replicas: 10,
      batches: [
        { step: 1, replicas: 1, updated: 1, stable: 9, pause: 'approval' },
        { step: 2, replicas: '50%', updated: 5, stable: 5, pause: 'approval' },
        { step: 3, replicas: '100%', updated: 10, stable: 0, pause: 'none' },
      ],
    });
  });

  test('applies the Deployment N−1 cap but not for other kinds', () => {
    const steps: Step[] = [{ replicas: '90%', pause: { type: 'timed', seconds: 30 } }];
    assert.deepEqual(previewBatches('Deployment', 5, steps).batches[0], { step: 1, replicas: '90%', updated: 4, stable: 1, pause: '30s' });
    assert.deepEqual(previewBatches('StatefulSet', 5, steps).batches[0], { step: 1, replicas: '90%', updated: 5, stable: 0, pause: '30s' });
    // A canary Deployment (Kruise's canary style): the plain ceil, and all N stable pods stay until the end.
    assert.deepEqual(previewBatches('Deployment', 5, steps, false).batches[0], { step: 1, replicas: '90%', updated: 5, stable: 5, pause: '30s' });
  });

  test('clamps int steps larger than the workload', () => {
    assert.deepEqual(previewBatches('CloneSet', 3, [{ replicas: 8, pause: none }]).batches.map((b) => [b.updated, b.stable]), [[3, 0]]);
  });

  test('numbers steps from 1, echoes replicas as written, and keeps stable = N − updated', () => {
    const replicas: fc.Arbitrary<IntOrPercent> = fc.oneof(fc.integer({ min: 1, max: 500 }), fc.integer({ min: 1, max: 100 }).map((p): IntOrPercent => `${p}%`));
    fc.assert(fc.property(
      fc.constantFrom(...WORKLOAD_KINDS), fc.integer({ min: 0, max: 500 }), fc.array(replicas, { minLength: 1, maxLength: 50 }),
      (kind, total, rs) => {
        const preview = previewBatches(kind, total, rs.map((r) => ({ replicas: r, pause: approval })));
        return preview.replicas === total && preview.batches.every((b, i) =>
          b.step === i + 1 && b.replicas === rs[i] && b.stable === total - b.updated && b.updated >= 0 && b.stable >= 0);
      },
    ));
  });
});
