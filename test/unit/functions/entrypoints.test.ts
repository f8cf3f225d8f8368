// The Lambda entry points (infra/bundling.ts: functions/<name>/handler.ts exporting `handler`) build
// their handler from the environment at load, as in a cold start. No request is sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FUNCTION_NAMES } from '../../../infra/bundling.ts';
import { ENV } from '../../../shared/app/config.ts';

test('every entry point exports a handler built from the environment at load', async () => {
  Object.assign(process.env, {
    [ENV.tableName]: 'rollouts-test',
    [ENV.queueUrl]: 'https://sqs.us-east-1.amazonaws.com/123456789012/work.fifo',
    [ENV.triggerQueueUrl]: 'https://sqs.us-east-1.amazonaws.com/123456789012/trigger',
    [ENV.eventBusName]: 'rollouts',
    AWS_REGION: 'us-east-1',
    POWERTOOLS_METRICS_DISABLED: 'true',
  });
  for (const name of FUNCTION_NAMES) {
    const mod = (await import(`../../../functions/${name}/handler.ts`)) as { handler?: unknown };
    assert.equal(typeof mod.handler, 'function', name);
  }
});
