// A real Prometheus scrapes a test exporter every second and answers PromQL as a metric gate will
// ask it: the exporter's current value, and an empty vector when there is no data.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startPrometheus, startTestExporter, type PrometheusServer, type TestExporter } from '../support/prometheus.ts';
import { waitFor } from '../../bench/testbed/wait.ts';

describe('Prometheus on the test bed', () => {
  let exporter: TestExporter;
  let prometheus: PrometheusServer;

  before(async () => {
    exporter = await startTestExporter();
    exporter.set('app_errors_ratio', 0.07, { app: 'web' });
    prometheus = await startPrometheus({ targets: [exporter.target] });
    await prometheus.waitForTargets();
  });

  after(async () => {
    await prometheus?.stop();
    await exporter?.stop();
  });

  const valueOf = async (promql: string): Promise<number[]> => (await prometheus.query(promql)).map((sample) => Number(sample.value[1]));

  test('a query returns the value the exporter serves, and follows it when it changes', async () => {
    await waitFor(async () => (await valueOf('app_errors_ratio{app="web"}'))[0] === 0.07, { message: 'the first scrape of 0.07' });
    assert.deepEqual(await valueOf('app_errors_ratio > 0.05'), [0.07]);

    exporter.set('app_errors_ratio', 0.01, { app: 'web' });
    await waitFor(async () => (await valueOf('app_errors_ratio'))[0] === 0.01, { message: 'a scrape of the new value 0.01' });
    assert.deepEqual(await valueOf('app_errors_ratio > 0.05'), [], 'a comparison that filters everything out is an empty vector');
  });

  test('a metric nobody exports, or one that disappears, comes back as an empty result', async () => {
    assert.deepEqual(await prometheus.query('app_never_exported_total'), []);
    exporter.set('app_short_lived', 1);
    await waitFor(async () => (await valueOf('app_short_lived')).length === 1, { message: 'app_short_lived scraped' });
    exporter.remove('app_short_lived');
    // The next scrape without the series marks it stale, so an instant query no longer sees it.
    await waitFor(async () => (await prometheus.query('app_short_lived')).length === 0, { message: 'app_short_lived gone after it stopped being exported' });
  });

  test('a query that does not parse is an error naming the problem', async () => {
    await assert.rejects(prometheus.query('rate(app_errors_ratio[5m]'), /parse error/);
  });
});
