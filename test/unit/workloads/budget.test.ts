// The MinReadySeconds strategy's budget chooser against a model of the native RollingUpdate
// controller with inflated minReadySeconds (pkg/controller/deployment/rolling.go: new pods never
// Available to it; it creates new pods while Σ < N + maxSurge and scales old ones down while
// old-Available > N − maxUnavailable, not-ready first). Property tests: never 0/0, never beyond the
// user's budget, truly Available pods never below N − maxUnavailable, and the batch lands exactly.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { chooseBudget, type BudgetInput } from '../../../shared/workloads/deployment/budget.ts';

interface World {
  n: number;
  userSurge: number;
  userUnavailable: number;
  oldDesired: number;
  /** Old pods that are Available (the rest are not ready). */
  oldAvailable: number;
  newDesired: number;
  /** New pods that exist and are Ready for the original minReadySeconds (truly Available). */
  newAvailable: number;
}

function input(w: World, target: number): BudgetInput {
  return {
    replicas: w.n, userMaxSurge: w.userSurge, userMaxUnavailable: w.userUnavailable, target,
    newDesired: w.newDesired, newAvailable: w.newAvailable, oldDesired: w.oldDesired, oldAvailable: w.oldAvailable,
  };
}

/** One pass: our drain below the controller's reach, then the controller settles with the live budget. Returns the lowest truly Available count on the way. */
function applyPass(w: World, target: number): { lowest: number; budget: ReturnType<typeof chooseBudget> } {
  const b = chooseBudget(input(w, target));
  let lowest = w.oldAvailable + w.newAvailable;
  const drop = (to: number) => {
    dropTo(w, to);
    lowest = Math.min(lowest, w.oldAvailable + w.newAvailable);
  };
  // Ours: down to oldTarget (not-ready pods first), only where the controller would not go.
  if (b.oldTarget < w.oldDesired && b.oldTarget < w.n - b.maxUnavailable) drop(b.oldTarget);
  settle(w, b, drop);
  return { lowest, budget: b };
}

/** The controller, until it settles on a budget: scale new up within N + maxSurge, then old down while old-Available > N − U. */
function settle(w: World, b: { maxSurge: number; maxUnavailable: number }, drop: (to: number) => void = (to) => dropTo(w, to)): void {
  for (let i = 0; i < 4; i += 1) {
    const room = w.n + b.maxSurge - (w.oldDesired + w.newDesired);
    if (room > 0) w.newDesired = Math.min(w.n, w.newDesired + room);
    const minAvailable = w.n - b.maxUnavailable;
    const maxScaledDown = w.oldDesired + w.newDesired - minAvailable - (w.newDesired - 0);
    if (maxScaledDown > 0) {
      const unready = w.oldDesired - w.oldAvailable;
      const cleanup = Math.min(maxScaledDown, unready);
      drop(w.oldDesired - cleanup);
      const extra = Math.max(0, Math.min(w.oldDesired, w.oldAvailable - minAvailable));
      if (extra > 0) drop(w.oldDesired - extra);
    }
  }
}

/** Old pods scaled down to `to`, the not-ready ones first (the ReplicaSet controller's order). */
function dropTo(w: World, to: number): void {
  const removed = w.oldDesired - to;
  const unready = w.oldDesired - w.oldAvailable;
  w.oldAvailable -= Math.max(0, removed - unready);
  w.oldDesired = to;
}

const worldArb = fc.record({
  n: fc.integer({ min: 1, max: 40 }),
  surge: fc.integer({ min: 0, max: 12 }),
  unavailable: fc.integer({ min: 0, max: 12 }),
}).map(({ n, surge, unavailable }) => {
  // ResolveFenceposts: both 0 → unavailable 1; unavailable never above N.
  const u = Math.min(n, surge === 0 && unavailable === 0 ? 1 : unavailable);
  return { n, userSurge: surge, userUnavailable: u, oldDesired: n, oldAvailable: n, newDesired: 0, newAvailable: 0 } as World;
});

