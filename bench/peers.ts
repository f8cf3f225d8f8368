// Area `peers` (issue 26) — us beside the release controllers our users would pick instead, in one
// run on one control plane: native RollingUpdate, Argo Rollouts, Kruise Rollout (partition style)
// and ours in each Deployment strategy (bench/lib/peerContenders.ts), each releasing the same
// Deployment shape with steps [10%, 50%, 100%] and no pauses, pods Ready 2 s after scheduling.
// Interleaved: each repetition releases every size and every contender once (the contenders' order
// turned by one each repetition), so a slow minute of the shared machine falls on all of them. The
// peers' controllers and our loop run for the whole area, each watching the whole cluster.
// Per contender and size: template change → done (median, min–max), the reaction (last pod of a
// batch Ready → the write that starts the next batch, bench/lib/batchReactions.ts) and apiserver
// requests per release (audit log, the release's namespace, minus the benchmark's own).
// Opt-in (`npm run bench -- --only peers`, options in bench/lib/peersOptions.ts): it builds the
// peers on first use and takes about a quarter of an hour with the defaults.
import fs from 'node:fs';
import path from 'node:path';
import type { Area, BenchContext, TableRow } from './lib/area.ts';
import { countRequests, inWindow, isBench } from './lib/audit.ts';
import { batchReactions, writeTrail, type BatchReaction } from './lib/batchReactions.ts';
import { CONTENDERS, contender, PEER_STEP_PERCENTS, V1_IMAGE, type Contender, type ContenderName } from './lib/peerContenders.ts';
import { ensurePeersBuilt, startArgoRollouts, startKruiseRollout, type PeerProcess } from './lib/peerControllers.ts';
import { parsePeersOptions } from './lib/peersOptions.ts';
import { benchNamespace } from './lib/release.ts';
import { summarize, type Summary } from './lib/stats.ts';
import { LOCAL_MODE_WATCH, startWatchLoop } from './lib/watchLoop.ts';
import { Engine } from './testbed/engine.ts';

const POD_READY_DELAY_MS = 2000;
const RELEASE_TIMEOUT_MS = 300_000;
const PEER_NODES = 8;

const LABELS: Record<ContenderName, string> = {
  native: 'native RollingUpdate',
  'argo-rollouts': 'Argo Rollouts',
  'kruise-rollout': 'Kruise Rollout (partition)',
  'ours-minready': 'ours (MinReadySeconds)',
  'ours-partition': 'ours (Partition)',
};

export interface ReleaseRecord {
  rep: number;
  image: string;
  totalMs: number;
  requests: { all: number; own: number | null; byComponent: Record<string, number> };
  reactions: BatchReaction[];
  /** template change → the new ReplicaSet first asked for a pod (watch, coalescing, queue, the first pass…) */
  startMs: number | null;
  /** the last pod Ready → done (the last reaction, finalising, hand-back, status) */
  finishMs: number | null;
  /** Every write (but kwok's and the scheduler's) in those two spans, ms after their start: whose turn the time was. */
  startTrail: string[];
  finishTrail: string[];
  problems: string[];
}

export interface ContenderResult {
  contender: ContenderName;
  label: string;
  namespace: string;
  /** template change → done */
  totalMs: Summary;
  /** last pod of a batch Ready → the write that starts the next batch, every batch of every release */
  reactionMs: Summary;
  /** of which: last pod Ready → the ReplicaSet controller's status write */
  kubernetesShareMs: Summary;
  /** who sent the writes that started the next batches */
  reactionWriters: Record<string, number>;
  /** Where the time goes besides the pods' own readiness: template change → first batch, last pod Ready → done. */
  startMs: Summary;
  finishMs: Summary;
  requestsPerRelease: { all: Summary; own: Summary | null };
  releases: ReleaseRecord[];
}

export interface SizeResult {
  replicas: number;
  lowerBoundMs: number;
  contenders: ContenderResult[];
  /** Per strategy of ours, its median over each other's median. */
  ratios: { contender: ContenderName; overArgo: number; overKruise: number; overNative: number; overBound: number }[];
}

export interface PeersResult {
  podReadyDelayMs: number;
  steps: string;
  reps: number;
  versions: Record<string, string>;
  watchTuning: typeof LOCAL_MODE_WATCH;
  done: Record<ContenderName, string>;
  sizes: SizeResult[];
}

export const peers: Area<PeersResult> = {
  name: 'peers',
  title: 'Us beside native RollingUpdate, Argo Rollouts and Kruise Rollout, interleaved on one control plane',
  run,
  rows,
};

interface Planned { contender: Contender; records: ReleaseRecord[]; windows: { startedAt: number; doneAt: number }[] }

