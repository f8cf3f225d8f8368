// Sweep function: one EventBridge Scheduler tick (its Input is the whole event:
// {"scheduledTime": "<aws.scheduler.scheduled-time>"}) → queue every rollout whose wake-up is due,
// and every rollout whose resync turn fell in this tick's window.
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { CoreDeps } from '../../shared/app/coreDeps.ts';
import { createObservability, withMeteredRequests, type Observability } from '../../shared/app/observability.ts';
import { sweepDue, tickWindow, type SweepResult } from '../../shared/reconcile/sweep.ts';

/** The schedule's Input (infra/constructs/PeriodicInvocation.ts). */
export interface SchedulerTick {
  scheduledTime?: string;
}

export interface SweepResponse extends SweepResult {
  scheduledTime: string | null;
}

export type SweepHandlerDeps = Pick<CoreDeps, 'store' | 'queue' | 'clock' | 'meter'> & {
  config: Pick<CoreDeps['config'], 'resyncPeriodSeconds' | 'sweepIntervalSeconds'>;
};

export function createSweepHandler(deps: SweepHandlerDeps, obs: Observability = createObservability('rollouts-sweep')) {
  const { logger, metrics } = obs;
  return middy<SchedulerTick, SweepResponse, Error, Context>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics, { captureColdStartMetric: true }))
    .handler(async (event) => {
      // "Now" for wake-ups is the clock, not scheduledTime: a late or retried tick must see what is due now.
      // The resync window is the tick's own: (scheduledTime - interval, scheduledTime], so consecutive
      // ticks join up however late each one runs, and a retried tick covers the same turns again.
      const scheduled = Date.parse(event.scheduledTime ?? '');
      const window = tickWindow(Number.isNaN(scheduled) ? deps.clock.now() : new Date(scheduled), deps.config.sweepIntervalSeconds * 1000);
      const result = await withMeteredRequests(deps.meter, metrics, () => sweepDue({
        store: deps.store, queue: deps.queue, clock: deps.clock, resyncPeriodMs: deps.config.resyncPeriodSeconds * 1000,
      }, window));
      metrics.addMetric('DueRollouts', MetricUnit.Count, result.due);
      metrics.addMetric('ResyncedRollouts', MetricUnit.Count, result.resync);
      if (result.truncated) logger.warn('more rollouts are due than one tick queues; the rest wait for the next tick', { due: result.due });
      logger.info('swept', { ...result, scheduledTime: event.scheduledTime });
      return { ...result, scheduledTime: event.scheduledTime ?? null };
    });
}
