// The soak's harness at a small size (npm run soak runs it at full size): a few rollouts of each
// kind released through local mode's API while apiserver and DynamoDB requests are faulted, the
// reconciler is killed twice and kube-controller-manager stops for a while; every invariant holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SMOKE_SOAK } from '../../bench/soakSizes.ts';
import { runSoak } from '../support/soak/soak.ts';

test('a short soak: faults, kills and a controller-manager outage break no invariant', { timeout: 480_000 }, async () => {
  const summary = await runSoak(SMOKE_SOAK);
  assert.deepEqual(summary.violations, []);
  assert.ok(summary.releases >= 3, `releases: ${summary.releases}`);
  assert.equal(summary.kills, SMOKE_SOAK.kills);
  assert.ok(summary.kube.faults > 0 && summary.dynamodb.faults > 0, JSON.stringify({ kube: summary.kube.faultsByKind, dynamodb: summary.dynamodb.faultsByKind }));
});
