import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { batchTarget, isBatchReady, resolveRollingBudget, scaledValue } from '../../../shared/rollout/arithmetic.ts';
import type { IntOrPercent, WorkloadKind } from '../../../shared/rollout/types.ts';
import { WORKLOAD_KINDS } from '../../../shared/rollout/types.ts';

const pct = (n: number): IntOrPercent => `${n}%`;

describe('scaledValue (k8s GetScaledValueFromIntOrPercent)', () => {
  const cases: [IntOrPercent, number, boolean, number][] = [
    [3, 10, true, 3],
    [200, 10, true, 200], // ints are returned as is: clamping is the caller's job
    ['20%', 10, true, 2],
    ['25%', 10, true, 3],
    ['25%', 10, false, 2],
    ['33%', 3, true, 1],
    ['33%', 3, false, 0],
    ['0%', 10, true, 0],
    ['200%', 10, true, 20],
    // Evaluated as p·N/100 like Go; p/100·N would give 7.000000000000001 and round up to 8.
    ['7%', 100, true, 7],
    ['29%', 100, true, 29],
  ];
  for (const [v, total, roundUp, expected] of cases) {
    test(`${JSON.stringify(v)} of ${total} rounded ${roundUp ? 'up' : 'down'} is ${expected}`, () => {
      assert.equal(scaledValue(v, total, roundUp), expected);
    });
  }

  test('rejects a string that is not a percent, as k8s does', () => {
    assert.throws(() => scaledValue('abc%' as IntOrPercent, 10, true), RangeError);
    assert.throws(() => scaledValue(1.5, 10, true), RangeError);
  });
});

describe('batchTarget (Kruise CalculateBatchReplicas / NewRSReplicasLimit)', () => {
  const cases: [WorkloadKind, IntOrPercent, number, number][] = [
    ['StatefulSet', '20%', 10, 2],
    ['StatefulSet', '200%', 10, 10],
    ['CloneSet', 200, 10, 10],
    ['CloneSet', '10%', 10, 1],
    ['DaemonSet', '1%', 10, 1], // ceil: a tiny percent still moves one pod
    ['StatefulSet', '90%', 5, 5],
    ['Deployment', '90%', 5, 4], // a Deployment keeps one old pod until "100%"
    ['Deployment', '99%', 5, 4],
    ['Deployment', '100%', 5, 5],
    ['Deployment', 5, 5, 5], // ints are not capped
    ['Deployment', 7, 5, 5],
    ['Deployment', '50%', 1, 1], // N = 1: no cap
    ['Deployment', '50%', 2, 1],
    ['Deployment', '1%', 0, 0],
    ['StatefulSet', 3, 0, 0],
  ];
  for (const [kind, replicas, total, expected] of cases) {
    test(`${kind} ${JSON.stringify(replicas)} of ${total} → ${expected}`, () => {
      assert.equal(batchTarget(kind, replicas, total), expected);
    });
  }

  const kind = fc.constantFrom(...WORKLOAD_KINDS);
  const replicas = fc.oneof(fc.integer({ min: 1, max: 2000 }), fc.integer({ min: 1, max: 100 }).map(pct));
  const total = fc.integer({ min: 0, max: 1000 });

  test('is always within [0, N]', () => {
    fc.assert(fc.property(kind, replicas, total, (k, r, n) => {
      const t = batchTarget(k, r, n);
      return Number.isInteger(t) && t >= 0 && t <= n;
    }));
  });

  test('non-decreasing steps of one type give non-decreasing targets', () => {
    const ints = fc.array(fc.integer({ min: 1, max: 2000 }), { minLength: 2, maxLength: 10 }).map((a) => a.sort((x, y) => x - y));
    const percents = fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 2, maxLength: 10 })
      .map((a) => a.sort((x, y) => x - y).map(pct));
    fc.assert(fc.property(kind, fc.oneof(ints, percents), total, (k, steps: IntOrPercent[], n) => {
      const targets = steps.map((s) => batchTarget(k, s, n));
      return targets.every((t, i) => i === 0 || t >= (targets[i - 1] ?? 0));
    }));
  });

  test('a Deployment percent below 100% never updates every pod when N > 1', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 99 }), fc.integer({ min: 2, max: 1000 }), (p, n) => {
      return batchTarget('Deployment', pct(p), n) <= n - 1;
    }));
  });
});

describe('isBatchReady (Kruise BatchContext.IsBatchReady)', () => {
  const cases: [string, Parameters<typeof isBatchReady>[0], boolean][] = [
    ['threshold 1, desired 5: 5 updated / 4 ready is ready', { desired: 5, updated: 5, updatedReady: 4, failureThreshold: 1 }, true],
    ['threshold 1, desired 5: 5 updated / 3 ready is not', { desired: 5, updated: 5, updatedReady: 3, failureThreshold: 1 }, false],
    ['60%: 4 updated < desired 5 is not ready whatever the threshold', { desired: 5, updated: 4, updatedReady: 4, failureThreshold: '60%' }, false],
    ['no threshold: every updated pod must be ready', { desired: 5, updated: 5, updatedReady: 4, failureThreshold: null }, false],
    ['no threshold: all ready is ready', { desired: 5, updated: 5, updatedReady: 5, failureThreshold: null }, true],
    ['the threshold counts on updated pods, not desired', { desired: 5, updated: 10, updatedReady: 3, failureThreshold: '20%' }, true],
    ['at least one updated pod must be ready even with 100%', { desired: 5, updated: 5, updatedReady: 0, failureThreshold: '100%' }, false],
    ['an empty batch is ready', { desired: 0, updated: 0, updatedReady: 0, failureThreshold: null }, true],
  ];
  for (const [name, input, expected] of cases) test(name, () => assert.equal(isBatchReady(input), expected));

  test('is monotone in updatedReady: more ready pods never make a ready batch unready', () => {
    const threshold = fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 100 }).map(pct));
    const counts = fc.integer({ min: 0, max: 50 }).chain((updated) =>
      fc.tuple(fc.constant(updated), fc.integer({ min: 0, max: updated }), fc.integer({ min: 0, max: updated })));
    fc.assert(fc.property(
      fc.integer({ min: 0, max: 50 }), counts, threshold,
      (desired, [updated, a, b], failureThreshold) => {
        const readyAtLow = isBatchReady({ desired, updated, updatedReady: Math.min(a, b), failureThreshold });
        return !readyAtLow || isBatchReady({ desired, updated, updatedReady: Math.max(a, b), failureThreshold });
      },
    ));
  });
});

describe('resolveRollingBudget (k8s ResolveFenceposts + MaxUnavailable)', () => {
  const cases: [number, IntOrPercent | undefined, IntOrPercent | undefined, number, number][] = [
    [10, undefined, undefined, 3, 2], // defaults 25%/25%: surge rounds up, unavailable down
    [1, undefined, undefined, 1, 0],
    [10, 0, 0, 0, 1], // both 0 → unavailable 1 so the rollout can progress
    [10, '0%', '0%', 0, 1],
    [10, '10%', '10%', 1, 1],
    [4, '30%', '30%', 2, 1],
    [3, 0, 5, 0, 3], // unavailable capped at the replica count
    [0, undefined, undefined, 0, 0],
  ];
  for (const [total, surge, unavailable, s, u] of cases) {
    test(`${total} replicas, maxSurge ${String(surge)}, maxUnavailable ${String(unavailable)} → ${s}/${u}`, () => {
      assert.deepEqual(resolveRollingBudget(total, surge, unavailable), { maxSurge: s, maxUnavailable: u });
    });
  }
});
