// `npm run bench`: runs the benchmark areas in order, writes bench/results/latest.json (and a dated
// copy, not kept in git), prints one table and rewrites README.md's "Benchmarks" from it.
// `npm run bench -- --only sweep,coldstart` runs some areas; the others keep their figures from the
// previous latest.json (each area records its own date, which the README shows). The `peers` area
// (bench/peers.ts) runs only when named: `npm run bench -- --only peers [--reps N] [--replicas 10,100]`.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Area, BenchContext, TableRow } from './lib/area.ts';
import { machineInfo } from './lib/machine.ts';
import { updateReadme } from './lib/readme.ts';
import { renderTable } from './lib/table.ts';
import { perReconcile } from './perReconcile.ts';
import { sweepScale } from './sweepScale.ts';
import { coldStart } from './coldStart.ts';
import { costModel } from './costModel.ts';
import { fleetRelease } from './fleetRelease.ts';
import { PEERS_FLAGS, parsePeersOptions } from './lib/peersOptions.ts';
import { peers } from './peers.ts';
import { reactionLatency } from './reactionLatency.ts';
import { releaseOverhead } from './releaseOverhead.ts';
import { trafficApplied } from './trafficApplied.ts';
import { triggers } from './triggers.ts';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const RESULTS_DIR = path.join(ROOT, 'bench/results');
const LATEST = path.join(RESULTS_DIR, 'latest.json');

/** In run order: the cost model reads the figures of the areas before it, and the fleet area the cost model's. */
const AREAS = [perReconcile, reactionLatency, releaseOverhead, triggers, trafficApplied, sweepScale, coldStart, costModel, fleetRelease, peers] as Area[];
/** Areas that start the local Kubernetes control plane (fleet: three, through `rollouts serve --clusters 3`). */
const NEEDS_CONTROL_PLANE = new Set(['reconcile', 'reaction', 'release', 'triggers', 'traffic', 'fleet', 'peers']);
/** Areas that also run the data plane (Traefik and the Gateway API CRDs, scripts/build-dataplane.sh). */
const NEEDS_DATA_PLANE = new Set(['traffic']);
/** Areas run only when `--only` names them: the peers build two Go controllers on first use and take a quarter of an hour. */
const ONLY_WHEN_NAMED = new Set(['peers']);

interface AreaRecord {
  title: string;
  measuredAt: string;
  durationSeconds: number;
  result?: unknown;
  error?: string;
}

interface ResultsFile {
  schema: 1;
  generatedAt: string;
  machine: ReturnType<typeof machineInfo>;
  /** Wall time of the `npm run bench` invocation that wrote this file. */
  benchDurationSeconds: number;
  areas: Record<string, AreaRecord>;
  table: TableRow[];
}

