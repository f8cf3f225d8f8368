// The README's table of supported workloads is the drivers' own summaries (scripts/generate.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { workloadTable } from '../../../scripts/generate.ts';
import { WORKLOAD_KINDS } from '../../../shared/rollout/workloadKinds.ts';

describe('the README\'s "Supported workloads and strategies" table', () => {
  it('is exactly the table generated from the registry, one row per kind', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const table = workloadTable();
    assert.ok(readme.includes(table), 'README.md is stale: run `node --import tsx scripts/generate.ts`');
    assert.equal(table.split('\n').length, 2 + WORKLOAD_KINDS.length);
  });
});
