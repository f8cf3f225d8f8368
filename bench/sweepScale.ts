// Area 4 — one sweep at fleet scale: 0, 100 and 1000 active releases in the state store (STATE
// items written through DynamoStateStore, so the due-index attributes are exactly what reconcile
// writes), and 1000 managed idle rollouts (SPEC items: their resync entries; one tick of the
// default 1-minute sweep resyncs the fifth of them whose turn falls in its window), then the sweep core (shared/reconcile/sweep.ts, what the sweep Lambda runs): queryDue over the
// due-GSI shards on dynalite, then every due key handed to our SQS adapter (SqsReconcileQueue:
// FIFO entries with group and deduplication ids, SendMessageBatch of 10) over an in-process SQS
// client that accepts every batch at once. Not moto: its FIFO SendMessageBatch slows down with the
// queue's depth (measured here: 100 messages in 2 s into an empty queue, 1000 more in 204 s), which
// would time moto, not the sweep. A sweep into a queue that drops the keys shows DynamoDB alone.
import { performance } from 'node:perf_hooks';
import { DynamoStateStore } from '../shared/adapters/dynamodb/stateStore.ts';
import { STATE_TABLE } from '../shared/adapters/dynamodb/table.ts';
import { SendMessageBatchCommand, type SendMessageBatchCommandOutput, type SQSClient } from '@aws-sdk/client-sqs';
import { SqsReconcileQueue } from '../shared/adapters/sqs/reconcileQueue.ts';
import { sweepDue, tickWindow } from '../shared/reconcile/sweep.ts';
import { type BatchingQueue } from '../shared/ports.ts';
import { DEFAULT_RESYNC_PERIOD_SECONDS, DEFAULT_SWEEP_INTERVAL_SECONDS } from '../shared/app/config.ts';
import { Meter, type MeterKey } from '../shared/meter.ts';
import type { RolloutKey } from '../shared/rollout/types.ts';
import { startDynalite } from './testbed/dynalite.ts';
import { activeState, sampleSpec } from './testbed/stateStoreFixtures.ts';
import type { Area, BenchContext, TableRow } from './lib/area.ts';
import { q, summarize, type Quantity, type Summary } from './lib/stats.ts';

/** Active releases (due every tick) and managed idle rollouts (resynced once per period). */
const FLEETS: { active: number; idle: number }[] = [{ active: 0, idle: 0 }, { active: 100, idle: 0 }, { active: 1000, idle: 0 }, { active: 0, idle: 1000 }];
/** The instant every tick of a fleet is taken at, so each run resyncs the same rollouts. */
const TICK_AT = new Date('2030-01-01T00:03:00.000Z');
const RUNS = 10;
const RESYNC_PERIOD_MS = DEFAULT_RESYNC_PERIOD_SECONDS * 1000;
const SWEEP_INTERVAL_MS = DEFAULT_SWEEP_INTERVAL_SECONDS * 1000;

interface SweepRun {
  totalMs: number;
  queryMs: number;
  enqueueMs: number;
  due: number;
  resync: number;
  meter: Record<MeterKey, number>;
  dynaliteRequests: number;
  dynaliteReadUnits: number;
}

export interface FleetResult {
  activeReleases: number;
  /** Managed rollouts with no release (SPEC only): found by the resync alone. */
  idleManaged: number;
  runs: number;
  due: number;
  /** Of those, resynced by this tick. */
  resync: number;
  totalMs: Summary;
  queryDueMs: Summary;
  enqueueMs: Summary;
  /** Per sweep; constant across runs (same items). */
  ddbQueryRequests: Quantity;
  ddbRcuBilled: Quantity;
  ddbRcuReportedByDynalite: Quantity;
  sqsSendMessageBatchRequests: Quantity;
  /** The same sweep into a queue that drops the keys: the DynamoDB side alone. */
  droppingQueue: { totalMs: Summary };
}

export interface SweepResult {
  queue: string;
  dueIndexShards: number;
  fleets: FleetResult[];
}

export const sweepScale: Area<SweepResult> = {
  name: 'sweep',
  title: 'Sweep scale (queryDue over the due-GSI shards + the resync window → enqueue)',
  run,
  rows,
};

async function run(ctx: BenchContext): Promise<SweepResult> {
  const fleets: FleetResult[] = [];
  for (const fleet of FLEETS) {
    ctx.log(`sweep: ${fleet.active} active releases, ${fleet.idle} idle managed rollouts`);
    fleets.push(await measureFleet(fleet));
  }
  return {
    queue: 'in-memory: SqsReconcileQueue over an in-process SQS client that accepts every batch (no network; moto FIFO is quadratic in queue depth)',
    dueIndexShards: STATE_TABLE.dueIndex.shardCount,
    fleets,
  };
}

