// Area "fleet" (issue 24) — a fleet release's overhead between waves and its cost, in local mode as
// a user runs it: `rollouts serve --clusters 3` (three sandbox control planes c1..c3) as a child
// process, its DynamoDB a dynalite of this process that counts each request and its consumed
// capacity (bench/testbed/dynalite.ts), driven through the CLI. A FleetRollout of three waves of one
// cluster each, [c1] → [c2] → [c3], with no approval, bake or gate after a wave, released
// `BENCH_FLEET_RELEASES` times (default 10): each release gives two wave transitions. Overhead =
// the last member of a wave "Release Completed" → the next wave's first member "Release Started",
// both from the members' own history, split by the fleet's history (bench/lib/fleetHandoffs.ts).
// Units per release: serve's pass and transition lines (bench/lib/serveLines.ts) and dynalite's
// counts in the release's window, less what the same stack did at rest over a quiet window of the
// same length; priced by the single release's model (bench/lib/fleetCost.ts).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runKubectl } from '../shared/adapters/local/controlplane/kubectl.ts';
import type { HistoryEntry } from '../shared/ports.ts';
import { DEFAULT_DEPLOYMENT_STRATEGY } from '../shared/rollout/types.ts';
import type { Area, BenchContext, TableRow } from './lib/area.ts';
import { fleetHandoffs, completedFleetReleases, type Handoff } from './lib/fleetHandoffs.ts';
import { fleetReleaseCost } from './lib/fleetCost.ts';
import { meanUnits, type FleetReleaseUnits, type WindowUnits } from './lib/fleetUnits.ts';
import { countServeLines } from './lib/serveLines.ts';
import { round, summarize, type Summary } from './lib/stats.ts';
import { startDynalite, type DynaliteHarness } from './testbed/dynalite.ts';
import { ServeProcess, cleanEnv, ourProcesses, rolloutsAt } from './testbed/localModeProcess.ts';
import { waitFor } from './testbed/wait.ts';
import type { CostBlock, CostModelResult } from './costModel.ts';
import type { ColdStartResult } from './coldStart.ts';
import type { ReleaseOverheadResult } from './releaseOverhead.ts';

const CLUSTERS = ['c1', 'c2', 'c3'] as const;
const REPLICAS = 4;
const POD_READY_MS = 1000;
const STEPS = '[{replicas: 1, pause: {duration: 0}}, {replicas: 100%}]';
const WAVES = '[c1] → [c2] → [c3], one cluster each, maxConcurrency 1, no approval, bake or gate';
const GOAL_MS = 1000;
/** A quiet window at rest (the sweep's 10 s ticks, the 30 s resync, the 5 s catalogue refresh): its rate is taken off each release's. */
const BASELINE_MS = 30_000;
/** After "Fleet Release Completed", the members' last passes (their hand-back of the batch) still belong to the release. */
const SETTLE_MS = 3000;
const START_TIMEOUT_MS = 420_000;
const RELEASE_TIMEOUT_MS = 180_000;

export interface FleetReleaseResult {
  clusters: number;
  waves: string;
  replicas: number;
  podReadyDelayMs: number;
  steps: string;
  releases: number;
  goalMs: number;
  /** One sample per wave transition of every release: (waves − 1) × releases. */
  overheadMs: Summary;
  parts: Record<keyof Handoff['parts'], Summary>;
  handoffs: Handoff[];
  fleetReleaseMs: Summary;
  baseline: WindowUnits;
  windows: WindowUnits[];
  perRelease: FleetReleaseUnits;
  cost: CostBlock & { pricesRecordedOn: string; passWallMs: number };
}

export const fleetRelease: Area<FleetReleaseResult> = {
  name: 'fleet',
  title: 'Fleet release: overhead between waves and cost (local mode, serve --clusters 3)',
  run,
  rows,
};

