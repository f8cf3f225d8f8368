// The README's "Fault tolerance in numbers" section is generated (scripts/robustness-readme.ts) from
// the last default-size soak (bench/results/soak.json) and the bad-input battery's case list.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { README, readSoakResult, robustnessSection } from '../../scripts/robustness-readme.ts';

describe('the README\'s "Fault tolerance in numbers" section', () => {
  it('is exactly the text generated from bench/results/soak.json and the battery\'s cases', () => {
    const readme = readFileSync(README, 'utf8');
    assert.ok(readme.includes(robustnessSection(readSoakResult())), 'README.md is stale: run `node --import tsx scripts/robustness-readme.ts`');
  });


});