async function main(): Promise<void> {
  if (Number(process.versions.node.split('.')[0]) < 22) {
    throw new Error(`Node ${process.versions.node}: run through npm (npm run bench), which puts the node@22 devDependency first on PATH`);
  }
  const args = process.argv.slice(2);
  const only = parseOnly(args);
  const selected = AREAS.filter((a) => (only === null ? !ONLY_WHEN_NAMED.has(a.name) : only.has(a.name)));
  checkAreaOptions(args, selected);
  const started = Date.now();
  const log = (line: string) => console.log(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`);
  const previous = readPrevious();
  if (selected.some((a) => NEEDS_CONTROL_PLANE.has(a.name))) buildControlPlane();
  if (selected.some((a) => NEEDS_DATA_PLANE.has(a.name))) buildDataPlane();

  const areas: Record<string, AreaRecord> = { ...(previous?.areas ?? {}) };
  const ctx: BenchContext = { log, args, results: Object.fromEntries(Object.entries(areas).map(([k, v]) => [k, v.result])) };
  for (const area of selected) {
    log(`${area.name}: ${area.title}`);
    const t0 = Date.now();
    try {
      const result = await area.run(ctx);
      areas[area.name] = { title: area.title, measuredAt: new Date().toISOString(), durationSeconds: seconds(Date.now() - t0), result };
      ctx.results[area.name] = result;
    } catch (err) {
      const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
      log(`${area.name} FAILED: ${message}`);
      areas[area.name] = { title: area.title, measuredAt: new Date().toISOString(), durationSeconds: seconds(Date.now() - t0), error: message };
    }
    log(`${area.name}: done in ${seconds(Date.now() - t0)} s`);
  }

  const table = AREAS.flatMap((a) => {
    const rec = areas[a.name];
    if (!rec) return [];
    if (rec.error !== undefined) return [{ area: a.name, metric: 'FAILED', value: rec.error.split('\n')[0] ?? '', source: '' }];
    try {
      return a.rows(rec.result);
    } catch {
      // A figure kept from an older results file, in a shape this area no longer reads (`--only` runs).
      return [{ area: a.name, metric: 'stale result', value: `measured ${rec.measuredAt} in an older format: run this area again`, source: '' }];
    }
  });
  const file: ResultsFile = { schema: 1, generatedAt: new Date().toISOString(), machine: machineInfo(), benchDurationSeconds: seconds(Date.now() - started), areas, table };
  mkdirSync(RESULTS_DIR, { recursive: true });
  const text = `${JSON.stringify(file, null, 2)}\n`;
  writeFileSync(LATEST, text);
  writeFileSync(path.join(RESULTS_DIR, `run-${file.generatedAt.replace(/[:.]/g, '-')}.json`), text);

  const m = file.machine;
  console.log(`\nserverless-rollouts benchmarks — ${file.generatedAt} — ${m.cores} cores, ${m.memoryGiB} GiB, Node ${m.node}, commit ${m.gitCommit?.slice(0, 12) ?? '?'}${m.gitDirty ? ' (dirty)' : ''}\n`);
  console.log(renderTable(table));
  // The README shows latest.json as it now stands, unless this run failed somewhere or an area's
  // figures are in a shape the code no longer reads (then the table would show it).
  const current = selected.every((a) => areas[a.name]?.error === undefined) && !table.some((row) => row.metric === 'stale result' || row.metric === 'FAILED');
  const measuredAt = Object.fromEntries(AREAS.flatMap((a) => { const rec = areas[a.name]; return rec ? [[a.name, rec.measuredAt]] : []; }));
  if (current) updateReadme(path.join(ROOT, 'README.md'), { generatedAt: file.generatedAt, machine: m, durationSeconds: file.benchDurationSeconds, table, measuredAt });
  console.log(`\nbench took ${file.benchDurationSeconds} s; results in ${path.relative(ROOT, LATEST)}${current ? '; README.md section "Benchmarks" rewritten' : '; README.md left as it was (a failed or stale area)'}`);
  if (selected.some((a) => areas[a.name]?.error !== undefined)) process.exitCode = 1;
}

function parseOnly(args: string[]): Set<string> | null {
  const i = args.findIndex((a) => a === '--only' || a.startsWith('--only='));
  if (i < 0) return null;
  const value = args[i]?.includes('=') ? args[i]?.slice('--only='.length) : args[i + 1];
  const names = new Set((value ?? '').split(',').map((s) => s.trim()).filter(Boolean));
  const known = new Set(AREAS.map((a) => a.name));
  const unknown = [...names].filter((n) => !known.has(n));
  if (names.size === 0 || unknown.length > 0) throw new Error(`--only takes a comma-separated list of ${[...known].join(', ')}; got ${value ?? 'nothing'}`);
  return names;
}

/** Refuses an option no selected area takes, and bad values of those it does, before anything starts. */
function checkAreaOptions(args: string[], selected: Area[]): void {
  const known = ['--only', ...PEERS_FLAGS];
  const unknown = args.filter((a) => a.startsWith('--') && !known.includes(a.split('=')[0] as string));
  if (unknown.length > 0) throw new Error(`unknown option ${unknown.join(', ')}; npm run bench takes ${known.join(', ')}`);
  const peersFlags = args.filter((a) => PEERS_FLAGS.some((f) => a === f || a.startsWith(`${f}=`)));
  if (peersFlags.length > 0 && !selected.some((a) => a.name === 'peers')) {
    throw new Error(`${peersFlags.join(', ')}: only the peers area takes this; add --only peers`);
  }
  if (selected.some((a) => a.name === 'peers')) parsePeersOptions(args);
}

function readPrevious(): ResultsFile | null {
  try {
    return JSON.parse(readFileSync(LATEST, 'utf8')) as ResultsFile;
  } catch {
    return null;
  }
}

/** Builds the control plane from Go modules when it is not cached yet (a no-op otherwise), as `npm test` does. */
function buildControlPlane(): void {
  const res = spawnSync('bash', [path.join(ROOT, 'scripts/build-testplane.sh')], { stdio: 'inherit' });
  if (res.status !== 0) throw new Error('building the local Kubernetes control plane failed');
}

/** Builds Traefik and the Gateway API CRDs when they are not cached yet (a no-op otherwise), as for the tests. */
function buildDataPlane(): void {
  const res = spawnSync('bash', [path.join(ROOT, 'scripts/build-dataplane.sh')], { stdio: 'inherit' });
  if (res.status !== 0) throw new Error('building the data plane (Traefik, Gateway API CRDs) failed');
}

function seconds(ms: number): number {
  return Math.round(ms / 100) / 10;
}

await main();
