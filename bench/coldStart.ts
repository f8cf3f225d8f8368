// Area 5 — cold-start proxy: bundle size of each Lambda and the median time to import its bundle in
// a fresh Node 22 process (module init), over 10 processes. scripts/bundle-report.mjs does the
// measuring with the deployed esbuild options; this area only runs it and keeps its JSON.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Area, BenchContext, TableRow } from './lib/area.ts';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const RUNS = 10;

interface BundleReportEntry {
  name: string;
  minifiedBytes: number;
  gzipBytes: number;
  sourceMapBytes: number;
  initMsMedian?: number;
  initMsMedianWithoutNodeOptions?: number;
  runs?: number;
  error?: string;
}

export interface ColdStartResult {
  command: string;
  node: string;
  nodeOptions: string;
  units: { minifiedBytes: 'bytes'; gzipBytes: 'bytes'; sourceMapBytes: 'bytes'; initMsMedian: 'ms'; initMsMedianWithoutNodeOptions: 'ms' };
  functions: BundleReportEntry[];
}

export const coldStart: Area<ColdStartResult> = {
  name: 'coldstart',
  title: 'Cold-start proxy (bundle size, module init time)',
  run,
  rows,
};

async function run(ctx: BenchContext): Promise<ColdStartResult> {
  const args = ['scripts/bundle-report.mjs', '--json', `--runs=${RUNS}`];
  ctx.log(`coldstart: node ${args.join(' ')}`);
  const res = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (res.status !== 0) throw new Error(`bundle-report failed (exit ${res.status}): ${res.stderr || res.stdout}`);
  const report = JSON.parse(res.stdout) as { node: string; nodeOptions: string; results: BundleReportEntry[] };
  return {
    command: `node ${args.join(' ')}`,
    node: report.node,
    nodeOptions: report.nodeOptions,
    units: { minifiedBytes: 'bytes', gzipBytes: 'bytes', sourceMapBytes: 'bytes', initMsMedian: 'ms', initMsMedianWithoutNodeOptions: 'ms' },
    functions: report.results,
  };
}

function rows(r: ColdStartResult): TableRow[] {
  const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  return r.functions.map((f) => ({
    area: 'coldstart',
    metric: `${f.name}: bundle minified (gzip); init median of ${f.runs ?? RUNS}`,
    value: f.error ? `error: ${f.error}` : `${kib(f.minifiedBytes)} (${kib(f.gzipBytes)}); ${f.initMsMedian} ms (${f.initMsMedianWithoutNodeOptions} ms without NODE_OPTIONS)`,
    source: 'scripts/bundle-report.mjs',
  }));
}
