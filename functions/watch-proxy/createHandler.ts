// Watch-proxy function. Two ways to be invoked:
//  - on demand (watchProxyMode "on-demand", the default): launched by a reconcile pass whose pods
//    are moving, holding a generation of the watcher lease (shared/watch/watcherDemand.ts). It
//    watches from now (no replay: the pass that launched it, the re-runs and the resync cover what
//    came before) and ends when no release has moved pods for a while, or at its time limit, by
//    when a successor has been launched;
//  - scheduled (watchProxyMode "always"): a schedule more often than it lasts (rate 5 min, timeout
//    6 min), so watchers overlap and there is no blind gap; each start replays every managed workload.
// Either way it watches until its remaining time minus a margin. The container entry (main.ts)
// runs the same loop with no end.
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { WatcherLaunchEvent } from '../../shared/adapters/lambda/watcherLauncher.ts';
import type { AppDeps } from '../../shared/app/lambdaDeps.ts';
import { appLog, createObservability, withMeteredRequests, type Observability } from '../../shared/app/observability.ts';
import { holdWatcherLease, type TenureDeps } from '../../shared/watch/watcherDemand.ts';
import { runWatchProxy, type WatchProxyOptions, type WatchProxyStats } from '../../shared/watch/watchProxy.ts';
import type { SchedulerTick } from '../sweep/createHandler.ts';

export type WatchProxyDeps = Pick<AppDeps, 'store' | 'watchClusters' | 'watchSink' | 'clock' | 'meter' | 'config' | 'watcher'>;

export type WatchProxyEvent = SchedulerTick | WatcherLaunchEvent;

export interface WatchProxyResult extends WatchProxyStats {
  /** The lease generation it held (on demand), or null (scheduled). */
  generation: number | null;
  /** Why it ended: its time was up, or (on demand) nothing moved pods any more. */
  ended: 'time' | 'idle' | 'signal';
}

/** The proxy's options over the composition root; `tuning` lets tests shorten windows and intervals. */
export function watchProxyOptions(deps: Pick<WatchProxyDeps, 'store' | 'watchClusters' | 'watchSink' | 'clock'>, obs: Observability, tuning: Partial<WatchProxyOptions> = {}): WatchProxyOptions {
  return { store: deps.store, clusters: deps.watchClusters, sink: deps.watchSink, clock: deps.clock, log: appLog(obs.logger), ...tuning };
}

export interface WatchProxyHandlerTuning extends Partial<WatchProxyOptions> {
  /** The lease check of an on-demand watcher (tests shorten it). */
  tenure?: Partial<Pick<TenureDeps, 'checkEveryMs' | 'idleGraceMs'>>;
}

export function createWatchProxyHandler(deps: WatchProxyDeps, obs: Observability = createObservability('rollouts-watch-proxy'), tuning: WatchProxyHandlerTuning = {}) {
  const { logger, metrics } = obs;
  const { tenure, ...proxyTuning } = tuning;
  return middy<WatchProxyEvent, WatchProxyResult, Error, Context>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics, { captureColdStartMetric: true }))
    .handler(async (event, context) => {
      const margin = deps.config.watchMarginSeconds * 1000;
      const until = new Date(deps.clock.now().getTime() + Math.max(0, context.getRemainingTimeInMillis() - margin));
      const generation = 'watcherGeneration' in event && typeof event.watcherGeneration === 'number' ? event.watcherGeneration : null;
      const stop = new AbortController();
      const outer = proxyTuning.signal;
      outer?.addEventListener('abort', () => stop.abort(), { once: true });
      const held = generation !== null && deps.watcher
        ? holdWatcherLease(generation, { lease: deps.watcher.lease, clock: deps.clock, log: appLog(logger), stop, ...tenure })
        : Promise.resolve('ended' as const);
      const stats = await withMeteredRequests(deps.meter, metrics, async () => {
        try {
          return await runWatchProxy({ ...watchProxyOptions(deps, obs, proxyTuning), until, signal: stop.signal, replayOnStart: generation === null });
        } finally {
          stop.abort();
        }
      });
      const released = (await held) === 'released';
      metrics.addMetric('WatchEvents', MetricUnit.Count, stats.events);
      metrics.addMetric('WorkloadChangesSent', MetricUnit.Count, stats.changesSent);
      metrics.addMetric('WatchRelists', MetricUnit.Count, stats.relists);
      metrics.addMetric('WatchErrors', MetricUnit.Count, stats.errors);
      const result: WatchProxyResult = { ...stats, generation, ended: released ? 'idle' : outer?.aborted ? 'signal' : 'time' };
      logger.info('watch-proxy stopped', { ...result });
      return result;
    });
}