async function run(ctx: BenchContext): Promise<PeersResult> {
  const opts = parsePeersOptions(ctx.args);
  ensurePeersBuilt(ctx.log);
  const plan = opts.replicas.map((n) => ({ n, namespaces: CONTENDERS.map((name) => ({ name, namespace: benchNamespace(`peers-${name}-${n}`) })) }));
  const namespaces = plan.flatMap((p) => p.namespaces.map((x) => x.namespace));
  const engine = await Engine.start({
    // Every contender of every size keeps its pods for the whole area: 5 × (10 + 100), plus Argo's
    // Deployment until its Rollout is Healthy (workloadRef, scaleDown onsuccess) and each release's
    // surge. The default 3 nodes of 110 pods (shared/adapters/local/controlPlane.ts) left Argo's
    // 100-replica ReplicaSet Pending, past the setup's timeout.
    nodes: PEER_NODES,
    podReadyDelayMs: POD_READY_DELAY_MS,
    auditLog: true,
    auditRules: [
      // Bodies of every ReplicaSet write (the replicas asked for) and of kwok's pod status patches (Ready time).
      { level: 'Request', namespaces, verbs: ['create', 'update', 'patch'], resources: [{ group: 'apps', resources: ['replicasets', 'replicasets/scale'] }] },
      { level: 'Request', namespaces, verbs: ['patch', 'update'], resources: [{ group: '', resources: ['pods/status'] }] },
      { level: 'Metadata', namespaces },
    ],
  });
  const processes: PeerProcess[] = [];
  const loop = startWatchLoop(engine);
  try {
    const logDir = path.join(engine.cluster.dataDir, 'peers');
    fs.mkdirSync(logDir, { recursive: true });
    processes.push(await startArgoRollouts(engine.cluster, logDir));
    ctx.log(`peers: Argo Rollouts ${processes[0]?.version} running`);
    processes.push(await startKruiseRollout(engine.cluster, logDir));
    ctx.log(`peers: Kruise Rollout ${processes[1]?.version} running`);
    const sizes = plan.map(({ n, namespaces: ns }) => ({ n, planned: ns.map(({ name, namespace }) => ({ contender: contender(name, namespace, n, { engine, loop }), records: [], windows: [] }) as Planned) }));
    for (const { n, planned } of sizes) {
      for (const p of planned) {
        ctx.log(`peers: ${n} replicas, ${LABELS[p.contender.name]}: setting up`);
        await p.contender.prepare();
        await p.contender.settle(V1_IMAGE);
      }
    }
    let previous = V1_IMAGE;
    for (let rep = 1; rep <= opts.reps; rep += 1) {
      const image = `registry.invalid/web:v${rep + 1}`;
      for (const { n, planned } of sizes) {
        const order = planned.map((_, i) => planned[(i + rep - 1) % planned.length] as Planned);
        for (const p of order) {
          await p.contender.settle(previous);
          const w = await p.contender.release(image, RELEASE_TIMEOUT_MS);
          ctx.log(`peers: rep ${rep}/${opts.reps}, ${n} replicas, ${LABELS[p.contender.name]}: ${((w.doneAt - w.startedAt) / 1000).toFixed(2)} s`);
          p.windows.push(w);
        }
      }
      previous = image;
    }
    const events = engine.cluster.auditEvents();
    return {
      podReadyDelayMs: POD_READY_DELAY_MS,
      steps: JSON.stringify(PEER_STEP_PERCENTS.map((p) => `${p}%`)),
      reps: opts.reps,
      versions: Object.fromEntries(processes.map((p) => [p.peer, p.version])),
      watchTuning: LOCAL_MODE_WATCH,
      done: {
        native: 'the Deployment reports every replica updated and available for the new template (kubectl rollout status)',
        'argo-rollouts': 'the Rollout\'s status: phase Healthy, stableRS = currentPodHash (a new one), every replica updated and available',
        'kruise-rollout': 'the Rollout\'s status: phase Progressing, then Healthy with condition Progressing reason Completed',
        'ours-minready': 'our "Release Completed" transition (seen by the bench within 20 ms)',
        'ours-partition': 'our "Release Completed" transition (seen by the bench within 20 ms)',
      },
      sizes: sizes.map(({ n, planned }) => summarizeSize(n, planned, events)),
    };
  } finally {
    await loop.stop();
    for (const p of processes.reverse()) await p.stop();
    await engine.stop();
  }
}

function batchesOf(replicas: number): number[] {
  const sizes = PEER_STEP_PERCENTS.map((p) => Math.ceil((p * replicas) / 100)).filter((b) => b < replicas);
  return [...new Set(sizes)];
}

