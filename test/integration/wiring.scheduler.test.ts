// Wake-ups beyond SQS's 15-minute delay, against real LocalStack: the one-off EventBridge Scheduler
// schedule the reconcile follow-up creates, its payload (the reconcile message for the trigger
// queue) and its settings, the idempotent re-create (an update in place), and the delete when the
// wake-up moves. LocalStack never fires a schedule (a schedule aimed at SQS never fired in 75 s),
// so that a fired schedule's message reaches the trigger queue and a reconcile is not tested here;
// what it delivers is the same body as SqsReconcileQueue's, which the wiring test does deliver. The
// follow-up test gives reconcileBatch the results of two passes (a wake-up two hours away, then
// none) rather than running a release: it checks the batch's scheduling, not a pause or an approval.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CreateScheduleGroupCommand, GetScheduleCommand, ResourceNotFoundException, SchedulerClient } from '@aws-sdk/client-scheduler';
import { SchedulerWakeups, atExpression, wakeScheduleName } from '../../shared/adapters/scheduler/wakeSchedules.ts';
import { decodeTriggerBody, encodeReconcileMessage } from '../../shared/adapters/sqs/messages.ts';
import { SqsReconcileQueue } from '../../shared/adapters/sqs/reconcileQueue.ts';
import { reconcileBatch } from '../../shared/app/reconcileBatch.ts';
import { Meter } from '../../shared/meter.ts';
import type { ReconcileResult } from '../../shared/reconcile/reconcile.ts';
import type { RolloutKey } from '../../shared/rollout/types.ts';
import { startAwsEmulator, type AwsEmulator } from '../support/aws/emulator.ts';
import { ManualClock, T0 } from '../../bench/testbed/stateStoreFixtures.ts';

const web: RolloutKey = { cluster: 'prod', namespace: 'shop', name: 'web' };
const ROLE = 'arn:aws:iam::123456789012:role/rollouts-wake';
let aws: AwsEmulator;
let scheduler: SchedulerClient;
let groupName: string;

function wakeups(): SchedulerWakeups {
  return new SchedulerWakeups({ client: scheduler, groupName, targetArn: aws.trigger.arn, roleArn: ROLE });
}

async function getSchedule(key: RolloutKey, at: Date) {
  return scheduler.send(new GetScheduleCommand({ Name: wakeScheduleName(key, at), GroupName: groupName }));
}

before(async () => {
  aws = await startAwsEmulator();
  scheduler = new SchedulerClient({ endpoint: aws.endpoint, region: aws.region, credentials: aws.credentials });
  groupName = `rollouts-wakeups-${Date.now()}`;
  await scheduler.send(new CreateScheduleGroupCommand({ Name: groupName }));
});

after(async () => {
  scheduler?.destroy();
  await aws?.stop();
});

describe('one-off Scheduler wake-ups (beyond SQS\'s 15 minutes)', () => {
  test('a wake-up becomes an at() schedule in UTC, deleted after it fires, delivering the reconcile message to the trigger queue', async () => {
    const at = new Date('2030-06-01T08:30:00.250Z');
    await wakeups().schedule(web, at);
    const s = await getSchedule(web, at);
    assert.equal(s.ScheduleExpression, 'at(2030-06-01T08:30:01)', 'rounded up to the second: never early');
    assert.equal(s.ScheduleExpressionTimezone, 'UTC');
    assert.equal(s.FlexibleTimeWindow?.Mode, 'OFF');
    assert.equal(s.ActionAfterCompletion, 'DELETE');
    assert.equal(s.GroupName, groupName);
    assert.equal(s.Target?.Arn, aws.trigger.arn);
    assert.equal(s.Target?.RoleArn, ROLE);
    assert.deepEqual(decodeTriggerBody(s.Target?.Input ?? ''), { key: web, reason: 'wake', via: 'queue' }, 'what reconcile decodes');
    assert.equal(s.Target?.Input, encodeReconcileMessage(web, 'wake'));
  });

  test('scheduling the same wake-up again updates the one schedule in place; another instant or rollout is another schedule', async () => {
    const at = new Date('2030-06-02T00:00:00.000Z');
    const meter = new Meter();
    const w = new SchedulerWakeups({ client: scheduler, groupName, targetArn: aws.trigger.arn, roleArn: ROLE, meter });
    await w.schedule(web, at);
    await w.schedule(web, at);
    assert.equal(meter.get('queue.send'), 3, 'create, then create refused (exists) and update');
    assert.equal((await getSchedule(web, at)).ScheduleExpression, atExpression(at));
    assert.notEqual(wakeScheduleName(web, at), wakeScheduleName(web, new Date(at.getTime() + 1000)));
    assert.notEqual(wakeScheduleName(web, at), wakeScheduleName({ ...web, name: 'api' }, at));
    assert.match(wakeScheduleName(web, at), /^[0-9a-zA-Z-_.]{1,64}$/);
  });

  test('a cancelled wake-up\'s schedule is gone; cancelling one that fired (or never existed) is fine', async () => {
    const at = new Date('2030-06-03T00:00:00.000Z');
    await wakeups().schedule(web, at);
    await wakeups().cancel(web, at);
    await assert.rejects(getSchedule(web, at), ResourceNotFoundException);
    await wakeups().cancel(web, at);
  });

  test('the reconcile batch\'s follow-up turns a pass\'s wake-up two hours away into a schedule, and deletes it when the next pass moves the wake-up on', async () => {
    const clock = new ManualClock();
    const queue = new SqsReconcileQueue({ client: aws.sqs, queueUrl: aws.work.url, triggerQueueUrl: aws.trigger.url, clock });
    const later = new Date(T0.getTime() + 2 * 3600_000);
    const result = (over: Partial<ReconcileResult>): ReconcileResult => ({ outcome: 'progressed', phase: 'Progressing', requeueSeconds: null, wakeAt: null, previousWakeAt: null, writes: 0, counts: new Meter().snapshot(), ...over });
    const silent = { info: () => {}, warn: () => {}, error: () => {} };
    const record = { messageId: 'm1', body: encodeReconcileMessage(web, 'api') };
    await reconcileBatch([record], { run: async () => result({ wakeAt: later.toISOString() }), queue, clock, log: silent, wakeups: wakeups() });
    assert.equal((await getSchedule(web, later)).Target?.Input, encodeReconcileMessage(web, 'wake'));
    await reconcileBatch([record], { run: async () => result({ wakeAt: null, previousWakeAt: later.toISOString() }), queue, clock, log: silent, wakeups: wakeups() });
    await assert.rejects(getSchedule(web, later), ResourceNotFoundException);
  });
});
