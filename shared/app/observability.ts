// Powertools Logger and Metrics for one function. Both read their standard variables themselves
// (POWERTOOLS_SERVICE_NAME, POWERTOOLS_LOG_LEVEL, POWERTOOLS_METRICS_NAMESPACE, POWERTOOLS_DEV...);
// we only supply defaults so an unconfigured function still names itself.
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Meter, MeterKey } from '../meter.ts';
import type { Log } from '../ports.ts';
import type { EventPublisher } from '../ports.ts';

export interface Observability {
  logger: Logger;
  metrics: Metrics;
}

/** Powertools' Logger as the Log port the shared cores take (no Powertools types below shared/app). */
export function appLog(logger: Logger): Log {
  return {
    info: (message, fields) => (fields ? logger.info(message, fields) : logger.info(message)),
    warn: (message, fields) => (fields ? logger.warn(message, fields) : logger.warn(message)),
    error: (message, fields) => (fields ? logger.error(message, fields) : logger.error(message)),
  };
}

export const METRICS_NAMESPACE = 'ServerlessRollouts';

export function createObservability(service: string): Observability {
  return {
    logger: new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? service }),
    metrics: new Metrics({ namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? METRICS_NAMESPACE, serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? service }),
  };
}

/** Metric names of the Meter's counters (CloudWatch names without dots). */
const METER_METRICS: Record<MeterKey, string> = {
  'k8s.read': 'KubeReads',
  'k8s.write': 'KubeWrites',
  'ddb.read': 'DynamoReads',
  'ddb.write': 'DynamoWrites',
  'ddb.rcu': 'DynamoReadUnits',
  'ddb.wcu': 'DynamoWriteUnits',
  'events.put': 'EventPuts',
  'queue.send': 'QueueSends',
};

/** Runs `fn` and adds what the meter counted meanwhile to `metrics` (request counts per invocation). */
export async function withMeteredRequests<T>(meter: Meter, metrics: Metrics, fn: () => Promise<T>): Promise<T> {
  const before = meter.snapshot();
  try {
    return await fn();
  } finally {
    const after = meter.snapshot();
    for (const key of Object.keys(METER_METRICS) as MeterKey[]) {
      const n = after[key] - before[key];
      if (n > 0) metrics.addMetric(METER_METRICS[key], MetricUnit.Count, n);
    }
  }
}

/**
 * Runs one reconcile pass and records how long it took (ReconcileDuration, ms, one value per pass
 * in the invocation's EMF document). Request counts stay per invocation (withMeteredRequests):
 * passes run concurrently on one meter, so per-pass counts would mix; the CloudWatch dashboard
 * divides them by Reconciles (infra/constructs/OperationsDashboard.ts).
 */
export function timedPasses<A extends unknown[], R>(metrics: Metrics, run: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args) => {
    const started = performance.now();
    try {
      return await run(...args);
    } finally {
      metrics.addMetric('ReconcileDuration', MetricUnit.Milliseconds, Math.round((performance.now() - started) * 100) / 100);
    }
  };
}

/** "Release Failed" → "TransitionReleaseFailed": one metric per transition type, no dimension to pay for. */
export function transitionMetricName(type: string): string {
  return `Transition${type.replace(/[^A-Za-z0-9]/g, '')}`;
}

/**
 * Publishes through `inner` and counts each transition published (one metric per type): a fleet's
 * too ("Fleet Wave Started" → TransitionFleetWaveStarted: waves started and completed, member
 * failures, halts, rollbacks).
 */
export function countingPublisher(inner: EventPublisher, metrics: Metrics): EventPublisher {
  return {
    async publish(events) {
      await inner.publish(events);
      for (const e of events) metrics.addMetric(transitionMetricName(e.type), MetricUnit.Count, 1);
    },
    async publishFleet(events) {
      await inner.publishFleet(events);
      for (const e of events) metrics.addMetric(transitionMetricName(e.type), MetricUnit.Count, 1);
    },
  };
}
