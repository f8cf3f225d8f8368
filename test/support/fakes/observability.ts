// Powertools Logger and Metrics for tests: the logger is silent, and the metrics are captured
// instead of printed as EMF on stdout (which the test runner reads), so tests can assert on them.
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Observability } from '../../../shared/app/observability.ts';

/** Metrics that keep each flushed EMF document in `emitted` rather than writing it to stdout. */
export class CapturingMetrics extends Metrics {
  readonly emitted: Record<string, unknown>[] = [];

  override publishStoredMetrics(): this {
    if (this.hasStoredMetrics()) this.emitted.push(this.serializeMetrics() as unknown as Record<string, unknown>);
    this.clearMetrics();
    this.clearDimensions();
    this.clearMetadata();
    return this;
  }

  /** The cold-start metric is published through a separate instance that would print; not needed in tests. */
  override captureColdStartMetric(): void {}

  /** Sum of one metric over every flush. */
  total(name: string): number {
    return this.emitted.reduce((sum, doc) => {
      const v = doc[name];
      return sum + (typeof v === 'number' ? v : Array.isArray(v) ? v.reduce((a: number, b: number) => a + b, 0) : 0);
    }, 0);
  }
}

export function testObservability(): Observability & { metrics: CapturingMetrics } {
  return {
    logger: new Logger({ serviceName: 'test', logLevel: 'SILENT' }),
    metrics: new CapturingMetrics({ namespace: 'Test', serviceName: 'test' }),
  };
}