function summarizeSize(replicas: number, planned: Planned[], events: ReturnType<Engine['cluster']['auditEvents']>): SizeResult {
  const lowerBoundMs = PEER_STEP_PERCENTS.length * POD_READY_DELAY_MS;
  const contenders = planned.map(({ contender: c, windows }): ContenderResult => {
    const releases = windows.map((w, i): ReleaseRecord => {
      const window = inWindow(events, w.startedAt, w.doneAt, new Set([c.namespace]));
      const counted = countRequests(window.filter((e) => !isBench(e)));
      const measured = batchReactions(window, c.name === 'native' ? [] : batchesOf(replicas), replicas);
      return {
        rep: i + 1,
        image: `registry.invalid/web:v${i + 2}`,
        totalMs: w.doneAt - w.startedAt,
        requests: { all: counted.total, own: c.own === null ? null : (counted.byComponent[c.own] ?? 0), byComponent: counted.byComponent },
        reactions: measured.reactions.map((r) => ({ ...r, totalMs: round1(r.totalMs), kubeMs: round1(r.kubeMs) })),
        startMs: measured.firstBatchAt === undefined ? null : round1(measured.firstBatchAt - w.startedAt),
        finishMs: measured.lastReadyAt === undefined ? null : round1(w.doneAt - measured.lastReadyAt),
        startTrail: measured.firstBatchAt === undefined ? [] : writeTrail(window, w.startedAt, measured.firstBatchAt),
        finishTrail: measured.lastReadyAt === undefined ? [] : writeTrail(window, measured.lastReadyAt, w.doneAt),
        problems: measured.problems,
      };
    });
    const reactions = releases.flatMap((r) => r.reactions);
    const writers: Record<string, number> = {};
    for (const r of reactions) writers[r.writer] = (writers[r.writer] ?? 0) + 1;
    return {
      contender: c.name,
      label: LABELS[c.name],
      namespace: c.namespace,
      totalMs: summarize(releases.map((r) => r.totalMs), 'ms', 0),
      reactionMs: summarize(reactions.map((r) => r.totalMs), 'ms', 1),
      kubernetesShareMs: summarize(reactions.map((r) => r.kubeMs).filter(Number.isFinite), 'ms', 1),
      reactionWriters: writers,
      startMs: summarize(releases.flatMap((r) => (r.startMs === null ? [] : [r.startMs])), 'ms', 1),
      finishMs: summarize(releases.flatMap((r) => (r.finishMs === null ? [] : [r.finishMs])), 'ms', 1),
      requestsPerRelease: {
        all: summarize(releases.map((r) => r.requests.all), 'requests', 1),
        own: c.own === null ? null : summarize(releases.map((r) => r.requests.own ?? 0), 'requests', 1),
      },
      releases,
    };
  });
  const median = (name: ContenderName) => contenders.find((c) => c.contender === name)?.totalMs.median ?? NaN;
  const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
  const ratios = (['ours-minready', 'ours-partition'] as const).map((name) => ({
    contender: name,
    overArgo: ratio(median(name), median('argo-rollouts')),
    overKruise: ratio(median(name), median('kruise-rollout')),
    overNative: ratio(median(name), median('native')),
    overBound: ratio(median(name), lowerBoundMs),
  }));
  return { replicas, lowerBoundMs, contenders, ratios };
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}

function rows(r: PeersResult): TableRow[] {
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  return r.sizes.flatMap((size) => [
    ...size.contenders.map((c) => ({
      area: 'peers',
      metric: `${size.replicas} replicas, ${c.label}: template change → done, median (min–max, n=${c.totalMs.n}); apiserver requests per release (its own)`,
      value: `${s(c.totalMs.median)} (${s(c.totalMs.min)}–${s(c.totalMs.max)}); ${c.requestsPerRelease.all.median}${c.requestsPerRelease.own ? ` (${c.requestsPerRelease.own.median})` : ''}`,
      source: 'measured (one control plane, interleaved); audit log',
    })),
    ...size.contenders.map((c) => ({
      area: 'peers',
      metric: `${size.replicas} replicas, ${c.label}: reaction, last pod Ready → next batch's write, p50 / p95 (n=${c.reactionMs.n}; of which pod Ready → ReplicaSet status, p50); template change → first batch, last pod Ready → done, medians`,
      value: `${c.reactionMs.n === 0 ? 'no batches' : `${c.reactionMs.median} / ${c.reactionMs.p95} ms (${c.kubernetesShareMs.median} ms; written by ${Object.entries(c.reactionWriters).map(([k, v]) => `${k} ${v}`).join(', ')})`}; ${c.startMs.median} ms, ${c.finishMs.median} ms`,
      source: 'audit log (kwok Ready time → ReplicaSet write)',
    })),
    ...size.ratios.map((x) => ({
      area: 'peers',
      metric: `${size.replicas} replicas, ${LABELS[x.contender]} ÷ Argo / ÷ Kruise / ÷ native / ÷ bound (${s(size.lowerBoundMs)}), medians`,
      value: `${x.overArgo}× / ${x.overKruise}× / ${x.overNative}× / ${x.overBound}×`,
      source: 'measured (same run)',
    })),
  ]);
}
