import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { nextMoves, type MoveInput } from '../../../shared/workloads/deployment/moves.ts';

const base = (over: Partial<MoveInput>): MoveInput => ({
  total: 10, maxSurge: 0, maxUnavailable: 1, target: 'new', stable: 'old',
  revisions: [{ id: 'old', desired: 10, available: 10 }], distribution: { new: 5, old: 5 }, ...over,
});

describe('nextMoves: one budgeted increment toward a distribution', () => {
  it('swaps within maxUnavailable when there is no surge room (down first, up into the freed room)', () => {
    assert.deepEqual([...nextMoves(base({}))], [['old', 9], ['new', 1]]);
  });

  it('uses the surge room first and spends the unavailability budget on ready pods', () => {
    const moves = nextMoves(base({ maxSurge: 3, maxUnavailable: 2 }));
    assert.deepEqual(Object.fromEntries(moves), { old: 8, new: 5 });
  });

  it('removes not-ready pods for free and waits when no budget is left', () => {
    const input = base({ revisions: [{ id: 'old', desired: 9, available: 9 }, { id: 'new', desired: 1, available: 0 }], distribution: { new: 5, old: 5 } });
    assert.deepEqual([...nextMoves(input)], [], 'availability 9 = N − 1: nothing may go');
    const unready = base({ revisions: [{ id: 'old', desired: 10, available: 8 }], distribution: { new: 5, old: 5 } });
    assert.deepEqual(Object.fromEntries(nextMoves(unready)), { old: 8, new: 2 }, 'the two unready old pods go for free; availability 8 < N − 1 leaves no budget for ready ones');
  });

  it('counts pods above a ReplicaSet\'s spec as already gone', () => {
    const input = base({ revisions: [{ id: 'old', desired: 9, available: 10 }, { id: 'new', desired: 1, available: 0 }] });
    assert.deepEqual([...nextMoves(input)], [], 'only min(available, desired) = 9 counts');
  });

  it('scales the stable revision back up after the workload grew (HPA)', () => {
    const input = base({ total: 20, maxSurge: 5, maxUnavailable: 5, revisions: [{ id: 'old', desired: 5, available: 5 }, { id: 'new', desired: 5, available: 5 }], distribution: { new: 10, old: 10 } });
    assert.deepEqual(Object.fromEntries(nextMoves(input)), { new: 10, old: 10 });
  });

  it('drains an abandoned revision before the stable one', () => {
    const input = base({
      maxUnavailable: 2, target: 'v3', stable: 'v1',
      revisions: [{ id: 'v1', desired: 5, available: 5 }, { id: 'v2', desired: 5, available: 5 }],
      distribution: { v3: 1, v1: 9 },
    });
    assert.deepEqual(Object.fromEntries(nextMoves(input)), { v2: 3, v3: 1, v1: 6 }, 'v2 spends the budget; the freed room goes to the target first, then stable');
  });

  it('never shrinks the target in a forward step: pods the native controller moved ahead stay, the stable one gives way', () => {
    const input = base({ maxSurge: 3, maxUnavailable: 2, revisions: [{ id: 'old', desired: 5, available: 5 }, { id: 'new', desired: 5, available: 5 }], distribution: { new: 2, old: 8 } });
    assert.deepEqual([...nextMoves(input)], [], '5 new stay; the stable one is not scaled back up');
  });

  it('shrinks the target only for a scale-down of the workload, to its proportional share', () => {
    const input = base({ total: 10, maxSurge: 3, maxUnavailable: 2, revisions: [{ id: 'old', desired: 10, available: 10 }, { id: 'new', desired: 10, available: 10 }], distribution: { new: 5, old: 5 } });
    assert.deepEqual(Object.fromEntries(nextMoves(input)), { old: 5, new: 5 }, 'an HPA 20 → 10 halves both revisions');
  });

  it('always reports a target that has no ReplicaSet yet, even at 0 pods', () => {
    const input = base({ maxUnavailable: 0, maxSurge: 0, revisions: [{ id: 'old', desired: 10, available: 10 }] });
    assert.deepEqual([...nextMoves(input)], [['new', 0]]);
  });
});
