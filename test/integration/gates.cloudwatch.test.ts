// A cloudwatchAlarm gate on real LocalStack (CloudWatch alarms): an alarm in ALARM blocks the step
// of a StatefulSet release, and once set back to OK the step goes on; an alarm the gate names that
// does not exist is an error of the check, never a pass.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CloudWatchClient, PutMetricAlarmCommand, SetAlarmStateCommand } from '@aws-sdk/client-cloudwatch';
import { AdapterCallRunner } from '../../shared/adapters/checks/runner.ts';
import { startLocalStack, type LocalStack } from '../support/aws/localstack.ts';
import { Engine } from '../../bench/testbed/engine.ts';

const V2 = 'registry.invalid/web:v2';

describe('a cloudwatchAlarm gate on LocalStack', () => {
  let engine: Engine;
  let localstack: LocalStack;
  let cloudwatch: CloudWatchClient;
  before(async () => {
    localstack = await startLocalStack({ services: ['cloudwatch'] });
    cloudwatch = new CloudWatchClient({ endpoint: localstack.endpoint, region: localstack.region, credentials: localstack.credentials });
    engine = await Engine.start();
    engine.calls = new AdapterCallRunner({ clock: engine.clock, cloudWatch: () => cloudwatch });
  });
  after(async () => {
    cloudwatch?.destroy();
    await engine?.stop();
    await localstack?.stop();
  });

  // TreatMissingData 'ignore': LocalStack evaluates every alarm once a period, and with no data
  // points and the default 'missing' it moves the alarm to INSUFFICIENT_DATA a minute in (which the
  // gate rightly calls inconclusive); 'ignore' keeps the state this test sets
  // (localstack/services/cloudwatch/alarm_scheduler.py calculate_alarm_state).
  async function alarm(name: string, state: 'OK' | 'ALARM'): Promise<void> {
    await cloudwatch.send(new PutMetricAlarmCommand({
      AlarmName: name, Namespace: 'Web', MetricName: 'Errors5xx', Statistic: 'Sum', Period: 60, EvaluationPeriods: 1, Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'ignore',
    }));
    await cloudwatch.send(new SetAlarmStateCommand({ AlarmName: name, StateValue: state, StateReason: `set by the test: ${state}` }));
  }

  it('holds the step while the alarm is in ALARM, and goes on once it is OK', async () => {
    await alarm('web-5xx', 'ALARM');
    const s = await engine.statefulSetScenario('gate-alarm', {
      replicas: 3,
      steps: [{ replicas: 1, pause: { duration: 0 }, gates: [{ name: 'no-alarms', interval: '2s', failureLimit: 100, cloudwatchAlarm: { alarmNames: ['web-5xx'] } }] }, { replicas: '100%' }],
    });
    await s.reconcileUntilSet((x) => x.state.phase === 'Healthy' && x.state.stableRevision !== null, 'the StatefulSet to be held');
    await s.setImage(V2);
    const blocked = await s.reconcileUntilSet((x) => (x.state.release?.gates?.[0]?.failures ?? 0) >= 2, 'the alarm to block the step');
    assert.match(blocked.state.message, /gate no-alarms 0\/1 checks passed, last value web-5xx ALARM \(fails the condition\)/);
    assert.equal(Object.values(blocked.byName).filter((p) => p.image === V2).length, 1);

    await cloudwatch.send(new SetAlarmStateCommand({ AlarmName: 'web-5xx', StateValue: 'OK', StateReason: 'recovered' }));
    const done = await s.reconcileUntilSet((x) => x.state.phase === 'Completed', 'the release to complete', 90_000);
    assert.ok(Object.values(done.byName).every((p) => p.image === V2));
    assert.ok((await engine.store.listHistory(s.key)).some((h) => h.type === 'Gate Passed' && /web-5xx OK/.test(h.message)));
  });

  it('fails on an alarm that does not exist once errors outlast consecutiveErrorLimit', async () => {
    const s = await engine.statefulSetScenario('gate-alarm-typo', {
      replicas: 2,
      steps: [{ replicas: 1, pause: { duration: 0 }, gates: [{ name: 'no-alarms', interval: '1s', consecutiveErrorLimit: 1, cloudwatchAlarm: { alarmNames: ['web-5xxx'] } }] }, { replicas: '100%' }],
    });
    await s.reconcileUntilSet((x) => x.state.phase === 'Healthy' && x.state.stableRevision !== null, 'the StatefulSet to be held');
    await s.setImage(V2);
    const failed = await s.reconcileUntilSet((x) => x.state.phase === 'Failed', 'the release to fail');
    assert.equal(failed.state.message, 'failed: gate no-alarms failed at step 1: 2 checks in a row could not be made (consecutiveErrorLimit 1); last: web-5xxx not found');
  });
});
