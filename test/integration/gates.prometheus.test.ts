// A metric gate on a real Prometheus (built from Go modules) that scrapes a test exporter whose error
// rate the test sets: with `app_errors_ratio < 0.05`, a StatefulSet release's step waits while the
// rate is high, goes on once it drops, and fails after failureLimit when it stays high.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdapterCallRunner } from '../../shared/adapters/checks/runner.ts';
import { Engine } from '../../bench/testbed/engine.ts';
import { startPrometheus, startTestExporter, type PrometheusServer, type TestExporter } from '../support/prometheus.ts';
import { waitFor } from '../../bench/testbed/wait.ts';

const V2 = 'registry.invalid/web:v2';

describe('a prometheus gate on a real Prometheus', () => {
  let engine: Engine;
  let exporter: TestExporter;
  let prometheus: PrometheusServer;
  before(async () => {
    exporter = await startTestExporter();
    prometheus = await startPrometheus({ targets: [exporter.target] });
    await prometheus.waitForTargets();
    engine = await Engine.start();
    engine.calls = new AdapterCallRunner({ clock: engine.clock });
  });
  after(async () => {
    await engine?.stop();
    await prometheus?.stop();
    await exporter?.stop();
  });

  /** The error rate as Prometheus has scraped it, once it is `value`. */
  async function rate(app: string, value: number): Promise<void> {
    exporter.set('app_errors_ratio', value, { app });
    await waitFor(async () => Number((await prometheus.query(`app_errors_ratio{app="${app}"}`))[0]?.value[1]) === value, { message: `Prometheus to scrape ${value}` });
  }

  function scenario(app: string, failureLimit: number) {
    return engine.statefulSetScenario(`gate-prom-${app}`, {
      replicas: 3,
      steps: [{
        replicas: 1, pause: { duration: 0 },
        gates: [{ name: 'error-rate', interval: '2s', count: 2, failureLimit, prometheus: { url: prometheus.url, query: `app_errors_ratio{app="${app}"}`, condition: '< 0.05' } }],
      }, { replicas: '100%' }],
    });
  }

  it('waits while the error rate is high, saying so, and goes on once it drops', async () => {
    await rate('calm', 0.2);
    const s = await scenario('calm', 20);
    await s.reconcileUntilSet((x) => x.state.phase === 'Healthy' && x.state.stableRevision !== null, 'the StatefulSet to be held');
    await s.setImage(V2);
    const waiting = await s.reconcileUntilSet((x) => (x.state.release?.gates?.[0]?.failures ?? 0) >= 2, 'two failed checks');
    assert.equal(waiting.state.release?.stepState, 'Analyzing');
    assert.match(waiting.state.message, /^step 1\/2: analyzing: gate error-rate 0\/2 checks passed, last value \{app="calm",.*\} 0\.2 \(fails the condition\), \d+ failed of 20 tolerated$/);
    assert.deepEqual(waiting.state.cause && [waiting.state.cause.kind, waiting.state.cause.object], ['Gate', 'gate/error-rate']);
    assert.equal(Object.values(waiting.byName).filter((p) => p.image === V2).length, 1, 'the next batch waits');

    await rate('calm', 0.01);
    const done = await s.reconcileUntilSet((x) => x.state.phase === 'Completed', 'the release to complete', 90_000);
    assert.ok(Object.values(done.byName).every((p) => p.image === V2));
    const history = await engine.store.listHistory(s.key);
    assert.ok(history.some((h) => h.type === 'Gate Passed'));
    assert.ok(history.filter((h) => h.type === 'Gate Check Failed').length >= 2);
  });

  it('fails the release after failureLimit failed checks, with the last value in the reason', async () => {
    await rate('burning', 0.3);
    const s = await scenario('burning', 1);
    await s.reconcileUntilSet((x) => x.state.phase === 'Healthy' && x.state.stableRevision !== null, 'the StatefulSet to be held');
    await s.setImage(V2);
    const failed = await s.reconcileUntilSet((x) => x.state.phase === 'Failed', 'the release to fail', 60_000);
    assert.match(failed.state.message, /^failed: gate error-rate failed at step 1: 2 failed checks \(failureLimit 1\); last value: \{app="burning",.*\} 0\.3$/);
    assert.deepEqual(failed.state.cause && [failed.state.cause.kind, failed.state.cause.object], ['Gate', 'gate/error-rate']);
    assert.match(failed.state.cause?.detail ?? '', / 0\.3$/);
  });
});
