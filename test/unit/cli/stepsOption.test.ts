import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '../../../shared/errors.ts';
import { parseStepsOption } from '../../../shared/cli/stepsOption.ts';

describe('parseStepsOption (--steps)', () => {
  test('bare items follow Kruise: approval, except a last step of 100%', () => {
    assert.deepEqual(parseStepsOption('1,50%,100%'), [
      { replicas: 1, pause: { type: 'approval' } },
      { replicas: '50%', pause: { type: 'approval' } },
      { replicas: '100%', pause: { type: 'none' } },
    ]);
  });

  test('a bare last int step still waits for approval', () => {
    assert.deepEqual(parseStepsOption('1,10').map((s) => s.pause), [{ type: 'approval' }, { type: 'approval' }]);
  });

  test('reads pause suffixes approval, none and <n>s', () => {
    assert.deepEqual(parseStepsOption('1:approval, 20%:none ,50%:60s,80%:0s,100%:0s').map((s) => s.pause), [
      { type: 'approval' }, { type: 'none' }, { type: 'timed', seconds: 60 }, { type: 'none' }, { type: 'none' },
    ]);
  });

  const invalid: [string, RegExp][] = [
    ['1,150%', /item 2 \("150%"\): replicas must be <= 100%/],
    ['0%', /item 1 \("0%"\): replicas must be > 0%/],
    ['0', /replicas must be > 0/],
    ['1,,2', /item 2 \(""\): replicas is empty/],
    ['abc', /needs "%"/],
    ['50%:soon', /pause must be approval, none or <n>s/],
    ['50%:60s:x', /at most one ":"/],
    ['50%,20%', /item 2 \("20%"\): must not be less than the previous step/],
    ['1,100%:60s', /a last step of 100% never pauses/],
    ['1,100%:approval', /a last step of 100% never pauses/],
    [Array.from({ length: 51 }, () => '1').join(','), /at most 50 steps/],
  ];
  for (const [text, reason] of invalid) {
    test(`rejects ${text.length > 20 ? `${text.slice(0, 20)}…` : JSON.stringify(text)}`, () => {
      assert.throws(() => parseStepsOption(text), (err: unknown) => {
        assert.ok(err instanceof ValidationError);
        assert.match(err.message, reason);
        return true;
      });
    });
  }
});
