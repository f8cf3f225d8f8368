// A real Prometheus (v0.316.0 = Prometheus 3.x, built from Go modules by scripts/build-testbed.sh)
// on loopback, scraping whatever a test names every second, plus a tiny exporter whose samples the
// test sets.
import http from 'node:http';
import path from 'node:path';
import { stringify } from 'yaml';
import { locateTestbedComponent } from '../../shared/adapters/local/controlplane/assets.ts';
import { freePorts } from '../../shared/adapters/local/controlplane/ports.ts';
import { httpProbe } from '../../shared/adapters/local/controlplane/readiness.ts';
import { startTestbedDaemon } from './testbedDaemon.ts';
import { waitFor } from '../../bench/testbed/wait.ts';

export interface PrometheusOptions {
  /** host:port targets of one job named `test`. */
  targets?: string[];
  /** Full scrape_configs entries instead of (or besides) `targets`. */
  scrapeConfigs?: Record<string, unknown>[];
  /** Default 1. */
  scrapeIntervalSeconds?: number;
}

/** One element of an instant query's result (resultType "vector"). */
export interface PromSample {
  metric: Record<string, string>;
  /** [unix seconds, value as a string] as the HTTP API returns it. */
  value: [number, string];
}

export interface PrometheusServer {
  /** http://127.0.0.1:<port>, the base of the HTTP API (/api/v1/query ...). */
  url: string;
  /** Instant query; `[]` is PromQL's "no data" (or a comparison that filtered everything out). */
  query(promql: string): Promise<PromSample[]>;
  /** Waits until every target reports up == 1, i.e. has been scraped at least once. */
  waitForTargets(): Promise<void>;
  pid: number;
  stop(): Promise<void>;
}

export async function startPrometheus(options: PrometheusOptions = {}): Promise<PrometheusServer> {
  const binary = path.join(locateTestbedComponent('prometheus', ['bin/prometheus']), 'bin/prometheus');
  const [port] = (await freePorts(1)) as [number];
  const url = `http://127.0.0.1:${port}`;
  const interval = `${options.scrapeIntervalSeconds ?? 1}s`;
  const scrapeConfigs = [
    ...(options.targets?.length ? [{ job_name: 'test', static_configs: [{ targets: options.targets }] }] : []),
    ...(options.scrapeConfigs ?? []),
  ];
  const config = { global: { scrape_interval: interval, evaluation_interval: interval }, scrape_configs: scrapeConfigs };
  const server = await startTestbedDaemon({
    name: 'prometheus',
    binary,
    files: () => ({ 'prometheus.yml': stringify(config) }),
    args: (dir) => [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    ready: httpProbe(`${url}/-/ready`),
    what: 'GET /-/ready',
  });

  const query = async (promql: string): Promise<PromSample[]> => {
    const response = await fetch(`${url}/api/v1/query?${new URLSearchParams({ query: promql })}`);
    const body = (await response.json()) as { status: string; error?: string; data?: { resultType: string; result: PromSample[] } };
    if (body.status !== 'success' || body.data?.resultType !== 'vector') throw new Error(`query ${promql}: ${response.status} ${body.error ?? JSON.stringify(body.data)}`);
    return body.data.result;
  };
  const expectedTargets = scrapeConfigs.flatMap((job) => ((job.static_configs ?? []) as { targets: string[] }[]).flatMap((s) => s.targets)).length;
  return {
    url,
    query,
    pid: server.daemon.pid,
    async waitForTargets() {
      await waitFor(async () => (await query('up == 1')).length === expectedTargets, { message: `${expectedTargets} Prometheus targets up`, timeoutMs: 30_000 });
    },
    stop: server.stop,
  };
}

export interface TestExporter {
  /** host:port to scrape. */
  target: string;
  /** Sets a gauge sample (created on first use). */
  set(name: string, value: number, labels?: Record<string, string>): void;
  /** Removes every sample of `name`: queries for it then come back empty. */
  remove(name: string): void;
  stop(): Promise<void>;
}

/** A /metrics endpoint (Prometheus text format) on 127.0.0.1, in this process, serving what the test set. */
export async function startTestExporter(): Promise<TestExporter> {
  const samples = new Map<string, Map<string, number>>();
  const render = (): string =>
    [...samples].flatMap(([name, series]) => [
      `# TYPE ${name} gauge`,
      ...[...series].map(([labels, value]) => `${name}${labels} ${value}`),
    ]).join('\n') + '\n';
  const server = http.createServer((request, response) => {
    if (request.url !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(render());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address() as { port: number };
  return {
    target: `127.0.0.1:${address.port}`,
    set(name, value, labels = {}) {
      const key = Object.keys(labels).length === 0 ? '' : `{${Object.entries(labels).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}}`;
      const series = samples.get(name) ?? new Map<string, number>();
      series.set(key, value);
      samples.set(name, series);
    },
    remove(name) {
      samples.delete(name);
    },
    stop: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
