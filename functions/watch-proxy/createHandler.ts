// Watch-proxy function: invoked by a schedule more often than it lasts (rate 5 min, timeout 6 min),
// each invocation watches until its remaining time minus a margin, so watchers overlap and there
// is no blind gap. The container entry (main.ts) runs the same loop with no end.
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { AppDeps } from '../../shared/app/lambdaDeps.ts';
import { appLog, createObservability, withMeteredRequests, type Observability } from '../../shared/app/observability.ts';
import { runWatchProxy, type WatchProxyOptions, type WatchProxyStats } from '../../shared/watch/watchProxy.ts';
import type { SchedulerTick } from '../sweep/createHandler.ts';

export type WatchProxyDeps = Pick<AppDeps, 'store' | 'watchClusters' | 'watchSink' | 'clock' | 'meter' | 'config'>;

/** The proxy's options over the composition root; `tuning` lets tests shorten windows and intervals. */
export function watchProxyOptions(deps: WatchProxyDeps, obs: Observability, tuning: Partial<WatchProxyOptions> = {}): WatchProxyOptions {
  return { store: deps.store, clusters: deps.watchClusters, sink: deps.watchSink, clock: deps.clock, log: appLog(obs.logger), ...tuning };
}

export function createWatchProxyHandler(deps: WatchProxyDeps, obs: Observability = createObservability('rollouts-watch-proxy'), tuning: Partial<WatchProxyOptions> = {}) {
  const { logger, metrics } = obs;
  return middy<SchedulerTick, WatchProxyStats, Error, Context>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics, { captureColdStartMetric: true }))
    .handler(async (_event, context) => {
      const margin = deps.config.watchMarginSeconds * 1000;
      const until = new Date(deps.clock.now().getTime() + Math.max(0, context.getRemainingTimeInMillis() - margin));
      const stats = await withMeteredRequests(deps.meter, metrics, () => runWatchProxy({ ...watchProxyOptions(deps, obs, tuning), until }));
      metrics.addMetric('WatchEvents', MetricUnit.Count, stats.events);
      metrics.addMetric('WorkloadChangesSent', MetricUnit.Count, stats.changesSent);
      metrics.addMetric('WatchRelists', MetricUnit.Count, stats.relists);
      metrics.addMetric('WatchErrors', MetricUnit.Count, stats.errors);
      logger.info('watch-proxy stopped', { ...stats });
      return stats;
    });
}
