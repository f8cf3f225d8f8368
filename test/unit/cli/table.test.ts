import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatTable } from '../../../shared/cli/table.ts';

test('formatTable pads every column but the last to its widest cell, two spaces apart', () => {
  assert.equal(formatTable([['STEP', 'PAUSE'], ['10', 'approval'], ['2', 'none']]), 'STEP  PAUSE\n10    approval\n2     none');
});
