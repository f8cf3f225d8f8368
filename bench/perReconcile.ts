// Area 1 — what one reconcile costs: Kubernetes reads and writes, DynamoDB requests and capacity
// units, wall time. Three kinds of pass, each ≥ 20 times on the real control plane and dynalite:
//   noop-healthy       a settled rollout (nothing to do);
//   noop-resync        the same rollout found by the sweep's resync window (the pass every managed
//                      rollout gets once per resync period): must write nothing;
//   noop-awaiting      a release waiting for approval after a batch;
//   batch-advancing    the pass right after an approval, which starts the next batch.
// Every pass is counted twice: at the servers (the apiserver's audit log of our user; dynalite's
// request counter and the ConsumedCapacity it reported) and by our Meter (ReconcileResult.counts).
import { performance } from 'node:perf_hooks';
import type { AuditEvent } from '../shared/adapters/local/controlPlane.ts';
import { sweepDue } from '../shared/reconcile/sweep.ts';
import { DEFAULT_RESYNC_PERIOD_SECONDS } from '../shared/app/config.ts';
import { reconcile, type ReconcileResult } from '../shared/reconcile/reconcile.ts';
import { MemoryQueue } from './testbed/fakes/memoryQueue.ts';
import { queueKeyString } from '../shared/fleet/key.ts';
import { Engine, type Scenario } from './testbed/engine.ts';
import { awaitingApproval } from './testbed/pipeline.ts';
import { KUBE_READS, KUBE_WRITES } from './lib/audit.ts';
import type { Area, BenchContext, TableRow } from './lib/area.ts';
import { summarize, sumOf, type Summary } from './lib/stats.ts';

const DDB_READS: ReadonlySet<string> = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan']);
const DDB_WRITES: ReadonlySet<string> = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);
/** Ten single-pod steps, each waiting for approval: nine approvals (nine advancing passes) per release. */
const STEPS: { replicas: number | string }[] = [...Array.from({ length: 9 }, (_, i) => ({ replicas: i + 1 })), { replicas: '100%' }];
const RELEASES = 3;
const HEALTHY_RUNS = 25;
const POD_READY_DELAY_MS = 200;

type Kind = 'noopHealthy' | 'noopResync' | 'noopAwaitingApproval' | 'batchAdvancing';

interface Sample {
  wallMs: number;
  outcome: string;
  server: { k8sReads: number; k8sWrites: number; ddbReads: number; ddbWrites: number; ddbReadUnits: number; ddbWriteUnits: number; ddbOps: Record<string, number>; k8sRequests: string[] };
  meter: ReconcileResult['counts'];
}

export interface KindResult {
  runs: number;
  outcomes: Record<string, number>;
  wallMs: Summary;
  /** Requests and units per pass as the servers saw them. */
  server: Record<string, Summary>;
  /** The same per pass as our Meter counted them (rcu/wcu with the billing minimums applied). */
  meter: Record<string, Summary>;
  /** Passes whose meter request counts differ from the servers' (should be 0). */
  meterMismatches: number;
  /** What the servers received in the first pass of this kind, for reading. */
  example: { kubernetes: string[]; dynamodb: Record<string, number> };
}

export type PerReconcileResult = Record<Kind, KindResult> & { podReadyDelayMs: number; steps: string };

export const perReconcile: Area<PerReconcileResult> = {
  name: 'reconcile',
  title: 'Per reconcile (server-side counts vs. meter)',
  run,
  rows,
};

