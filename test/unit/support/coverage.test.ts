// The watchers' coverage counts (bench/testbed/coverage.ts): seconds per mode over a window, the
// outage left out, and the share judged.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Coverage, judgedShare, mergeCoverage } from '../../../bench/testbed/coverage.ts';

describe('coverage of an invariant', () => {
  it('counts seconds judged, narrowed and exempt inside the window, leaving out the outage', () => {
    let now = 0;
    const c = new Coverage(() => now);
    c.mode('surge', 'judged');
    now = 10_000;
    c.mode('surge', 'exempt:scaleDownNotYetApplied');
    now = 12_000;
    c.mode('surge', 'judged');
    now = 20_000;
    c.mode('surge', 'narrowed:rule');
    const r = c.report({ from: 0, to: 30_000, leaveOut: { from: 25_000, to: 30_000 } }).surge;
    assert.ok(r);
    assert.deepEqual({ seconds: r.seconds, judged: r.judgedSeconds, narrowed: r.narrowedSeconds, exempt: r.exemptSeconds }, { seconds: 25, judged: 18, narrowed: { rule: 5 }, exempt: { scaleDownNotYetApplied: 2 } });
    assert.equal(judgedShare(r), 23 / 25);
  });

  it('counts checks and the checks an exemption let pass, and sums watchers', () => {
    const a = new Coverage(() => 0);
    a.sample('surge');
    a.sample('surge', 'partitionNewReplicaSetFirst');
    const b = new Coverage(() => 0);
    b.sample('surge');
    const merged = mergeCoverage([a.report({ from: 0, to: 1 }), b.report({ from: 0, to: 1 })]).surge;
    assert.equal(merged?.samples, 3);
    assert.deepEqual(merged?.exemptSamples, { partitionNewReplicaSetFirst: 1 });
  });

  it('counts the time before the watcher said anything as not judged', () => {
    let now = 5_000;
    const c = new Coverage(() => now);
    c.mode('availability', 'judged');
    now = 10_000;
    const r = c.report({ from: 0, to: 10_000 }).availability;
    assert.deepEqual(r?.exemptSeconds, { 'not watching yet': 5 });
  });
});
