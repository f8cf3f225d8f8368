// Area 6 — monthly cost model at list prices (lib/prices.ts), from the units measured by the other
// areas and the stack's own settings (lib/infra.ts). Every line says whether its quantity is
// measured here, read from infra, or modelled (an assumption, stated in `how`).
import { DEFAULT_DEPLOYMENT_STRATEGY } from '../shared/rollout/types.ts';
import type { Area, BenchContext, TableRow } from './lib/area.ts';
import { measureCatalogUnits, type CatalogUnits } from './lib/catalogUnits.ts';
import { HOURS_PER_MONTH, readInfra, type InfraValues } from './lib/infra.ts';
import { PRICES, PRICES_RECORDED_ON, type Price, type PriceName } from './lib/prices.ts';
import { round } from './lib/stats.ts';
import type { ColdStartResult } from './coldStart.ts';
import type { PerReconcileResult } from './perReconcile.ts';
import type { ReleaseOverheadResult } from './releaseOverhead.ts';
import type { SweepResult } from './sweepScale.ts';

/** shared/watch/watchProxy.ts: `refreshMs ?? 30_000` (not exported). */
const WATCH_PROXY_REFRESH_SECONDS = 30;
/** Modelled: an SQS event source mapping keeps 5 long polls (20 s wait) open on an idle queue. */
const IDLE_POLLERS_PER_QUEUE = 5;
const LONG_POLL_SECONDS = 20;
/** Modelled: a scheduled function's environment is replaced about once an hour (INIT is billed). */
const COLD_STARTS_PER_DAY = 24;
/** Modelled sensitivity: an in-region AWS or EKS API round trip, which loopback does not have. */
const ROUND_TRIP_MS = 10;
/** Each SQS message is sent, received and deleted (one request each, no batching assumed). */
const REQUESTS_PER_MESSAGE = 3;
const RELEASE_REPLICAS = 100;
const DAYS_PER_MONTH = HOURS_PER_MONTH / 24;

type Basis = 'measured' | 'infra' | 'modelled' | 'measured × infra' | 'measured + modelled';

export interface CostLine {
  what: string;
  quantity: number;
  unit: string;
  price: PriceName;
  usd: number;
  basis: Basis;
  how: string;
}

export interface CostBlock {
  lines: CostLine[];
  totalUsd: number;
}

export interface CostModelResult {
  pricesRecordedOn: string;
  prices: Record<PriceName, Price>;
  freeTiersApplied: false;
  infra: InfraValues;
  catalogUnits: CatalogUnits;
  idleStackPerMonth: CostBlock;
  perManagedRolloutIdlePerMonth: CostBlock;
  /** The resync's part of it: every managed rollout reconciled once per resync period. */
  resyncPerManagedRolloutPerMonth: CostBlock & { resyncsPerMonth: number; resyncPeriodSeconds: number };
  perRelease100Replicas: CostBlock & { inputs: Record<string, number>; sensitivity: { lambdaUsdWithRoundTrips: number; how: string } };
  notIncluded: string[];
}

export const costModel: Area<CostModelResult> = {
  name: 'cost',
  title: 'Monthly cost model (list prices, us-east-1)',
  run,
  rows,
};