describe('chooseBudget: the live maxSurge/maxUnavailable of a MinReadySeconds batch', () => {
  it('is never 0/0 and never beyond the user\'s budget; the controller never drains below what we decided', () => {
    fc.assert(fc.property(worldArb, fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 40 }), (w, t, oldD, newD) => {
      const world = { ...w, oldDesired: Math.min(oldD, w.n + w.userSurge), oldAvailable: Math.min(oldD, w.n), newDesired: Math.min(newD, w.n), newAvailable: 0 };
      const b = chooseBudget(input(world, Math.min(t, w.n)));
      assert.ok(b.maxSurge + b.maxUnavailable > 0, '0/0 is refused by the apiserver');
      assert.ok(b.maxSurge <= w.userSurge, `maxSurge ${b.maxSurge} > the user's ${w.userSurge}`);
      assert.ok(b.maxUnavailable <= w.userUnavailable, `maxUnavailable ${b.maxUnavailable} > the user's ${w.userUnavailable}`);
      assert.ok(b.oldTarget <= world.oldDesired, 'old pods are never scaled up');
      assert.ok(b.maxUnavailable <= Math.max(1, w.n - b.oldTarget), 'the controller never drains below oldTarget');
    }), { numRuns: 3000 });
  });

  it('moves batch after batch to exactly the batch, never below N − the user\'s maxUnavailable truly Available, never above N + maxSurge', () => {
    const stepsArb = fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 4 }).map((a) => [...a].sort((x, y) => x - y));
    fc.assert(fc.property(worldArb, stepsArb, (w, percents) => {
      const world = { ...w };
      for (const p of percents) {
        const target = Math.max(1, Math.min(w.n, Math.ceil((p * w.n) / 100)));
        for (let pass = 0; pass < 4 * w.n + 8; pass += 1) {
          const { lowest } = applyPass(world, target);
          assert.ok(lowest >= w.n - w.userUnavailable, `truly Available ${lowest} < ${w.n} − ${w.userUnavailable} (batch ${target}, ${JSON.stringify(world)})`);
          assert.ok(world.oldDesired + world.newDesired <= w.n + w.userSurge, `total ${world.oldDesired + world.newDesired} > ${w.n} + ${w.userSurge}`);
          assert.ok(world.newDesired <= target, `the batch overshot: ${world.newDesired} > ${target}`);
          // Time passes: the new pods become Ready and Available (original minReadySeconds).
          world.newAvailable = world.newDesired;
          if (world.newDesired === target && world.newAvailable === target) break;
        }
        assert.equal(world.newDesired, target, `batch ${target} of ${w.n} did not land: ${JSON.stringify(world)}`);
      }
    }), { numRuns: 1500 });
  });

  it('with 3/0 at 10 replicas, opens the budget step by step (sliding window): 10 truly Available pods at every moment', () => {
    const world: World = { n: 10, userSurge: 3, userUnavailable: 0, oldDesired: 10, oldAvailable: 10, newDesired: 0, newAvailable: 0 };
    const seen: string[] = [];
    for (const target of [1, 5, 10]) {
      for (let pass = 0; pass < 20 && !(world.newDesired === target && world.newAvailable === target); pass += 1) {
        const { lowest, budget } = applyPass(world, target);
        assert.ok(lowest >= 10);
        seen.push(`${budget.maxSurge}/${budget.maxUnavailable}:${world.oldDesired}+${world.newDesired}`);
        world.newAvailable = world.newDesired;
      }
    }
    // maxSurge/maxUnavailable:old+new after each pass. Surge first; an old pod goes only once a new one is Available.
    assert.deepEqual(seen, ['1/0:10+1', '3/0:9+4', '3/0:8+5', '3/0:5+8', '3/0:3+10']);
  });

  it('lands a batch in one wave when the user\'s budget allows it (25%/25% at 10: 1 → 5 at once)', () => {
    const b = chooseBudget({ replicas: 10, userMaxSurge: 3, userMaxUnavailable: 2, target: 5, newDesired: 1, newAvailable: 1, oldDesired: 10, oldAvailable: 10 });
    assert.deepEqual(b, { maxSurge: 3, maxUnavailable: 2, oldTarget: 8, hold: false });
  });

  it('never shrinks what the new revision already has (someone moved ahead while we were away)', () => {
    const b = chooseBudget({ replicas: 10, userMaxSurge: 3, userMaxUnavailable: 2, target: 1, newDesired: 4, newAvailable: 4, oldDesired: 7, oldAvailable: 7 });
    assert.equal(b.oldTarget, 6, 'the batch counts as 4: old goes to 10 − 4 (the covered surplus)');
    assert.equal(b.maxSurge, 0);
  });
});

