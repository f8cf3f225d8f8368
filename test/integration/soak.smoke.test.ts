// The soak's harness at a small size (npm run soak runs it at full size): a few rollouts of each
// kind released through local mode's API while apiserver and DynamoDB requests are faulted, the
// reconciler is killed twice and kube-controller-manager stops for a while; every invariant holds,
// judged by the same watchers and narrowed rules as the full run (bench/testbed/invariants.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SMOKE_SOAK } from '../../bench/soakSizes.ts';
import { runSoak } from '../../bench/testbed/soak/soak.ts';

test('a short soak: faults, kills and a controller-manager outage break no invariant', { timeout: 480_000 }, async (t) => {
  const summary = await runSoak(SMOKE_SOAK);
  // How much of the chaos each invariant judged (the README's coverage table, for this size).
  t.diagnostic(`coverage: ${JSON.stringify(summary.coverage)}`);
  // On a failure, the stored history and the cluster's writes of each rollout that broke an
  // invariant, from 20 s before its first violation (or its last lines), so a CI log can be read without a rerun.
  const evidence = Object.entries(summary.evidence).map(([ns, lines]) => `${ns}:\n  ${around(lines, summary.violations.find((v) => v.startsWith(ns))).join('\n  ')}`).join('\n');
  assert.deepEqual(summary.violations.slice(0, 20), [], `${summary.violations.length} violations (seed ${summary.seed}):\n${summary.violations.slice(0, 20).join('\n')}\n${evidence}`);
  // Every invariant judged (in full or by its narrow native rule) over ≥ 95 % of the chaos window
  // outside the controller-manager outage, as the full soak must be (README, Robustness).
  const underJudged = Object.entries(summary.coverage).flatMap(([watcher, lines]) =>
    Object.entries(lines).filter(([, line]) => line.judgedShare < 0.95).map(([invariant, line]) => `${watcher}.${invariant}: ${line.judgedShare} (exempt ${JSON.stringify(line.exemptSeconds)})`));
  assert.deepEqual(underJudged, [], 'each invariant judged over at least 95 % of the chaos window');
  assert.ok(Object.keys(summary.coverage.deployments).length > 0 && Object.keys(summary.coverage.statefulSets).length > 0, JSON.stringify(summary.coverage));
  assert.ok(summary.releases >= 3, `releases: ${summary.releases}`);
  assert.equal(summary.kills, SMOKE_SOAK.kills);
  assert.ok(summary.kube.faults > 0 && summary.dynamodb.faults > 0, JSON.stringify({ kube: summary.kube.faultsByKind, dynamodb: summary.dynamodb.faultsByKind }));
});

function around(lines: string[], violation: string | undefined): string[] {
  const at = Date.parse(/ at (\S+Z)/.exec(violation ?? '')?.[1] ?? '');
  if (Number.isNaN(at)) return lines.slice(-120);
  return lines.filter((l) => Math.abs(Date.parse(`${l.slice(0, 23)}Z`) - (at - 7_500)) <= 12_500).slice(0, 200);
}