async function run(ctx: BenchContext): Promise<PerReconcileResult> {
  const samples: Record<Kind, Sample[]> = { noopHealthy: [], noopResync: [], noopAwaitingApproval: [], batchAdvancing: [] };
  const engine = await Engine.start({ podReadyDelayMs: POD_READY_DELAY_MS, auditLog: true, captureCapacity: true });
  try {
    const s = await engine.scenario('bench-reconcile', { replicas: 10, steps: STEPS });
    await s.reconcileUntil((x) => x.deployment.spec?.paused === true && x.state.phase === 'Healthy', 'the Deployment to be held');
    for (let i = 0; i < HEALTHY_RUNS; i += 1) samples.noopHealthy.push(await measure(engine, s));
    for (let i = 0; i < HEALTHY_RUNS; i += 1) {
      // What the sweep Lambda does each tick, then the reconcile its message leads to.
      const queue = new MemoryQueue();
      const now = new Date();
      await sweepDue({ store: engine.store, queue, clock: { now: () => now }, resyncPeriodMs: DEFAULT_RESYNC_PERIOD_SECONDS * 1000 }, { from: new Date(now.getTime() - DEFAULT_RESYNC_PERIOD_SECONDS * 1000), to: now });
      if (!queue.sent.some((m) => queueKeyString(m.key) === queueKeyString(s.key))) throw new Error('the resync window did not find the rollout');
      samples.noopResync.push(await measure(engine, s, () => reconcile(s.key, engine.deps())));
    }
    for (let r = 0; r < RELEASES; r += 1) {
      ctx.log(`reconcile: release ${r + 1}/${RELEASES}`);
      await s.setImage(`registry.invalid/web:bench-${r + 2}`);
      await s.reconcileUntil((x) => awaitingApproval(x, 0), 'batch 1 to be ready');
      for (let step = 1; step < STEPS.length; step += 1) {
        // The MinReadySeconds strategy drains the batch's surge once it is Available: a pass or two after the batch is ready.
        await untilQuiet(s);
        samples.noopAwaitingApproval.push(await measure(engine, s));
        await s.command({ type: 'approve' });
        samples.batchAdvancing.push(await measure(engine, s));
        const last = step === STEPS.length - 1;
        await s.reconcileUntil((x) => (last ? x.state.release === null : awaitingApproval(x, step)), `step ${step + 1} to be ready`);
      }
    }
  } finally {
    await engine.stop();
  }
  return {
    podReadyDelayMs: POD_READY_DELAY_MS,
    steps: 'ten steps of 1..10 pods of a 10-replica Deployment, each waiting for approval',
    noopHealthy: summarizeKind(samples.noopHealthy),
    noopResync: summarizeKind(samples.noopResync),
    noopAwaitingApproval: summarizeKind(samples.noopAwaitingApproval),
    batchAdvancing: summarizeKind(samples.batchAdvancing),
  };
}

