// The invariant watchers' approval gates (bench/testbed/approvalCaps.ts) and the port of the
// Deployment controller's proportional scaling they follow (bench/testbed/proportionalScale.ts): a
// watcher that flags what the product did not do is as wrong as one that misses what it did.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApprovalCaps } from '../../../bench/testbed/approvalCaps.ts';
import { proportionalSizes } from '../../../bench/testbed/proportionalScale.ts';

const V2 = 'app:v2';

describe('the Deployment controller\'s proportional scale, as the watchers model it', () => {
  it('after 5 → 3 → 5 a 1-pod batch beside 4 old pods has 2 pods, not 3 (maxSurge 0)', () => {
    const down = proportionalSizes([
      { name: 'old', replicas: 4, maxReplicas: 5, createdAt: 1 },
      { name: 'new', replicas: 1, maxReplicas: 5, createdAt: 2 },
    ], { replicas: 3, maxSurge: 0, statusReplicas: 5 });
    assert.deepEqual(Object.fromEntries(down), { old: 2, new: 1 });
    const up = proportionalSizes([
      { name: 'old', replicas: 2, maxReplicas: 3, createdAt: 1 },
      { name: 'new', replicas: 1, maxReplicas: 3, createdAt: 2 },
    ], { replicas: 5, maxSurge: 0, statusReplicas: 3 });
    assert.deepEqual(Object.fromEntries(up), { old: 3, new: 2 });
  });

  it('gives the leftover to the largest ReplicaSet, the newer one on a tie when scaling up', () => {
    const sizes = proportionalSizes([
      { name: 'old', replicas: 2, maxReplicas: 4, createdAt: 1 },
      { name: 'new', replicas: 2, maxReplicas: 4, createdAt: 2 },
    ], { replicas: 5, maxSurge: 0, statusReplicas: 4 });
    // round(2·5/4) = round(2.5) = 3 for the first taken (new), then only 0 left for old: 3 + 2.
    assert.deepEqual(Object.fromEntries(sizes), { new: 3, old: 2 });
  });

  it('takes everything away at 0 replicas, and leaves ReplicaSets at 0 alone', () => {
    const sizes = proportionalSizes([
      { name: 'old', replicas: 3, maxReplicas: 4, createdAt: 1 },
      { name: 'gone', replicas: 0, createdAt: 0 },
      { name: 'new', replicas: 1, maxReplicas: 4, createdAt: 2 },
    ], { replicas: 0, maxSurge: 1, statusReplicas: 4 });
    assert.deepEqual(Object.fromEntries(sizes), { old: 0, new: 0 });
  });
});

describe('approval gates of the invariant watchers', () => {
  it('resolve a percent step against the live N like the product\'s batch (50% of 5 → 3, of 3 → 2)', () => {
    const caps = new ApprovalCaps('Deployment', 'strict');
    caps.set(V2, '50%', 5);
    assert.equal(caps.of(V2, 5), 3);
    assert.equal(caps.of(V2, 3), 2);
  });

  it('under MinReadySeconds follow the controller\'s share: after 5 → 3 → 5 a 1-pod batch may have 2, and a third pod breaks it', () => {
    const caps = new ApprovalCaps('Deployment', 'proportional');
    caps.set(V2, 1, 5);
    const shares = new Map([[3, 1], [5, 2]]);
    caps.scaled(5, 3, () => shares.get(3));
    caps.scaled(3, 5, () => shares.get(5));
    assert.equal(caps.of(V2, 5), 2);
    assert.equal(caps.judge(V2, 2, 5, (cap) => `beyond ${cap}`), null);
    assert.equal(caps.judge(V2, 3, 5, (cap) => `beyond ${cap}`), 'beyond 2');
  });

  it('on a StatefulSet let the batch grow by what a scale-up created above the partition', () => {
    const caps = new ApprovalCaps('StatefulSet', 'aboveScaleUp');
    caps.set(V2, 1, 5);
    caps.scaled(5, 3, () => undefined);
    caps.scaled(3, 5, () => undefined);
    assert.equal(caps.of(V2, 5), 3);
  });

  it('stay as they were when the API refuses the command, reporting what broke them meanwhile', () => {
    const caps = new ApprovalCaps('Deployment', 'strict');
    caps.set(V2, 1, 5);
    caps.begin();
    caps.clear(); // an undo: every gate off if it is accepted
    assert.equal(caps.judge(V2, 3, 5, (cap) => `3 > ${cap}`), null, 'not a breach while the undo may be accepted');
    assert.deepEqual(caps.end(false), ['3 > 1 (while a command was in flight that the API then refused)']);
    assert.equal(caps.of(V2, 5), 1, 'the refused undo left the gate');
  });

  it('keep the new gates when the API accepts the command, and forget the old ones', () => {
    const caps = new ApprovalCaps('Deployment', 'strict');
    caps.set(V2, 1, 5);
    caps.begin();
    caps.set(V2, '50%', 5);
    assert.equal(caps.judge(V2, 3, 5, (cap) => `3 > ${cap}`), null);
    assert.deepEqual(caps.end(true), []);
    assert.equal(caps.of(V2, 5), 3);
  });
});
