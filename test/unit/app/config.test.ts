// The deployed configuration: the resync settings are validated once, with the variable named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../../shared/errors.ts';
import { DEFAULT_RESYNC_PERIOD_SECONDS, DEFAULT_SWEEP_INTERVAL_SECONDS, ENV, loadConfig } from '../../../shared/app/config.ts';

const base = {
  [ENV.tableName]: 'rollouts-test',
  [ENV.queueUrl]: 'https://sqs.us-east-1.amazonaws.com/123456789012/work.fifo',
  [ENV.triggerQueueUrl]: 'https://sqs.us-east-1.amazonaws.com/123456789012/trigger',
  [ENV.eventBusName]: 'rollouts',
};

test('the resync period defaults to 5 minutes over a 1-minute sweep, and can be set', () => {
  const c = loadConfig(base);
  assert.deepEqual([c.resyncPeriodSeconds, c.sweepIntervalSeconds], [DEFAULT_RESYNC_PERIOD_SECONDS, DEFAULT_SWEEP_INTERVAL_SECONDS]);
  assert.deepEqual([DEFAULT_RESYNC_PERIOD_SECONDS, DEFAULT_SWEEP_INTERVAL_SECONDS], [300, 60]);
  assert.equal(loadConfig({ ...base, [ENV.resyncPeriodSeconds]: '900' }).resyncPeriodSeconds, 900);
});

test('a resync period that is not a whole number of seconds, or shorter than the sweep interval, is refused by name', () => {
  assert.throws(() => loadConfig({ ...base, [ENV.resyncPeriodSeconds]: 'soon' }), (err: unknown) => err instanceof ConfigError && err.message.includes(ENV.resyncPeriodSeconds));
  assert.throws(() => loadConfig({ ...base, [ENV.resyncPeriodSeconds]: '0' }), ConfigError);
  assert.throws(
    () => loadConfig({ ...base, [ENV.resyncPeriodSeconds]: '30', [ENV.sweepIntervalSeconds]: '60' }),
    (err: unknown) => err instanceof ConfigError && /ROLLOUTS_RESYNC_PERIOD_SECONDS: must be at least the sweep interval/.test(err.message),
  );
});

test('the wake-up schedule settings come all together or not at all', () => {
  const wake = {
    [ENV.wakeScheduleGroup]: 'rollouts-wakeups',
    [ENV.wakeScheduleRoleArn]: 'arn:aws:iam::123456789012:role/wake',
    [ENV.triggerQueueArn]: 'arn:aws:sqs:us-east-1:123456789012:trigger',
  };
  assert.equal(loadConfig({ ...base, ...wake }).wakeScheduleGroup, 'rollouts-wakeups');
  assert.equal(loadConfig(base).wakeScheduleGroup, undefined);
  assert.throws(() => loadConfig({ ...base, [ENV.wakeScheduleGroup]: 'rollouts-wakeups' }), /ROLLOUTS_WAKE_SCHEDULE_GROUP: set all of/);
  assert.throws(() => loadConfig({ ...base, ...wake, [ENV.triggerQueueArn]: 'not-an-arn' }), /ROLLOUTS_TRIGGER_QUEUE_ARN: must be an SQS queue ARN/);
});
