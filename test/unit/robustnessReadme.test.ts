// The README's "Fault tolerance in numbers" section is generated (scripts/robustness-readme.ts) from
// the last default-size soak (bench/results/soak.json) and the bad-input battery's case list.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { README, readSoakResult, robustnessSection, violationKinds } from '../../scripts/robustness-readme.ts';

describe('the README\'s "Fault tolerance in numbers" section', () => {
  it('is exactly the text generated from bench/results/soak.json and the battery\'s cases', () => {
    const readme = readFileSync(README, 'utf8');
    assert.ok(readme.includes(robustnessSection(readSoakResult())), 'README.md is stale: run `node --import tsx scripts/robustness-readme.ts`');
  });

  it('counts what broke by kind, without rollout names, times or images, with how many rollouts showed each', () => {
    const soak = { ...readSoakResult(), violations: [
      'soak-1-partition-abc123: ReplicaSets ask for 6 pods > 3 + maxSurge 0 in soak-1-partition-abc123 at 2026-12-02T00:13:53.532Z',
      'soak-1-partition-abc123: ReplicaSets ask for 5 pods > 3 + maxSurge 0 in soak-1-partition-abc123 at 2026-12-02T00:13:54.052Z',
      'soak-2-partition-def456: ReplicaSets ask for 6 pods > 4 + maxSurge 1 in soak-2-partition-def456 at 2026-12-02T00:14:00.000Z',
      'soak-3-statefulset-0a1b2c: 2 live pods of registry.invalid/app:v16 in soak-3-statefulset-0a1b2c, beyond the approved 1 at 2026-12-02T00:01:00.000Z',
    ] };
    assert.deepEqual(violationKinds(soak), [
      '- ReplicaSets ask for n pods > n + maxSurge n: 3 events in 2 rollouts',
      '- n live pods of an image, beyond the approved n: 1 events in 1 rollout',
    ]);
  });
});
