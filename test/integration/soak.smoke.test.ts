// The soak's harness at a small size (npm run soak runs it at full size): a few rollouts of each
// kind released through local mode's API while apiserver and DynamoDB requests are faulted, the
// reconciler is killed twice and kube-controller-manager stops for a while; every invariant holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runSoak } from '../support/soak/soak.ts';

test('a short soak: faults, kills and a controller-manager outage break no invariant', { timeout: 480_000 }, async () => {
  const summary = await runSoak({ seed: 7, rollouts: 3, chaosMs: 70_000, kills: 2, outageAtMs: 20_000, outageMs: 15_000, faultRate: 0.1 });
  assert.deepEqual(summary.violations, []);
  assert.ok(summary.releases >= 3, `releases: ${summary.releases}`);
  assert.equal(summary.kills, 2);
  assert.ok(summary.kube.faults > 0 && summary.dynamodb.faults > 0, JSON.stringify({ kube: summary.kube.faultsByKind, dynamodb: summary.dynamodb.faultsByKind }));
});
