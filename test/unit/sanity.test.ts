import { test } from 'node:test';
import assert from 'node:assert/strict';

test('tests run on Node 22, the Lambda runtime', () => {
  assert.equal(process.versions.node.split('.')[0], '22');
});