async function measureFleet(fleet: { active: number; idle: number }): Promise<FleetResult> {
  const dynamo = await startDynalite({ captureCapacity: true, tableName: `bench-sweep-${fleet.active}-${fleet.idle}` });
  try {
    const meter = new Meter();
    const store = new DynamoStateStore({ client: dynamo.client, tableName: dynamo.tableName, meter });
    const keys: RolloutKey[] = Array.from({ length: fleet.active }, (_, i) => ({ cluster: 'bench', namespace: `team-${i}`, name: 'web' }));
    // An active release with no wake-up: due at its write time, so every one is due at the sweep.
    for (let i = 0; i < keys.length; i += 25) {
      await Promise.all(keys.slice(i, i + 25).map((key) => store.saveState(key, { state: activeState({ nextWakeAt: null }), outbox: { history: [], events: [] } }, 0)));
    }
    const idle: RolloutKey[] = Array.from({ length: fleet.idle }, (_, i) => ({ cluster: 'bench', namespace: `idle-${i}`, name: 'web' }));
    for (let i = 0; i < idle.length; i += 25) {
      await Promise.all(idle.slice(i, i + 25).map((key) => store.putSpec(key, sampleSpec(key), null, 0)));
    }
    const sqs = new SqsReconcileQueue({ client: acceptingSqsClient(), queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/bench.fifo', triggerQueueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/bench', meter });
    const runs: SweepRun[] = [];
    for (let r = 0; r < RUNS; r += 1) runs.push(await sweepOnce(store, sqs, meter, dynamo));
    const inMemory: number[] = [];
    for (let r = 0; r < RUNS; r += 1) inMemory.push((await sweepOnce(store, droppingQueue(), meter, dynamo)).totalMs);
    const first = runs[0] as SweepRun;
    return {
      activeReleases: fleet.active,
      idleManaged: fleet.idle,
      runs: runs.length,
      due: first.due,
      resync: first.resync,
      totalMs: summarize(runs.map((x) => x.totalMs), 'ms'),
      queryDueMs: summarize(runs.map((x) => x.queryMs), 'ms'),
      enqueueMs: summarize(runs.map((x) => x.enqueueMs), 'ms'),
      ddbQueryRequests: q(first.meter['ddb.read'], 'requests'),
      ddbRcuBilled: q(first.meter['ddb.rcu'], 'RCU'),
      ddbRcuReportedByDynalite: q(first.dynaliteReadUnits, 'RCU'),
      sqsSendMessageBatchRequests: q(first.meter['queue.send'], 'requests'),
      droppingQueue: { totalMs: summarize(inMemory, 'ms') },
    };
  } finally {
    await dynamo.stop();
  }
}

async function sweepOnce(store: DynamoStateStore, queue: BatchingQueue, meter: Meter, dynamo: Awaited<ReturnType<typeof startDynalite>>): Promise<SweepRun> {
  const before = meter.snapshot();
  dynamo.resetCounts();
  let queryMs = 0;
  let enqueueMs = 0;
  // The same store and queue, timed per phase.
  const timedStore = {
    queryDue: async (now: Date, limit?: number) => {
      const t = performance.now();
      try {
        return await store.queryDue(now, limit);
      } finally {
        queryMs += performance.now() - t;
      }
    },
    queryResync: async (from: Date, to: Date, periodMs: number) => {
      const t = performance.now();
      try {
        return await store.queryResync(from, to, periodMs);
      } finally {
        queryMs += performance.now() - t;
      }
    },
  };
  const timedQueue: BatchingQueue = {
    enqueue: (key, opts) => queue.enqueue(key, opts),
    enqueueAll: async (keys, opts) => {
      const t = performance.now();
      try {
        await queue.enqueueAll?.(keys, opts);
      } finally {
        enqueueMs += performance.now() - t;
      }
    },
  };
  const t0 = performance.now();
  const now = TICK_AT;
  const result = await sweepDue({ store: timedStore, queue: timedQueue, clock: { now: () => now }, resyncPeriodMs: RESYNC_PERIOD_MS }, tickWindow(now, SWEEP_INTERVAL_MS));
  const totalMs = performance.now() - t0;
  const after = meter.snapshot();
  const diff = Object.fromEntries(Object.keys(after).map((k) => [k, after[k as MeterKey] - before[k as MeterKey]])) as Record<MeterKey, number>;
  return {
    totalMs, queryMs, enqueueMs, due: result.due, resync: result.resync, meter: diff,
    dynaliteRequests: dynamo.requestCount(),
    dynaliteReadUnits: dynamo.capacity().Query ?? 0,
  };
}

/** Takes the keys and does nothing with them: the sweep's DynamoDB side alone. */
function droppingQueue(): BatchingQueue {
  return { enqueue: async () => {}, enqueueAll: async () => {} };
}

/** An SQS client that accepts every SendMessageBatch entry at once (what SQS answers when all goes well). */
function acceptingSqsClient(): SQSClient {
  const send = async (command: unknown): Promise<SendMessageBatchCommandOutput> => {
    if (!(command instanceof SendMessageBatchCommand)) throw new Error('the sweep only sends SendMessageBatch');
    const entries = command.input.Entries ?? [];
    return { $metadata: {}, Successful: entries.map((e, i) => ({ Id: e.Id, MessageId: `m-${i}`, MD5OfMessageBody: '' })), Failed: [] };
  };
  return { send } as unknown as SQSClient;
}

function rows(r: SweepResult): TableRow[] {
  return r.fleets.flatMap((f) => {
    const label = f.idleManaged > 0 ? `${f.idleManaged} idle managed (${f.resync} resynced this tick)` : `${f.activeReleases} active`;
    return [
      { area: 'sweep', metric: `${label}: sweep time median / p95 (n=${f.runs})`, value: `${f.totalMs.median} / ${f.totalMs.p95} ms (queries ${f.queryDueMs.median}, enqueue ${f.enqueueMs.median}; DynamoDB only ${f.droppingQueue.totalMs.median})`, source: 'measured; dynalite + in-memory SQS client' },
      { area: 'sweep', metric: `${label}: DynamoDB per sweep`, value: `${f.ddbQueryRequests.value} Query, ${f.ddbRcuBilled.value} RCU billed (${f.ddbRcuReportedByDynalite.value} reported by dynalite); ${f.sqsSendMessageBatchRequests.value} SendMessageBatch`, source: 'meter | dynalite' },
    ];
  });
}
