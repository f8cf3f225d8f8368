// Area 5 — cold-start proxy: bundle size of each Lambda, what its bytes are (the esbuild metafile's
// largest contributors, by package) and the median time to import its bundle in a fresh Node 22
// process (module init), over 10 processes. scripts/bundle-report.mjs does the measuring with the
// deployed esbuild options; this area only runs it and keeps its JSON.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Area, BenchContext, TableRow } from './lib/area.ts';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const RUNS = 10;
/** Targets of issue 14: each bundle at most 1.5 MB minified, its init at most 150 ms (median). */
const TARGET_BYTES = 1_500_000;
const TARGET_INIT_MS = 150;
const TOP = 6;

interface BundleReportEntry {
  name: string;
  minifiedBytes: number;
  /** What a cold start reads: the entry and the chunks it imports statically. */
  initBytes?: number;
  topContributors?: { name: string; bytes: number }[];
  gzipBytes: number;
  sourceMapBytes: number;
  initMsMedian?: number;
  initMsMedianWithoutNodeOptions?: number;
  /** CPU time (user + system) of the same imports: less sensitive to other work on the machine. */
  initCpuMsMedian?: number;
  runs?: number;
  error?: string;
}

export interface ColdStartResult {
  command: string;
  node: string;
  nodeOptions: string;
  /** The machine's 1, 5 and 15 minute load averages at the end of the measurement (2 cores). */
  loadAverage?: number[];
  units: { minifiedBytes: 'bytes'; gzipBytes: 'bytes'; sourceMapBytes: 'bytes'; initMsMedian: 'ms'; initMsMedianWithoutNodeOptions: 'ms'; initCpuMsMedian: 'ms' };
  functions: BundleReportEntry[];
}

export const coldStart: Area<ColdStartResult> = {
  name: 'coldstart',
  title: 'Cold-start proxy (bundle size, module init time)',
  run,
  rows,
};

async function run(ctx: BenchContext): Promise<ColdStartResult> {
  const args = ['scripts/bundle-report.mjs', '--json', `--runs=${RUNS}`, '--top=12'];
  ctx.log(`coldstart: node ${args.join(' ')}`);
  const res = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (res.status !== 0) throw new Error(`bundle-report failed (exit ${res.status}): ${res.stderr || res.stdout}`);
  const report = JSON.parse(res.stdout) as { node: string; nodeOptions: string; loadAverage: number[]; results: BundleReportEntry[] };
  return {
    command: `node ${args.join(' ')}`,
    node: report.node,
    nodeOptions: report.nodeOptions,
    loadAverage: report.loadAverage.map((n) => Math.round(n * 100) / 100),
    units: { minifiedBytes: 'bytes', gzipBytes: 'bytes', sourceMapBytes: 'bytes', initMsMedian: 'ms', initMsMedianWithoutNodeOptions: 'ms', initCpuMsMedian: 'ms' },
    functions: report.results,
  };
}

function rows(r: ColdStartResult): TableRow[] {
  const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  const mb = (n: number) => `${(n / 1e6).toFixed(2)} MB`;
  return r.functions.flatMap((f) => [
    {
      area: 'coldstart',
      metric: `${f.name}: bundle minified (gzip), read at init; init median of ${f.runs ?? RUNS}, its CPU time (targets ≤ ${mb(TARGET_BYTES)}, ≤ ${TARGET_INIT_MS} ms)`,
      value: f.error
        ? `error: ${f.error}`
        : `${mb(f.minifiedBytes)} (${kib(f.gzipBytes)}), ${f.initBytes === undefined ? '?' : kib(f.initBytes)}; ${f.initMsMedian} ms, CPU ${f.initCpuMsMedian ?? '?'} ms (${f.initMsMedianWithoutNodeOptions} ms without NODE_OPTIONS)${r.loadAverage ? `; load ${r.loadAverage[0]}` : ''}`,
      source: 'scripts/bundle-report.mjs',
    },
    {
      area: 'coldstart',
      metric: `${f.name}: largest contributors`,
      value: (f.topContributors ?? []).slice(0, TOP).map((c) => `${c.name} ${kib(c.bytes)}`).join(', '),
      source: 'esbuild metafile',
    },
  ]);
}