/** Reconciles until a pass writes nothing (bounded). */
async function untilQuiet(s: Scenario): Promise<void> {
  for (let i = 0; i < 20; i += 1) {
    if ((await s.reconcile()).writes === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One reconcile, bracketed by the audit log and dynalite's counters. */
async function measure(engine: Engine, s: Scenario, pass: () => Promise<ReconcileResult> = () => s.reconcile()): Promise<Sample> {
  const seen = engine.cluster.auditEvents().length;
  engine.dynamo.resetCounts();
  const t0 = performance.now();
  const result = await pass();
  const wallMs = performance.now() - t0;
  const audit: AuditEvent[] = engine.cluster.auditEvents().slice(seen);
  const ddbOps = Object.fromEntries(engine.dynamo.requests().map(({ op, count }) => [op, count]));
  const units = engine.dynamo.capacity();
  return {
    wallMs,
    outcome: result.outcome,
    server: {
      k8sReads: audit.filter((e) => KUBE_READS.has(e.verb)).length,
      k8sWrites: audit.filter((e) => KUBE_WRITES.has(e.verb)).length,
      ddbReads: sumOf(ddbOps, DDB_READS),
      ddbWrites: sumOf(ddbOps, DDB_WRITES),
      ddbReadUnits: sumOf(units, DDB_READS),
      ddbWriteUnits: sumOf(units, DDB_WRITES),
      ddbOps,
      k8sRequests: audit.map((e) => `${e.verb} ${e.objectRef?.resource ?? '?'} → ${e.responseStatus?.code ?? '?'}`),
    },
    meter: result.counts,
  };
}

function summarizeKind(samples: Sample[]): KindResult {
  const first = samples[0];
  const outcomes: Record<string, number> = {};
  for (const x of samples) outcomes[x.outcome] = (outcomes[x.outcome] ?? 0) + 1;
  const server = (f: (x: Sample) => number, unit: string) => summarize(samples.map(f), unit);
  return {
    runs: samples.length,
    outcomes,
    wallMs: summarize(samples.map((x) => x.wallMs), 'ms'),
    server: {
      k8sReads: server((x) => x.server.k8sReads, 'requests'),
      k8sWrites: server((x) => x.server.k8sWrites, 'requests'),
      ddbReadRequests: server((x) => x.server.ddbReads, 'requests'),
      ddbWriteRequests: server((x) => x.server.ddbWrites, 'requests'),
      ddbReadUnitsReported: server((x) => x.server.ddbReadUnits, 'RCU'),
      ddbWriteUnitsReported: server((x) => x.server.ddbWriteUnits, 'WCU'),
    },
    meter: {
      k8sReads: server((x) => x.meter['k8s.read'], 'requests'),
      k8sWrites: server((x) => x.meter['k8s.write'], 'requests'),
      ddbReadRequests: server((x) => x.meter['ddb.read'], 'requests'),
      ddbWriteRequests: server((x) => x.meter['ddb.write'], 'requests'),
      ddbRcu: server((x) => x.meter['ddb.rcu'], 'RCU'),
      ddbWcu: server((x) => x.meter['ddb.wcu'], 'WCU'),
      eventsPut: server((x) => x.meter['events.put'], 'events'),
    },
    meterMismatches: samples.filter((x) =>
      x.meter['k8s.read'] !== x.server.k8sReads || x.meter['k8s.write'] !== x.server.k8sWrites ||
      x.meter['ddb.read'] !== x.server.ddbReads || x.meter['ddb.write'] !== x.server.ddbWrites).length,
    example: { kubernetes: first?.server.k8sRequests ?? [], dynamodb: first?.server.ddbOps ?? {} },
  };
}

function rows(r: PerReconcileResult): TableRow[] {
  const out: TableRow[] = [];
  const label: Record<Kind, string> = { noopHealthy: 'no-op (Healthy)', noopResync: 'no-op resync (Healthy, via the sweep)', noopAwaitingApproval: 'no-op (awaiting approval)', batchAdvancing: 'batch-advancing' };
  const kinds = ['noopHealthy', 'noopResync', 'noopAwaitingApproval', 'batchAdvancing'] as const;
  for (const kind of kinds) {
    const k = r[kind];
    const pair = (a: Summary | undefined, b: Summary | undefined) => `${fmt(a)} / ${fmt(b)}`;
    out.push(
      { area: 'reconcile', metric: `${label[kind]}: wall time median / p95 (n=${k.runs})`, value: `${k.wallMs.median} / ${k.wallMs.p95} ms`, source: 'measured (client)' },
      { area: 'reconcile', metric: `${label[kind]}: Kubernetes reads / writes`, value: `${pair(k.server.k8sReads, k.server.k8sWrites)} (meter ${pair(k.meter.k8sReads, k.meter.k8sWrites)})`, source: 'apiserver audit log (meter)' },
      { area: 'reconcile', metric: `${label[kind]}: DynamoDB read / write requests`, value: `${pair(k.server.ddbReadRequests, k.server.ddbWriteRequests)} (meter ${pair(k.meter.ddbReadRequests, k.meter.ddbWriteRequests)})`, source: 'dynalite counter (meter)' },
      { area: 'reconcile', metric: `${label[kind]}: RCU / WCU`, value: `${pair(k.server.ddbReadUnitsReported, k.server.ddbWriteUnitsReported)} (meter, billed minimums: ${pair(k.meter.ddbRcu, k.meter.ddbWcu)})`, source: 'dynalite ConsumedCapacity (meter)' },
    );
  }
  const passes = kinds.reduce((n, k) => n + r[k].runs, 0);
  const mismatches = kinds.reduce((n, k) => n + r[k].meterMismatches, 0);
  out.push({ area: 'reconcile', metric: 'passes whose meter request counts differ from the servers\'', value: `${mismatches} of ${passes}`, source: 'audit log + dynalite vs meter' });
  return out;
}

/** "median", or "median (p95 x)" when they differ. */
function fmt(s: Summary | undefined): string {
  if (!s) return '-';
  return s.median === s.p95 ? `${s.median}` : `${s.median} (p95 ${s.p95})`;
}