async function run(ctx: BenchContext): Promise<CostModelResult> {
  const reconcile = ctx.results.reconcile as PerReconcileResult | undefined;
  const release = ctx.results.release as ReleaseOverheadResult | undefined;
  const sweep = ctx.results.sweep as SweepResult | undefined;
  const cold = ctx.results.coldstart as ColdStartResult | undefined;
  if (!reconcile || !release || !sweep || !cold) throw new Error('the cost model needs the results of reconcile, release, sweep and coldstart (run them, or keep them in latest.json)');
  ctx.log('cost: synthesizing the stack for its settings; measuring the catalogue refresh');
  const infra = readInfra();
  const catalog = await measureCatalogUnits();
  const fn = (name: string) => {
    const f = infra.functions[name];
    if (!f) throw new Error(`function ${name} not in the synthesized stack`);
    return { ...f, gb: f.memoryMb / 1024 };
  };
  const perMonth = (target: string) => infra.schedules.find((s) => s.target === target)?.perMonth ?? 0;
  const initMs = (name: string) => cold.functions.find((f) => f.name === name)?.initMsMedian ?? 0;
  const sweepFn = fn('sweep');
  const watchFn = fn('watch-proxy');
  const reconcileFn = fn('reconcile');
  const sweepRuns = perMonth('sweep');
  const watchRuns = perMonth('watch-proxy');
  const watchSeconds = watchFn.timeoutSeconds - infra.watchMarginSeconds;
  const idleSweep = sweep.fleets.find((f) => f.activeReleases === 0 && (f.idleManaged ?? 0) === 0);
  if (!idleSweep) throw new Error('the sweep results have no empty fleet');
  const idleFleet = sweep.fleets.find((f) => (f.idleManaged ?? 0) > 0 && f.resync > 0);
  if (!idleFleet) throw new Error('the sweep results have no fleet of idle managed rollouts (re-run: npm run bench -- --only sweep)');
  const noop = reconcile.noopHealthy;
  const noopResync = reconcile.noopResync;
  if (!noopResync) throw new Error('the reconcile results have no no-op resync (re-run: npm run bench -- --only reconcile)');
  if (noopResync.meter.ddbWcu?.median !== 0 || noopResync.server.k8sWrites?.max !== 0) throw new Error('a no-op resync wrote something: the resync cost below would be wrong');
  const resyncsPerMonth = (HOURS_PER_MONTH * 3600) / infra.resyncPeriodSeconds;
  // The sweep reads each resynced rollout's index entry (KEYS_ONLY, ~100 bytes): its share of the tick's Query.
  const resyncRruEach = Math.max(0, idleFleet.ddbRcuBilled.value - idleSweep.ddbRcuBilled.value) / idleFleet.resync;
  const pollsPerQueue = IDLE_POLLERS_PER_QUEUE * (3600 / LONG_POLL_SECONDS) * HOURS_PER_MONTH;

  const idle = block([
    line('Scheduler invocations (sweep + watch-proxy)', sweepRuns + watchRuns, 'invocations', 'schedulerInvocation', 'infra', `${infra.schedules.map((s) => `${s.target} ${s.expression}`).join(', ')}; ${HOURS_PER_MONTH} h/month`),
    line('sweep: Lambda requests', sweepRuns, 'invocations', 'lambdaRequest', 'infra', 'one per tick'),
    line('sweep: Lambda duration', sweepRuns * (idleSweep.totalMs.median / 1000) * sweepFn.gb, 'GB-s', 'lambdaArmGbSecond', 'measured × infra', `median sweep with nothing due ${idleSweep.totalMs.median} ms × ${sweepFn.memoryMb} MB`),
    line('sweep: DynamoDB reads (queryDue over 8 shards + the resync range)', sweepRuns * idleSweep.ddbRcuBilled.value, 'RRU', 'dynamodbReadRequestUnit', 'measured', `${idleSweep.ddbQueryRequests.value} Query, ${idleSweep.ddbRcuBilled.value} RRU per sweep (billed minimum 0.5 per eventually consistent Query)`),
    line('watch-proxy: Lambda requests', watchRuns, 'invocations', 'lambdaRequest', 'infra', 'one per schedule tick'),
    line('watch-proxy: Lambda duration', watchRuns * watchSeconds * watchFn.gb, 'GB-s', 'lambdaArmGbSecond', 'infra', `each invocation watches until ${infra.watchMarginSeconds} s before its ${watchFn.timeoutSeconds} s timeout, at ${watchFn.memoryMb} MB (overlapping watchers, by design)`),
    line('watch-proxy: DynamoDB reads (catalogue refresh)', watchRuns * (1 + Math.floor(watchSeconds / WATCH_PROXY_REFRESH_SECONDS)) * catalog.emptyRefreshRcu, 'RRU', 'dynamodbReadRequestUnit', 'measured + modelled', `${catalog.emptyRefreshRcu} RRU per refresh (measured), one refresh per ${WATCH_PROXY_REFRESH_SECONDS} s (watch-proxy default)`),
    line('work queue (FIFO): idle long polls of the event source mapping', pollsPerQueue, 'requests', 'sqsFifoRequest', 'modelled', `${IDLE_POLLERS_PER_QUEUE} pollers × one ${LONG_POLL_SECONDS} s ReceiveMessage each`),
    line('trigger queue (standard): idle long polls of the event source mapping', pollsPerQueue, 'requests', 'sqsStandardRequest', 'modelled', `${IDLE_POLLERS_PER_QUEUE} pollers × one ${LONG_POLL_SECONDS} s ReceiveMessage each`),
    line('cold starts (INIT billed): sweep + watch-proxy', COLD_STARTS_PER_DAY * DAYS_PER_MONTH * ((initMs('sweep') / 1000) * sweepFn.gb + (initMs('watch-proxy') / 1000) * watchFn.gb), 'GB-s', 'lambdaArmGbSecond', 'measured + modelled', `${COLD_STARTS_PER_DAY}/day each (assumed) × median module init ${initMs('sweep')} / ${initMs('watch-proxy')} ms`),
  ]);

  const resyncLines = [
    line('resync: its share of the sweep\'s resync Query', resyncsPerMonth * resyncRruEach, 'RRU', 'dynamodbReadRequestUnit', 'measured', `one pass per ${infra.resyncPeriodSeconds} s (ROLLOUTS_RESYNC_PERIOD_SECONDS): ${round(resyncRruEach, 4)} RRU per resynced rollout (${idleFleet.resync} of ${idleFleet.idleManaged} idle rollouts in one tick: ${idleFleet.ddbRcuBilled.value} RRU vs ${idleSweep.ddbRcuBilled.value} with none)`),
    line('resync: work queue (FIFO) send', resyncsPerMonth / 10, 'requests', 'sqsFifoRequest', 'measured', 'the sweep sends 10 keys per SendMessageBatch'),
    line('resync: work queue (FIFO) receive + delete', resyncsPerMonth * 2, 'requests', 'sqsFifoRequest', 'modelled', 'one receive and one delete per message (no batching assumed)'),
    line('resync reconcile: Lambda requests', resyncsPerMonth, 'invocations', 'lambdaRequest', 'modelled', 'one per message (batches of 5 may merge some)'),
    line('resync reconcile: Lambda duration', resyncsPerMonth * (noopResync.wallMs.median / 1000) * reconcileFn.gb, 'GB-s', 'lambdaArmGbSecond', 'measured × infra', `median no-op resync reconcile ${noopResync.wallMs.median} ms × ${reconcileFn.memoryMb} MB`),
    line('resync reconcile: DynamoDB reads', resyncsPerMonth * (noopResync.meter.ddbRcu?.median ?? 0), 'RRU', 'dynamodbReadRequestUnit', 'measured', `${noopResync.meter.ddbRcu?.median} RRU per pass; 0 writes (0 WRU, 0 Kubernetes writes, measured at the servers)`),
  ];
  const perRollout = block([
    ...resyncLines,
    line('resync notice per watch-proxy start: EventBridge event', watchRuns, 'events', 'eventBridgeCustomEvent', 'infra', 'every proxy start replays each managed workload as ADDED → one "Workload Changed" per rollout'),
    line('resync notice: trigger queue send + receive + delete', watchRuns * REQUESTS_PER_MESSAGE, 'requests', 'sqsStandardRequest', 'modelled', 'the rule delivers to the trigger queue; the mapping receives and deletes it'),
    line('resync reconcile: Lambda requests', watchRuns, 'invocations', 'lambdaRequest', 'infra', 'one no-op reconcile per notice'),
    line('resync reconcile: Lambda duration', watchRuns * (noop.wallMs.median / 1000) * reconcileFn.gb, 'GB-s', 'lambdaArmGbSecond', 'measured × infra', `median no-op reconcile ${noop.wallMs.median} ms × ${reconcileFn.memoryMb} MB`),
    line('resync reconcile: DynamoDB reads', watchRuns * (noop.meter.ddbRcu?.median ?? 0), 'RRU', 'dynamodbReadRequestUnit', 'measured', `${noop.meter.ddbRcu?.median} RRU per no-op reconcile; it writes nothing`),
    line('catalogue: SPEC load at each proxy start', watchRuns * catalog.firstLoadRcuPerRollout, 'RRU', 'dynamodbReadRequestUnit', 'measured', `${round(catalog.firstLoadRcuPerRollout, 3)} RRU per rollout per start`),
  ]);

  const size = release.sizes.find((s) => s.replicas === RELEASE_REPLICAS);
  if (!size) throw new Error(`the release results have no ${RELEASE_REPLICAS}-replica run`);
  // The default strategy's release (MinReadySeconds) is the one a user pays for.
  const o = size.ours.find((x) => x.strategy === DEFAULT_DEPLOYMENT_STRATEGY) ?? size.ours[0];
  if (!o) throw new Error(`the release results have no run of ${RELEASE_REPLICAS} replicas`);
  const reconciles = o.reconciles.count;
  const sweepMessages = Math.ceil(o.totalMs.value / 60_000);
  const messages = o.watchNotices + o.reconciles.askedToRunAgain + sweepMessages;
  const extra = Math.max(0, messages - reconciles);
  const putItems = o.dynamodb.server.PutItem ?? 0;
  const requests = o.kubernetes.oursAlone.total + o.dynamodb.reconcileMeter['ddb.read'] + o.dynamodb.reconcileMeter['ddb.write'];
  const lambdaGbS = ((o.reconciles.totalWallMs.value + extra * noop.wallMs.median) / 1000) * reconcileFn.gb;
  const perRelease = block([
    line('reconcile: Lambda requests', messages, 'invocations', 'lambdaRequest', 'measured + modelled', `one per message (batches of 5 may merge some): ${o.watchNotices} watch notices + ${o.reconciles.askedToRunAgain} follow-ups (every pass while pods move asks for a delayed re-run; follow-ups of follow-ups not counted) + ${sweepMessages} sweep message(s); ${reconciles} reconciles ran locally`),
    line('reconcile: Lambda duration', lambdaGbS, 'GB-s', 'lambdaArmGbSecond', 'measured + modelled', `${o.reconciles.totalWallMs.value} ms measured over ${reconciles} reconciles + ${extra} extra no-op passes × ${noop.wallMs.median} ms, at ${reconcileFn.memoryMb} MB`),
    line('DynamoDB reads', o.dynamodb.reconcileMeter['ddb.rcu'] + extra * (noop.meter.ddbRcu?.median ?? 0), 'RRU', 'dynamodbReadRequestUnit', 'measured + modelled', 'meter of the reconciles (+ the extra no-op passes)'),
    line('DynamoDB writes', o.dynamodb.reconcileMeter['ddb.wcu'], 'WRU', 'dynamodbWriteRequestUnit', 'measured', 'meter of the reconciles (STATE, history)'),
    line('DynamoDB due-index writes', 2 * putItems, 'WRU', 'dynamodbWriteRequestUnit', 'modelled', `${putItems} STATE puts × 2 (dueAt changes: index delete + insert; dynalite does not report index writes)`),
    line('trigger queue (standard): watch notices + follow-ups', (o.watchNotices + o.reconciles.askedToRunAgain) * REQUESTS_PER_MESSAGE, 'requests', 'sqsStandardRequest', 'modelled', 'send + receive + delete per message'),
    line('work queue (FIFO): sweep ticks while active', sweepMessages * REQUESTS_PER_MESSAGE, 'requests', 'sqsFifoRequest', 'modelled', 'the release is due every tick while active'),
    line('EventBridge: watch notices + transition events', o.watchNotices + o.transitionEvents, 'events', 'eventBridgeCustomEvent', 'measured', `${o.watchNotices} notices (local mode's ${release.watchTuning.windowMs} ms window; the deployed proxy coalesces over 1 s, so fewer) + ${o.transitionEvents} transitions`),
  ]);
  return {
    pricesRecordedOn: PRICES_RECORDED_ON,
    prices: PRICES,
    freeTiersApplied: false,
    infra,
    catalogUnits: catalog,
    idleStackPerMonth: idle,
    perManagedRolloutIdlePerMonth: perRollout,
    resyncPerManagedRolloutPerMonth: { ...block(resyncLines), resyncsPerMonth: round(resyncsPerMonth, 1), resyncPeriodSeconds: infra.resyncPeriodSeconds },
    perRelease100Replicas: {
      ...perRelease,
      inputs: { reconciles, messages, watchNotices: o.watchNotices, followUps: o.reconciles.askedToRunAgain, sweepMessages, transitionEvents: o.transitionEvents, releaseSeconds: o.totalMs.value / 1000 },
      sensitivity: {
        lambdaUsdWithRoundTrips: round((lambdaGbS + ((requests * ROUND_TRIP_MS) / 1000) * reconcileFn.gb) * PRICES.lambdaArmGbSecond.usd, 8),
        how: `modelled: the Lambda duration line if each of the ${requests} Kubernetes and DynamoDB requests took ${ROUND_TRIP_MS} ms more than on loopback`,
      },
    },
    notIncluded: [
      `${infra.alarms} CloudWatch alarms in infra (list price $0.10 per standard alarm-month, https://aws.amazon.com/cloudwatch/pricing/)`,
      'CloudWatch Logs ingestion and storage, X-Ray traces (tracing is active), DynamoDB storage and PITR backups, data transfer',
      'free tiers (Lambda 1M requests + 400k GB-s, SQS 1M requests, Scheduler 14M invocations per month) would cover most of the idle stack',
    ],
  };
}