async function run(ctx: BenchContext): Promise<FleetReleaseResult> {
  const cost = ctx.results.cost as CostModelResult | undefined;
  const release = ctx.results.release as ReleaseOverheadResult | undefined;
  const cold = ctx.results.coldstart as ColdStartResult | undefined;
  const passWallMs = release?.sizes.find((s) => s.replicas === 10)?.ours.find((o) => o.strategy === DEFAULT_DEPLOYMENT_STRATEGY)?.reconciles.wallMs.median;
  if (!cost || passWallMs === undefined || !cold) throw new Error('the fleet area prices with the results of cost, release and coldstart (run them, or keep them in latest.json)');
  const releases = Number(process.env.BENCH_FLEET_RELEASES ?? 10);
  if (!Number.isInteger(releases) || releases < 1) throw new Error(`BENCH_FLEET_RELEASES must be a positive integer, got ${process.env.BENCH_FLEET_RELEASES}`);

  const home = mkdtempSync(path.join(tmpdir(), 'bench-fleet-'));
  const env = cleanEnv();
  const dynamo = await startDynalite({ tableName: 'rollouts', captureCapacity: true });
  let serve: ServeProcess | undefined;
  try {
    ctx.log('fleet: starting local mode with three sandbox clusters');
    serve = await ServeProcess.start(home, ['--clusters', '3', '--pod-ready-ms', String(POD_READY_MS), '--verbose', '--dynamodb-endpoint', dynamo.endpoint], env, { timeoutMs: START_TIMEOUT_MS });
    const s = serve;
    const endpoint = readFileSync(path.join(home, 'endpoint'), 'utf8').trim();
    const kubeconfig = path.join(home, 'kubeconfig');
    for (const c of CLUSTERS) await kubectl(kubeconfig, c, 'scale', 'deployment/web', `--replicas=${REPLICAS}`);
    for (const c of CLUSTERS) await kubectl(kubeconfig, c, 'rollout', 'status', 'deployment/web', '--timeout=120s');
    const fleetFile = path.join(home, 'fleet.yaml');
    writeFileSync(fleetFile, fleetDocument());
    const applied = await rolloutsAt(home, env, 'fleet', 'apply', '-f', fleetFile);
    if (applied.code !== 0) throw new Error(`fleet apply failed: ${applied.err}`);
    for (const c of CLUSTERS) {
      await waitFor(async () => ((await getJson(endpoint, `/v1/rollouts/${c}/default/web`)) as { state?: { stableRevision?: string | null } }).state?.stableRevision, { message: `the member in ${c} to adopt web`, timeoutMs: 60_000, intervalMs: 500 });
    }
    await sleep(10_000);
    ctx.log(`fleet: the stack at rest for ${BASELINE_MS / 1000} s (its rate is taken off each release)`);
    const baseline = await measureWindow(s, dynamo, async () => { await sleep(BASELINE_MS); });

    const windows: WindowUnits[] = [];
    for (let i = 1; i <= releases; i++) {
      ctx.log(`fleet: release ${i}/${releases}`);
      windows.push(await measureWindow(s, dynamo, async (from) => {
        const r = await rolloutsAt(home, env, 'fleet', 'release', 'web', '--image', `app=nginx:bench-${i}`);
        if (r.code !== 0) throw new Error(`fleet release failed: ${r.err}`);
        const end = await s.waitForLine(/event Fleet (Release Completed|Halted|Rolled Back|Aborted): fleet web/, { from, timeoutMs: RELEASE_TIMEOUT_MS, message: `fleet release ${i} to end` });
        if (!end.line.includes('Release Completed')) throw new Error(`fleet release ${i} did not complete: ${end.line}`);
        await sleep(SETTLE_MS);
      }));
    }

    const fleetHistory = ((await getJson(endpoint, '/v1/fleets/web/history')) as { history: HistoryEntry[] }).history;
    const members: Record<string, HistoryEntry[]> = {};
    for (const c of CLUSTERS) members[c] = ((await getJson(endpoint, `/v1/rollouts/${c}/default/web/history`)) as { history: HistoryEntry[] }).history;
    const handoffs = fleetHandoffs(fleetHistory, members);
    const expected = releases * (CLUSTERS.length - 1);
    if (handoffs.length !== expected) throw new Error(`${handoffs.length} wave transitions in the history, expected ${expected}`);
    const perRelease = meanUnits(windows, baseline, completedFleetReleases(fleetHistory).map((r) => r.totalMs));
    const watchInitMs = cold.functions.find((f) => f.name === 'watch-proxy')?.initMsMedian ?? 0;
    const priced = fleetReleaseCost(perRelease, { cost, passWallMs, watchInitMs, baseline: `less the rate at rest (${BASELINE_MS / 1000} s quiet window) × the window` });
    const part = (k: keyof Handoff['parts']) => summarize(handoffs.map((h) => h.parts[k]), 'ms', 0);
    return {
      clusters: CLUSTERS.length, waves: WAVES, replicas: REPLICAS, podReadyDelayMs: POD_READY_MS, steps: STEPS, releases, goalMs: GOAL_MS,
      overheadMs: summarize(handoffs.map((h) => h.overheadMs), 'ms', 0),
      parts: { fleetSawItMs: part('fleetSawItMs'), waveStartedMs: part('waveStartedMs'), permittedMs: part('permittedMs'), memberStartedMs: part('memberStartedMs') },
      handoffs,
      fleetReleaseMs: summarize(completedFleetReleases(fleetHistory).map((r) => r.totalMs), 'ms', 0),
      baseline, windows, perRelease,
      cost: { ...priced, pricesRecordedOn: cost.pricesRecordedOn, passWallMs },
    };
  } finally {
    await serve?.interrupt();
    for (const p of ourProcesses(home)) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
    await dynamo.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

function fleetDocument(): string {
  return [
    'apiVersion: rollouts.serverless-rollouts.io/v1alpha1',
    'kind: FleetRollout',
    'metadata: {name: web}',
    'spec:',
    '  workload: {namespace: default, kind: Deployment, name: web}',
    '  clusterSelector: {matchLabels: {env: sandbox}}',
    '  template:',
    '    spec:',
    `      strategy: {canary: {steps: ${STEPS}}}`,
    '  waves:',
    '    - {name: first, selector: {matchLabels: {ring: canary}}}',
    '    - {name: second, count: 1}',
    '    - {name: third}',
    '',
  ].join('\n');
}

/** Serve's lines and dynalite's counts while `body` runs (it gets the index of serve's next line). */
async function measureWindow(serve: ServeProcess, dynamo: DynaliteHarness, body: (from: number) => Promise<void>): Promise<WindowUnits> {
  dynamo.resetCounts();
  const from = serve.lines.length;
  const t0 = Date.now();
  await body(from);
  const ms = Date.now() - t0;
  return {
    ms,
    serve: countServeLines(serve.lines.slice(from).map((l) => l.line)),
    dynamodb: { requests: Object.fromEntries(dynamo.requests().map(({ op, count }) => [op, count])), capacity: dynamo.capacity() },
  };
}

async function kubectl(kubeconfig: string, cluster: string, ...args: string[]): Promise<void> {
  const r = await runKubectl(kubeconfig, ['--context', cluster, ...args]);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} in ${cluster}: ${r.stderr}`);
}

async function getJson(endpoint: string, route: string): Promise<unknown> {
  const res = await fetch(new URL(route, endpoint));
  if (!res.ok) throw new Error(`GET ${route}: ${res.status} ${await res.text()}`);
  return res.json();
}

function rows(r: FleetReleaseResult): TableRow[] {
  const top = [...r.cost.lines].sort((a, b) => b.usd - a.usd).slice(0, 2).map((l) => `${l.what} $${l.usd.toFixed(6)}`).join('; ');
  const u = r.perRelease;
  const sum = (m: Record<string, number>) => round(Object.values(m).reduce((a, b) => a + b, 0), 1);
  return [
    {
      area: 'fleet',
      metric: `overhead: last member Completed → next wave's first member started, p50 / p95 (goal ≤ ${r.goalMs / 1000} s; ${r.overheadMs.n} samples: ${r.releases} releases × ${r.clusters - 1} wave transitions, no approval, bake or gate between waves)`,
      value: `${r.overheadMs.median} ms / ${r.overheadMs.p95} ms (min ${r.overheadMs.min}, max ${r.overheadMs.max})`,
      source: 'member and fleet history (local mode, serve --clusters 3)',
    },
    {
      area: 'fleet',
      metric: 'overhead split, medians: fleet sees the member done / opens the next wave / permits its first member / the member starts',
      value: `${r.parts.fleetSawItMs.median} / ${r.parts.waveStartedMs.median} / ${r.parts.permittedMs.median} / ${r.parts.memberStartedMs.median} ms`,
      source: 'fleet history',
    },
    {
      area: 'fleet',
      metric: `one fleet release, ${r.clusters} clusters × ${r.replicas} replicas, waves ${r.waves.split(',')[0]}, steps ${r.steps}, ready delay ${r.podReadyDelayMs / 1000} s: duration (median); units per release`,
      value: `${(r.fleetReleaseMs.median / 1000).toFixed(1)} s; ${round(u.reconciles.fleet + u.reconciles.member, 1)} passes (${u.reconciles.fleet} fleet), ${sum(u.dynamodb.requests)} DynamoDB requests, ${round(u.events.fleet + u.events.rollout, 1)} transitions`,
      source: 'fleet history; serve lines; dynalite (rate at rest taken off)',
    },
    {
      area: 'fleet',
      metric: `cost of one such fleet release (its on-demand watcher included)`,
      value: `$${r.cost.totalUsd.toFixed(6)} (largest: ${top})`,
      source: `model (measured fleet release units); prices of ${r.cost.pricesRecordedOn}`,
    },
  ];
}
