// The invariant watchers' approval gates (bench/testbed/approvalCaps.ts): a watcher that flags what
// the product did not do is as wrong as one that misses what it did.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApprovalCaps } from '../../../bench/testbed/approvalCaps.ts';

describe('approval gates of the invariant watchers', () => {
  it('let the batch grow by what a scale-up added, and by what a scale-down then up put back', () => {
    const caps = new ApprovalCaps(() => 0);
    caps.set('app:v2', 1, 5);
    caps.scaled(7);
    assert.equal(caps.of('app:v2', 7), 3);
    assert.equal(caps.of('app:v2', 7, true), 1, 'strict: the approved batch only');
  });

  it('keep what they allowed for a moment after a scale-down, while its pods go (2 live pods of a 1-pod batch, 12 ms after 5 → 3)', () => {
    let now = 0;
    const caps = new ApprovalCaps(() => now);
    caps.set('app:v2', 1, 3);
    caps.scaled(5);
    assert.equal(caps.of('app:v2', 5), 3);
    now = 1_000;
    caps.scaled(3);
    assert.equal(caps.of('app:v2', 3), 3, 'the scale-down has not reached the pods yet');
    now = 7_000;
    assert.equal(caps.of('app:v2', 3), 1, 'once it had time to, the gate is the batch again');
  });

  it('never loosen a gate with a scale-down (cap set at 5 replicas, scaled to 3: still 1)', () => {
    let now = 0;
    const caps = new ApprovalCaps(() => now);
    caps.scaled(5);
    caps.set('app:v2', 1, 5);
    now = 100;
    caps.scaled(3);
    assert.equal(caps.of('app:v2', 3), 1);
  });
});
