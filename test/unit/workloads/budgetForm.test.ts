// The MinReadySeconds strategy writes each pass's budget so that a scale by the user before our next
// pass keeps the native controller within the user's own budget at the new N (the default soak, seed
// 1313: N 5 → 3 with maxSurge 25%, and the controller applied the absolute 2 we had written for N 5).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { budgetForm } from '../../../shared/workloads/deployment/budget.ts';
import { scaledValue } from '../../../shared/rollout/arithmetic.ts';
import type { IntOrPercent } from '../../../shared/rollout/types.ts';

describe('MinReadySeconds strategy: the form a pass writes its budget in', () => {
  it('resolves to the chosen pods at N, and at every other N to no more than the user\'s percent does', () => {
    for (const roundUp of [true, false]) {
      for (const percent of [0, 1, 10, 25, 33, 50, 100]) {
        const user: IntOrPercent = `${percent}%`;
        for (let n = 1; n <= 120; n += 1) {
          for (let value = 0; value <= scaledValue(user, n, roundUp); value += 1) {
            const form = budgetForm(value, n, user, roundUp);
            assert.equal(scaledValue(form, n, roundUp), value, `${String(form)} at N ${n}`);
            if (typeof form === 'number') continue; // no percent resolves to it exactly (N > 100): the absolute, as before
            for (let other = 0; other <= 300; other += 7) {
              assert.ok(scaledValue(form, other, roundUp) <= scaledValue(user, other, roundUp), `${String(form)} (for ${value} of ${n}) at N ${other} exceeds ${user}`);
            }
          }
        }
      }
    }
  });

  it('writes the user\'s own value when it is what the pass chose, and an absolute where the user gave one', () => {
    assert.equal(budgetForm(2, 5, '25%', true), '25%');
    assert.equal(budgetForm(2, 5, null, true), '25%', 'unset: the Kubernetes default, 25%');
    assert.equal(budgetForm(0, 5, '25%', false), '0%');
    assert.equal(budgetForm(1, 5, 3, true), 1);
  });

  it('keeps the controller within 25% of 3 after a scale from 5, where the absolute it replaced did not', () => {
    const written = budgetForm(2, 5, '25%', true);
    assert.equal(scaledValue(written, 3, true), 1);
    assert.equal(scaledValue(2, 3, true), 2, 'the absolute: 3 + 2 pods asked, the user allowing 3 + 1');
  });
});
