// Area 3 — release overhead against the limit. A 10- and a 100-replica Deployment (default
// RollingUpdate budget, 25%/25%) released with steps [10%, 50%, 100%] and no pauses, pods Ready
// 2 s after scheduling, in each Deployment strategy (MinReadySeconds, the default, and Partition):
// total time ÷ the lower bound (one pod-ready delay per batch). On the same control plane, the same
// Deployment rolled by the native controller (not paused, same budget), for comparison. Requests come from the apiserver's audit log, which here records every user in the
// benchmark's namespaces; components are told apart by user agent (lib/audit.ts).
import { performance } from 'node:perf_hooks';
import { CoreV1Api } from '@kubernetes/client-node';
import { ROLLOUTS_USER } from '../shared/adapters/local/controlPlane.ts';
import type { MeterKey } from '../shared/meter.ts';
import { Engine, Scenario } from './testbed/engine.ts';
import type { DeploymentStrategy } from '../shared/rollout/types.ts';
import type { Area, BenchContext, TableRow } from './lib/area.ts';
import { countRequests, inWindow, isBench, type RequestCounts } from './lib/audit.ts';
import { DeploymentWatch, rolledOutTo } from './lib/deploymentWatch.ts';
import { benchNamespace, releaseOnce, waitUntilHeld } from './lib/release.ts';
import { q, round, summarize, type Quantity, type Summary } from './lib/stats.ts';
import { LOCAL_MODE_WATCH, startWatchLoop } from './lib/watchLoop.ts';

const SIZES = [10, 100];
const STRATEGIES: DeploymentStrategy[] = ['MinReadySeconds', 'Partition'];
const POD_READY_DELAY_MS = 2000;
const STEPS = [{ replicas: '10%', pause: { duration: 0 } }, { replicas: '50%', pause: { duration: 0 } }, { replicas: '100%' }];
const V1 = 'registry.invalid/web:v1';
const V2 = 'registry.invalid/web:v2';
const TIMEOUT_MS = 180_000;

export interface OursResult {
  strategy: DeploymentStrategy;
  totalMs: Quantity;
  /** Until every replica ran the new template and was available (before the hand-back). */
  podsDoneMs: Quantity;
  lowerBoundMs: Quantity;
  overheadRatio: Quantity;
  batchReadyAtMs: Quantity[];
  reconciles: { count: number; byTrigger: Record<string, number>; askedToRunAgain: number; wallMs: Summary; totalWallMs: Quantity };
  /** Keys the watch side handed to the queue (EventBridge events in the deployed stack). */
  watchNotices: number;
  /** Transition events published (EventBridge events in the deployed stack). */
  transitionEvents: number;
  kubernetes: { oursAlone: RequestCounts; allComponents: RequestCounts };
  dynamodb: {
    units: { 'ddb.read': 'requests'; 'ddb.write': 'requests'; 'ddb.rcu': 'RCU'; 'ddb.wcu': 'WCU'; server: 'requests'; serverUnitsReported: 'capacity units' };
    /** Summed from each reconcile's ReconcileResult.counts. */
    reconcileMeter: Record<'ddb.read' | 'ddb.write' | 'ddb.rcu' | 'ddb.wcu', number>;
    /** The watch side's catalogue refreshes during the release. */
    watchMeter: Record<'ddb.read' | 'ddb.rcu', number>;
    /** Everything dynalite received in the window (reconciles + watch side), by operation. */
    server: Record<string, number>;
    serverUnitsReported: Record<string, number>;
  };
}

export interface NativeResult {
  totalMs: Quantity;
  /** Against the same bound as ours, though a native rollout has no batches (it moves in waves of maxSurge + maxUnavailable). */
  overheadRatio: Quantity;
  kubernetes: { allComponents: RequestCounts };
}

export interface SizeResult {
  replicas: number;
  /** One per strategy, with ours ÷ native: what the batches and our loop cost over the cluster's own speed. */
  ours: (OursResult & { oursOverNative: Quantity })[];
  native: NativeResult;
}

export interface ReleaseOverheadResult {
  podReadyDelayMs: number;
  steps: string;
  strategy: string;
  watchTuning: typeof LOCAL_MODE_WATCH;
  loop: string;
  sizes: SizeResult[];
}

