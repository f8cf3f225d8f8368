// EMF metrics of the reconcile function: one duration per pass, one count per transition published.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { countingPublisher, timedPasses, transitionMetricName } from '../../../shared/app/observability.ts';
import { EVENT, rolloutEvent } from '../../../shared/rollout/events.ts';
import { CollectingPublisher } from '../../../bench/testbed/fakes/collectingPublisher.ts';
import { testObservability } from '../../support/fakes/observability.ts';

describe('reconcile metrics', () => {
  test('each pass adds its duration, failed passes too', async () => {
    const { metrics } = testObservability();
    const run = timedPasses(metrics, async (fail: boolean) => {
      if (fail) throw new Error('boom');
      return 'ok';
    });
    assert.equal(await run(false), 'ok');
    await assert.rejects(run(true), /boom/);
    metrics.publishStoredMetrics();
    const [doc] = metrics.emitted;
    assert.equal((doc?.ReconcileDuration as number[]).length, 2);
    assert.deepEqual((doc?._aws as { CloudWatchMetrics: { Metrics: { Name: string; Unit: string }[] }[] }).CloudWatchMetrics[0]?.Metrics.find((m) => m.Name === 'ReconcileDuration')?.Unit, 'Milliseconds');
  });

  test('each published transition is counted under its own metric', async () => {
    const { metrics } = testObservability();
    const inner = new CollectingPublisher();
    const key = { cluster: 'c', namespace: 'n', name: 'w' };
    const at = new Date('2030-01-01T00:00:00Z');
    const e = (type: (typeof EVENT)[keyof typeof EVENT]) => rolloutEvent(key, type, { releaseId: 'r1', phase: 'Progressing', stepIndex: 0, message: '', at });
    await countingPublisher(inner, metrics).publish([e(EVENT.ReleaseStarted), e(EVENT.ReleaseFailed), e(EVENT.ReleaseFailed)]);
    metrics.publishStoredMetrics();
    assert.equal(inner.events.length, 3, 'the events still go out');
    assert.deepEqual([metrics.total('TransitionReleaseStarted'), metrics.total('TransitionReleaseFailed')], [1, 2]);
    assert.equal(transitionMetricName('Waiting For Scheduled Start'), 'TransitionWaitingForScheduledStart');
  });
});
