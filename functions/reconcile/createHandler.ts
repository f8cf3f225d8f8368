// Reconcile function: SQS batches from the FIFO work queue and the trigger queue (delayed re-runs,
// watch events routed by the bus rule) → reconcile each key once → partial batch failure response.
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { appLog, countingPublisher, createObservability, timedPasses, withMeteredRequests, type Observability } from '../../shared/app/observability.ts';
import { reconcileBatch } from '../../shared/app/reconcileBatch.ts';
import type { AppDeps } from '../../shared/app/lambdaDeps.ts';
import type { Trigger } from '../../shared/adapters/sqs/messages.ts';
import { reconcile, type ReconcileResult } from '../../shared/reconcile/reconcile.ts';
import { isFleetQueueKey, type QueueKey } from '../../shared/fleet/key.ts';
import { reconcileFleet } from '../../shared/reconcile/fleet/reconcileFleet.ts';

export type ReconcileHandlerDeps = Pick<AppDeps, 'reconcile' | 'queue' | 'clock' | 'meter' | 'wakeups' | 'watcher'> & {
  /** The pass to run per key; tests may stand in for it. Default: reconcile with `deps.reconcile`. */
  run?: (key: QueueKey, trigger: Trigger) => Promise<ReconcileResult>;
};

export function createReconcileHandler(deps: ReconcileHandlerDeps, obs: Observability = createObservability('rollouts-reconcile')) {
  const { logger, metrics } = obs;
  const log = appLog(logger);
  // Per pass: its duration, and one count per transition it published (shared/app/observability.ts).
  const run = timedPasses(metrics, deps.run ?? ((key: QueueKey) => {
    const passDeps = { ...deps.reconcile, events: countingPublisher(deps.reconcile.events, metrics) };
    return isFleetQueueKey(key) ? reconcileFleet(key.fleet, passDeps) : reconcile(key, passDeps);
  }));
  return middy<SQSEvent, SQSBatchResponse, Error, Context>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics, { captureColdStartMetric: true }))
    .handler(async (event) => {
      const outcome = await withMeteredRequests(deps.meter, metrics, () =>
        reconcileBatch(
          event.Records.map((r) => ({ messageId: r.messageId, body: r.body, receiveCount: Number(r.attributes?.ApproximateReceiveCount ?? 1) })),
          { run, queue: deps.queue, clock: deps.clock, log, ...(deps.wakeups ? { wakeups: deps.wakeups } : {}), ...(deps.watcher ? { watcher: deps.watcher } : {}) },
        ),
      );
      metrics.addMetric('Reconciles', MetricUnit.Count, outcome.keys.length);
      metrics.addMetric('ReconcileFailures', MetricUnit.Count, outcome.keys.filter((k) => k.error !== null).length);
      metrics.addMetric('InvalidMessages', MetricUnit.Count, outcome.invalid);
      for (const k of outcome.keys) {
        // One metric per outcome (noop, progressed, conflict, missing, removed): no dimensions needed.
        if (k.result) metrics.addMetric(`Outcome${capitalise(k.result.outcome)}`, MetricUnit.Count, 1);
      }
      return { batchItemFailures: outcome.failures.map((itemIdentifier) => ({ itemIdentifier })) };
    });
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