export const releaseOverhead: Area<ReleaseOverheadResult> = {
  name: 'release',
  title: 'Release overhead vs. the pod-ready limit, and vs. a native RollingUpdate',
  run,
  rows,
};

async function run(ctx: BenchContext): Promise<ReleaseOverheadResult> {
  const namespaces = SIZES.map((n) => ({
    n,
    ours: STRATEGIES.map((strategy) => ({ strategy, namespace: benchNamespace(`bench-${strategy === 'Partition' ? 'partition' : 'minready'}-${n}`) })),
    native: benchNamespace(`bench-native-${n}`),
  }));
  const engine = await Engine.start({
    podReadyDelayMs: POD_READY_DELAY_MS,
    auditLog: true,
    captureCapacity: true,
    auditRules: [{ level: 'Metadata', namespaces: namespaces.flatMap((x) => [...x.ours.map((o) => o.namespace), x.native]) }],
  });
  try {
    const sizes: SizeResult[] = [];
    for (const { n, ours, native } of namespaces) {
      const results: OursResult[] = [];
      for (const { strategy, namespace } of ours) {
        ctx.log(`release: ${n} replicas, ours (${strategy})`);
        results.push(await runOurs(engine, n, namespace, strategy));
      }
      ctx.log(`release: ${n} replicas, native RollingUpdate`);
      const nat = await runNative(engine, n, native);
      sizes.push({ replicas: n, ours: results.map((o) => ({ ...o, oursOverNative: q(o.totalMs.value / nat.totalMs.value, 'ratio', 2) })), native: nat });
    }
    return {
      podReadyDelayMs: POD_READY_DELAY_MS,
      steps: JSON.stringify(STEPS),
      strategy: 'RollingUpdate, maxSurge 25%, maxUnavailable 25% (Kubernetes defaults) for all; ours in each Deployment strategy',
      watchTuning: LOCAL_MODE_WATCH,
      loop: 'local mode\'s loop from its parts (runWatchProxy → LocalKeyedQueue → reconcile), see bench/lib/watchLoop.ts',
      sizes,
    };
  } finally {
    await engine.stop();
  }
}

async function runOurs(engine: Engine, replicas: number, namespace: string, strategy: DeploymentStrategy): Promise<OursResult> {
  const s = await engine.scenario('bench-ours', { replicas, steps: STEPS, namespace, deploymentStrategy: strategy });
  const loop = startWatchLoop(engine);
  try {
    await waitUntilHeld(s);
    const meterBefore = engine.meter.snapshot();
    const watchBefore = loop.watchMeter.snapshot();
    engine.dynamo.resetCounts();
    const r = await releaseOnce(engine, s, loop, V2, replicas, TIMEOUT_MS);
    const server = Object.fromEntries(engine.dynamo.requests().map(({ op, count }) => [op, count]));
    const serverUnitsReported = engine.dynamo.capacity();
    const meter = diff(engine.meter.snapshot(), meterBefore);
    const watch = diff(loop.watchMeter.snapshot(), watchBefore);
    const audit = inWindow(engine.cluster.auditEvents(), r.startedAt, r.completedAt, new Set([namespace]));
    const lowerBound = STEPS.length * POD_READY_DELAY_MS;
    const byTrigger: Record<string, number> = {};
    for (const x of r.reconciles) byTrigger[x.reason] = (byTrigger[x.reason] ?? 0) + 1;
    const total = r.completedAt - r.startedAt;
    return {
      strategy,
      totalMs: q(total, 'ms', 0),
      podsDoneMs: q(r.podsDoneAt - r.startedAt, 'ms', 0),
      lowerBoundMs: q(lowerBound, 'ms', 0),
      overheadRatio: q(total / lowerBound, 'ratio', 2),
      batchReadyAtMs: r.events.filter((e) => e.type === 'Batch Ready').map((e) => q(Date.parse(e.at) - r.startedAt, 'ms', 0)),
      reconciles: {
        count: r.reconciles.length,
        byTrigger,
        askedToRunAgain: r.reconciles.filter((x) => x.result.requeueSeconds !== null).length,
        wallMs: summarize(r.reconciles.map((x) => x.wallMs), 'ms'),
        totalWallMs: q(r.reconciles.reduce((n, x) => n + x.wallMs, 0), 'ms', 1),
      },
      watchNotices: r.notices,
      transitionEvents: r.events.length,
      kubernetes: {
        oursAlone: countRequests(audit.filter((e) => e.user.username === ROLLOUTS_USER)),
        allComponents: countRequests(audit.filter((e) => !isBench(e))),
      },
      dynamodb: {
        units: { 'ddb.read': 'requests', 'ddb.write': 'requests', 'ddb.rcu': 'RCU', 'ddb.wcu': 'WCU', server: 'requests', serverUnitsReported: 'capacity units' },
        reconcileMeter: { 'ddb.read': meter['ddb.read'], 'ddb.write': meter['ddb.write'], 'ddb.rcu': meter['ddb.rcu'], 'ddb.wcu': meter['ddb.wcu'] },
        watchMeter: { 'ddb.read': watch['ddb.read'], 'ddb.rcu': watch['ddb.rcu'] },
        server,
        serverUnitsReported,
      },
    };
  } finally {
    await loop.stop();
  }
}