describe('chooseBudget: the controller still acting on the live budget (soak)', () => {
  it('never lets a batch overshoot when the controller finishes the live budget\'s moves after we read and before our budget lands', () => {
    const budgetArb = fc.record({ s: fc.integer({ min: 0, max: 12 }), u: fc.integer({ min: 0, max: 12 }) });
    fc.assert(fc.property(worldArb, fc.integer({ min: 1, max: 40 }), budgetArb, fc.integer({ min: 0, max: 40 }), (w, t, live, newD) => {
      const target = Math.min(t, w.n);
      const live0 = { maxSurge: Math.min(live.s, w.userSurge), maxUnavailable: Math.min(live.u, w.userUnavailable) };
      fc.pre(live0.maxSurge + live0.maxUnavailable > 0);
      const read: World = { ...w, newDesired: Math.min(newD, target), newAvailable: 0 };
      // The live budget was ours for this batch: on its own it never takes the batch past its target.
      const alone = { ...read };
      settle(alone, live0);
      fc.pre(alone.newDesired <= target);
      const b = chooseBudget({ ...input(read, target), liveMaxUnavailable: live0.maxUnavailable });
      const world = { ...read };
      settle(world, live0); // the controller, before our patch reaches it
      settle(world, b);
      assert.ok(world.newDesired <= target, `the batch overshot: ${world.newDesired} > ${target} (read ${JSON.stringify(read)}, live ${JSON.stringify(live0)}, chosen ${b.maxSurge}/${b.maxUnavailable})`);
    }), { numRuns: 3000 });
  });

  it('keeps the live 0/1 when a stale read shows the old pods the controller is removing (kube-controller-manager back after a scale to 4: 2 pods of a 1-pod batch)', () => {
    const read = { replicas: 4, userMaxSurge: 1, userMaxUnavailable: 1, target: 1, newDesired: 0, newAvailable: 0, oldDesired: 4, oldAvailable: 4 };
    assert.deepEqual([chooseBudget(read).maxSurge, chooseBudget(read).maxUnavailable], [1, 0], 'paused: surge first');
    const b = chooseBudget({ ...read, liveMaxUnavailable: 1 });
    assert.deepEqual([b.maxSurge, b.maxUnavailable], [0, 1]);
  });
});

describe('chooseBudget: what the soak found', () => {
  it('asks for a pause once the batch is complete, and only then (after a scale-down the live budget, or the forced maxSurge 1, let the controller add a pod beyond the batch)', () => {
    const complete = { replicas: 3, userMaxSurge: 1, userMaxUnavailable: 0, target: 1, newDesired: 1, newAvailable: 1, oldDesired: 2, oldAvailable: 2 };
    assert.equal(chooseBudget(complete).hold, true, 'no surplus old pod: no accepted budget keeps the controller still');
    assert.equal(chooseBudget({ ...complete, oldDesired: 3, oldAvailable: 3 }).hold, true, 'the surplus old pod stays until the batch is Available: nothing to move meanwhile');
    assert.equal(chooseBudget({ ...complete, newDesired: 0, newAvailable: 0, oldDesired: 3, oldAvailable: 3 }).hold, false, 'the batch\'s pod is still to come');
    assert.equal(chooseBudget({ ...complete, userMaxUnavailable: 1, replicas: 4, oldDesired: 4, oldAvailable: 4 }).hold, false, 'the batch is Available: an old pod is to go');
  });
});