function line(what: string, quantity: number, unit: string, price: PriceName, basis: Basis, how: string): CostLine {
  return { what, quantity: round(quantity, 3), unit, price, usd: round(quantity * PRICES[price].usd, 6), basis, how };
}

function block(lines: CostLine[]): CostBlock {
  return { lines, totalUsd: round(lines.reduce((n, l) => n + l.usd, 0), 4) };
}

function rows(r: CostModelResult): TableRow[] {
  const top = (b: CostBlock) => [...b.lines].sort((a, c) => c.usd - a.usd).slice(0, 2).map((l) => `${l.what} $${l.usd.toFixed(4)}`).join('; ');
  return [
    { area: 'cost', metric: 'idle stack, per month (nothing managed)', value: `$${r.idleStackPerMonth.totalUsd.toFixed(2)} (largest: ${top(r.idleStackPerMonth)})`, source: `model; prices of ${r.pricesRecordedOn}` },
    { area: 'cost', metric: 'each managed rollout while idle, per month', value: `$${r.perManagedRolloutIdlePerMonth.totalUsd.toFixed(4)} (largest: ${top(r.perManagedRolloutIdlePerMonth)})`, source: 'model (measured no-op units)' },
    { area: 'cost', metric: `of which the resync (${r.resyncPerManagedRolloutPerMonth.resyncsPerMonth} passes a month, every ${r.resyncPerManagedRolloutPerMonth.resyncPeriodSeconds} s)`, value: `$${r.resyncPerManagedRolloutPerMonth.totalUsd.toFixed(4)} per managed rollout (largest: ${top(r.resyncPerManagedRolloutPerMonth)})`, source: 'model (measured no-op resync units)' },
    { area: 'cost', metric: `one release of a ${RELEASE_REPLICAS}-replica Deployment`, value: `$${r.perRelease100Replicas.totalUsd.toFixed(6)} (largest: ${top(r.perRelease100Replicas)})`, source: 'model (measured release units)' },
  ];
}