async function runNative(engine: Engine, replicas: number, namespace: string): Promise<NativeResult> {
  await engine.cluster.admin.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
  await engine.cluster.createDeployment(namespace, 'web', { replicas, image: V1 });
  const s = new Scenario(engine, namespace);
  await s.waitForPods(V1, replicas, 120_000);
  const watch = await DeploymentWatch.start(engine.cluster.admin, namespace, 'web');
  try {
    const done = watch.when(rolledOutTo(V2, replicas), TIMEOUT_MS, 'the native rollout');
    const startedAt = Date.now();
    const t0 = performance.now();
    await s.setImage(V2);
    await done;
    const total = performance.now() - t0;
    const audit = inWindow(engine.cluster.auditEvents(), startedAt, startedAt + total, new Set([namespace]));
    return {
      totalMs: q(total, 'ms', 0),
      overheadRatio: q(total / (STEPS.length * POD_READY_DELAY_MS), 'ratio', 2),
      kubernetes: { allComponents: countRequests(audit.filter((e) => !isBench(e))) },
    };
  } finally {
    watch.stop();
  }
}

function diff(after: Record<MeterKey, number>, before: Record<MeterKey, number>): Record<MeterKey, number> {
  return Object.fromEntries(Object.keys(after).map((k) => [k, round(after[k as MeterKey] - before[k as MeterKey], 2)])) as Record<MeterKey, number>;
}

function rows(r: ReleaseOverheadResult): TableRow[] {
  return r.sizes.flatMap(({ replicas, ours, native }) => [
    ...ours.flatMap((o) => [
      {
        area: 'release',
        metric: `${replicas} replicas, [10%,50%,100%], ready delay ${r.podReadyDelayMs / 1000} s, ${o.strategy}: ours total / ÷ lower bound / ÷ native`,
        value: `${fmtS(o.totalMs.value)} / ${o.overheadRatio.value}× (bound ${fmtS(o.lowerBoundMs.value)}; pods done at ${fmtS(o.podsDoneMs.value)}) / ${o.oursOverNative.value}×`,
        source: 'measured (watch loop)',
      },
      {
        area: 'release',
        metric: `${replicas} replicas, ${o.strategy}: apiserver requests (all incl. controllers | ours alone); reconciles; DynamoDB RCU / WCU`,
        value: `${o.kubernetes.allComponents.total} | ${o.kubernetes.oursAlone.total} (${o.kubernetes.oursAlone.reads} r, ${o.kubernetes.oursAlone.writes} w); ${o.reconciles.count} (${Object.entries(o.reconciles.byTrigger).map(([k, v]) => `${k} ${v}`).join(', ')}); ${o.dynamodb.reconcileMeter['ddb.rcu']} / ${o.dynamodb.reconcileMeter['ddb.wcu']}`,
        source: 'audit log; meter',
      },
    ]),
    {
      area: 'release',
      metric: `${replicas} replicas: native RollingUpdate total / ÷ same bound; apiserver requests`,
      value: `${fmtS(native.totalMs.value)} / ${native.overheadRatio.value}×; ${native.kubernetes.allComponents.total}`,
      source: 'measured (same control plane); audit log',
    },
  ]);
}

function fmtS(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}
