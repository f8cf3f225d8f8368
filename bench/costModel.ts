// Area 6 — monthly cost model at list prices (lib/prices.ts), from the units measured by the other
// areas and the stack's own settings (lib/infra.ts). Every line says whether its quantity is
// measured here, read from infra, or modelled (an assumption, stated in `how`).
import { CHECK_EVERY_MS, IDLE_GRACE_MS, RENEW_BEFORE_MS } from '../shared/watch/watcherDemand.ts';
import { DEFAULT_DEPLOYMENT_STRATEGY } from '../shared/rollout/types.ts';
import { DEFAULT_WINDOW_MS } from '../shared/watch/watchProxy.ts';
import type { Area, BenchContext, TableRow } from './lib/area.ts';
import { measureCatalogUnits, type CatalogUnits } from './lib/catalogUnits.ts';
import { HOURS_PER_MONTH, readInfra, type InfraValues } from './lib/infra.ts';
import { PRICES, PRICES_RECORDED_ON, type Price, type PriceName } from './lib/prices.ts';
import { deployedReactionModel, type DeployedReactionModel } from './lib/reactionModel.ts';
import { round } from './lib/stats.ts';
import type { ColdStartResult } from './coldStart.ts';
import type { PerReconcileResult } from './perReconcile.ts';
import type { ReactionLatencyResult } from './reactionLatency.ts';
import type { ReleaseOverheadResult } from './releaseOverhead.ts';
import type { SweepResult } from './sweepScale.ts';

/** shared/watch/watchProxy.ts: `refreshMs ?? 30_000` (not exported). */
const WATCH_PROXY_REFRESH_SECONDS = 30;
/**
 * Modelled: an idle SQS event source mapping keeps 5 long polls (20 s each) open, and "can optimize
 * to as few as 2 … However, this optimization is not available when you enable the maximum
 * concurrency setting" (https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html).
 */
const IDLE_POLLERS_WITH_MAX_CONCURRENCY = 5;
const IDLE_POLLERS_WITHOUT = 2;
const LONG_POLL_SECONDS = 20;
/** Modelled: a scheduled function's environment is replaced about once an hour (INIT is billed). */
const COLD_STARTS_PER_DAY = 24;
/** Modelled sensitivity: an in-region AWS or EKS API round trip, which loopback does not have. */
const ROUND_TRIP_MS = 10;
/** Each SQS message is sent, received and deleted (one request each, no batching assumed). */
const REQUESTS_PER_MESSAGE = 3;
const RELEASE_REPLICAS = 100;
const DAYS_PER_MONTH = HOURS_PER_MONTH / 24;

export type Basis = 'measured' | 'infra' | 'modelled' | 'measured × infra' | 'measured + modelled';

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
  /** Nothing managed, no release: what the stack costs by being deployed. */
  idleStackPerMonth: CostBlock;
  /** What each managed rollout adds while no release runs: its resync, every resync period. */
  perManagedRolloutIdlePerMonth: CostBlock & { resyncsPerMonth: number; resyncPeriodSeconds: number };
  perRelease100Replicas: CostBlock & { inputs: Record<string, number>; sensitivity: { lambdaUsdWithRoundTrips: number; how: string } };
  /** The deployed reaction while a release moves pods (bench/lib/reactionModel.ts). */
  reactionWhileActive: DeployedReactionModel;
  /** The SQS idle polls, and the other watchProxyMode: what they would cost instead. */
  alternatives: { idlePollsWithoutMaxConcurrencyUsd: number; watchProxyAlwaysPerMonth: CostBlock; how: string[] };
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
  const reaction = ctx.results.reaction as ReactionLatencyResult | undefined;
  if (!reconcile || !release || !sweep || !cold || !reaction) throw new Error('the cost model needs the results of reconcile, reaction, release, sweep and coldstart (run them, or keep them in latest.json)');
  ctx.log('cost: synthesizing the stack for its settings (default, and watchProxyMode always); measuring the catalogue refresh');
  const infra = readInfra();
  const always = readInfra({ watchProxyMode: 'always' });
  const catalog = await measureCatalogUnits();
  const fnOf = (values: InfraValues, name: string) => {
    const f = values.functions[name];
    if (!f) throw new Error(`function ${name} not in the synthesized stack`);
    return { ...f, gb: f.memoryMb / 1024 };
  };
  const fn = (name: string) => fnOf(infra, name);
  const perMonth = (values: InfraValues, target: string) => values.schedules.find((s) => s.target === target)?.perMonth ?? 0;
  const initMs = (name: string) => cold.functions.find((f) => f.name === name)?.initMsMedian ?? 0;
  const sweepFn = fn('sweep');
  const reconcileFn = fn('reconcile');
  const sweepRuns = perMonth(infra, 'sweep');
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
  const pollsPerMonth = (pollers: number) => pollers * (3600 / LONG_POLL_SECONDS) * HOURS_PER_MONTH;
  const idlePollers = (maxConcurrency: number | null) => (maxConcurrency === null ? IDLE_POLLERS_WITHOUT : IDLE_POLLERS_WITH_MAX_CONCURRENCY);
  const pollLines = infra.eventSources.map((es) => {
    const fifo = es.queue.toLowerCase().includes('work');
    const pollers = idlePollers(es.maxConcurrency);
    return line(`${fifo ? 'work queue (FIFO)' : 'trigger queue (standard)'}: idle long polls of the event source mapping`, pollsPerMonth(pollers), 'requests', fifo ? 'sqsFifoRequest' : 'sqsStandardRequest', 'modelled',
      `${pollers} pollers (MaximumConcurrency ${es.maxConcurrency ?? 'unset'}) × one ${LONG_POLL_SECONDS} s ReceiveMessage each; batching window ${es.batchingWindowSeconds ?? 0} s`);
  });
  if (pollLines.length !== 2) throw new Error(`expected the work and trigger queues' event source mappings, found ${pollLines.length}`);

  const idle = block([
    line('Scheduler invocations', infra.schedules.reduce((n, s) => n + s.perMonth, 0), 'invocations', 'schedulerInvocation', 'infra', `${infra.schedules.map((s) => `${s.target} ${s.expression}`).join(', ')}; ${HOURS_PER_MONTH} h/month`),
    line('sweep: Lambda requests', sweepRuns, 'invocations', 'lambdaRequest', 'infra', 'one per tick'),
    line('sweep: Lambda duration', sweepRuns * (idleSweep.totalMs.median / 1000) * sweepFn.gb, 'GB-s', 'lambdaArmGbSecond', 'measured × infra', `median sweep with nothing due ${idleSweep.totalMs.median} ms × ${sweepFn.memoryMb} MB`),
    line('sweep: DynamoDB reads (queryDue over 8 shards + the resync range)', sweepRuns * idleSweep.ddbRcuBilled.value, 'RRU', 'dynamodbReadRequestUnit', 'measured', `${idleSweep.ddbQueryRequests.value} Query, ${idleSweep.ddbRcuBilled.value} RRU per sweep (billed minimum 0.5 per eventually consistent Query)`),
    line('sweep: cold starts (INIT billed)', COLD_STARTS_PER_DAY * DAYS_PER_MONTH * (initMs('sweep') / 1000) * sweepFn.gb, 'GB-s', 'lambdaArmGbSecond', 'measured + modelled', `${COLD_STARTS_PER_DAY}/day (assumed) × median module init ${initMs('sweep')} ms`),
    line('watch-proxy', 0, 'invocations', 'lambdaRequest', 'infra', `watchProxyMode ${infra.watchProxyMode}: no watcher runs while no release moves pods (shared/watch/watcherDemand.ts); see the per-release lines`),
    ...pollLines,
  ]);

  const perRollout = block([
    line('resync: its share of the sweep\'s resync Query', resyncsPerMonth * resyncRruEach, 'RRU', 'dynamodbReadRequestUnit', 'measured', `one pass per ${infra.resyncPeriodSeconds} s (ROLLOUTS_RESYNC_PERIOD_SECONDS): ${round(resyncRruEach, 4)} RRU per resynced rollout (${idleFleet.resync} of ${idleFleet.idleManaged} idle rollouts in one tick: ${idleFleet.ddbRcuBilled.value} RRU vs ${idleSweep.ddbRcuBilled.value} with none)`),
    line('resync: work queue (FIFO) send', resyncsPerMonth / 10, 'requests', 'sqsFifoRequest', 'measured', 'the sweep sends 10 keys per SendMessageBatch'),
    line('resync: work queue (FIFO) receive + delete', resyncsPerMonth * 2, 'requests', 'sqsFifoRequest', 'modelled', 'one receive and one delete per message (no batching assumed)'),
    line('resync reconcile: Lambda requests', resyncsPerMonth, 'invocations', 'lambdaRequest', 'modelled', 'one per message (batches of 5 may merge some)'),
    line('resync reconcile: Lambda duration', resyncsPerMonth * (noopResync.wallMs.median / 1000) * reconcileFn.gb, 'GB-s', 'lambdaArmGbSecond', 'measured × infra', `median no-op resync reconcile ${noopResync.wallMs.median} ms × ${reconcileFn.memoryMb} MB`),
    line('resync reconcile: DynamoDB reads', resyncsPerMonth * (noopResync.meter.ddbRcu?.median ?? 0), 'RRU', 'dynamodbReadRequestUnit', 'measured', `${noopResync.meter.ddbRcu?.median} RRU per pass; 0 writes (0 WRU, 0 Kubernetes writes, measured at the servers)`),
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
  const watcher = watcherOfRelease(o.totalMs.value, infra.watcherSeconds ?? 0);
  const watchFn = fn('watch-proxy');
  const perRelease = block([
    line('reconcile: Lambda requests', messages, 'invocations', 'lambdaRequest', 'measured + modelled', `one per message (batches of 5 may merge some): ${o.watchNotices} watch notices + ${o.reconciles.askedToRunAgain} follow-ups (every pass while pods move asks for a delayed re-run; follow-ups of follow-ups not counted) + ${sweepMessages} sweep message(s); ${reconciles} reconciles ran locally`),
    line('reconcile: Lambda duration', lambdaGbS, 'GB-s', 'lambdaArmGbSecond', 'measured + modelled', `${o.reconciles.totalWallMs.value} ms measured over ${reconciles} reconciles + ${extra} extra no-op passes × ${noop.wallMs.median} ms, at ${reconcileFn.memoryMb} MB`),
    line('DynamoDB reads', o.dynamodb.reconcileMeter['ddb.rcu'] + extra * (noop.meter.ddbRcu?.median ?? 0), 'RRU', 'dynamodbReadRequestUnit', 'measured + modelled', 'meter of the reconciles (+ the extra no-op passes)'),
    line('DynamoDB writes', o.dynamodb.reconcileMeter['ddb.wcu'], 'WRU', 'dynamodbWriteRequestUnit', 'measured', 'meter of the reconciles (STATE, history)'),
    line('DynamoDB due-index writes', 2 * putItems, 'WRU', 'dynamodbWriteRequestUnit', 'modelled', `${putItems} STATE puts × 2 (dueAt changes: index delete + insert; dynalite does not report index writes)`),
    line('trigger queue (standard): follow-ups', o.reconciles.askedToRunAgain * REQUESTS_PER_MESSAGE, 'requests', 'sqsStandardRequest', 'modelled', 'send + receive + delete per message'),
    line('work queue (FIFO): watch notices', o.watchNotices * REQUESTS_PER_MESSAGE, 'requests', 'sqsFifoRequest', 'measured + modelled', `${o.watchNotices} notices (the ${release.watchTuning.windowMs} ms window local mode and the deployed watch-proxy share, DEFAULT_WINDOW_MS ${DEFAULT_WINDOW_MS} ms) sent straight to the work queue (shared/watch/queueSink.ts); send + receive + delete per message, sends not batched (a release's notices rarely share a window)`),
    line('work queue (FIFO): sweep ticks while active', sweepMessages * REQUESTS_PER_MESSAGE, 'requests', 'sqsFifoRequest', 'modelled', 'the release is due every tick while active'),
    line('EventBridge: transition events', o.transitionEvents, 'events', 'eventBridgeCustomEvent', 'measured', `${o.transitionEvents} transitions (watch notices no longer go through the bus)`),
    line('watcher: launches (asynchronous Invoke)', watcher.launches, 'invocations', 'lambdaRequest', 'modelled', `one watcher for ${round(watcher.seconds, 1)} s: the release's ${round(o.totalMs.value / 1000, 1)} s + ${IDLE_GRACE_MS / 1000} s without demand + half a ${CHECK_EVERY_MS / 1000} s check (shared/watch/watcherDemand.ts); successors every ${infra.watcherSeconds} s − ${RENEW_BEFORE_MS / 1000} s overlap`),
    line('watcher: Lambda duration', watcher.seconds * watchFn.gb + watcher.launches * (initMs('watch-proxy') / 1000) * watchFn.gb, 'GB-s', 'lambdaArmGbSecond', 'measured + modelled', `${round(watcher.seconds, 1)} s at ${watchFn.memoryMb} MB + a cold start per launch (median module init ${initMs('watch-proxy')} ms)`),
    line('watcher lease: demand (one UpdateItem per pass that asks to run again) + claim', o.reconciles.askedToRunAgain + watcher.launches, 'WRU', 'dynamodbWriteRequestUnit', 'measured + modelled', `${o.reconciles.askedToRunAgain} passes asked to run again (measured) + ${watcher.launches} claim(s); one small item (shared/adapters/dynamodb/watcherLease.ts)`),
    line('watcher lease: beats (strongly consistent GetItem)', watcher.beats, 'RRU', 'dynamodbReadRequestUnit', 'modelled', `one read per ${CHECK_EVERY_MS / 1000} s check`),
    line('watcher lease: beats (heartbeat or release UpdateItem)', watcher.beats, 'WRU', 'dynamodbWriteRequestUnit', 'modelled', `one write per ${CHECK_EVERY_MS / 1000} s check`),
    line('watcher: catalogue (first load, then a refresh every 30 s)', watcher.launches * catalog.firstRefreshRcu + (watcher.seconds / WATCH_PROXY_REFRESH_SECONDS) * catalog.steadyRefreshRcu, 'RRU', 'dynamodbReadRequestUnit', 'measured + modelled', `${catalog.firstRefreshRcu} RRU to load and ${catalog.steadyRefreshRcu} RRU per refresh with ${catalog.rollouts} managed rollouts (measured); one refresh per ${WATCH_PROXY_REFRESH_SECONDS} s`),
  ]);

  const alwaysWatch = fnOf(always, 'watch-proxy');
  const alwaysRuns = perMonth(always, 'watch-proxy');
  const alwaysSeconds = alwaysWatch.timeoutSeconds - always.watchMarginSeconds;
  const watchProxyAlways = block([
    line('Scheduler invocations (watch-proxy)', alwaysRuns, 'invocations', 'schedulerInvocation', 'infra', always.schedules.filter((s) => s.target === 'watch-proxy').map((s) => s.expression).join(', ')),
    line('watch-proxy: Lambda requests', alwaysRuns, 'invocations', 'lambdaRequest', 'infra', 'one per schedule tick'),
    line('watch-proxy: Lambda duration', alwaysRuns * alwaysSeconds * alwaysWatch.gb, 'GB-s', 'lambdaArmGbSecond', 'infra', `each invocation watches until ${always.watchMarginSeconds} s before its ${alwaysWatch.timeoutSeconds} s timeout, at ${alwaysWatch.memoryMb} MB (overlapping watchers, by design)`),
    line('watch-proxy: DynamoDB reads (catalogue refresh)', alwaysRuns * (1 + Math.floor(alwaysSeconds / WATCH_PROXY_REFRESH_SECONDS)) * catalog.emptyRefreshRcu, 'RRU', 'dynamodbReadRequestUnit', 'measured + modelled', `${catalog.emptyRefreshRcu} RRU per refresh (measured), one refresh per ${WATCH_PROXY_REFRESH_SECONDS} s`),
  ]);
  const noMaxConcurrency = round(infra.eventSources.reduce((n, es) => n + pollsPerMonth(IDLE_POLLERS_WITHOUT) * PRICES[es.queue.toLowerCase().includes('work') ? 'sqsFifoRequest' : 'sqsStandardRequest'].usd, 0), 4);

  return {
    pricesRecordedOn: PRICES_RECORDED_ON,
    prices: PRICES,
    freeTiersApplied: false,
    infra,
    catalogUnits: catalog,
    idleStackPerMonth: idle,
    perManagedRolloutIdlePerMonth: { ...perRollout, resyncsPerMonth: round(resyncsPerMonth, 1), resyncPeriodSeconds: infra.resyncPeriodSeconds },
    perRelease100Replicas: {
      ...perRelease,
      inputs: { reconciles, messages, watchNotices: o.watchNotices, followUps: o.reconciles.askedToRunAgain, sweepMessages, transitionEvents: o.transitionEvents, releaseSeconds: o.totalMs.value / 1000, watcherSeconds: round(watcher.seconds, 1), watcherBeats: watcher.beats },
      sensitivity: {
        lambdaUsdWithRoundTrips: round((lambdaGbS + ((requests * ROUND_TRIP_MS) / 1000) * reconcileFn.gb) * PRICES.lambdaArmGbSecond.usd, 8),
        how: `modelled: the reconcile duration line if each of the ${requests} Kubernetes and DynamoDB requests took ${ROUND_TRIP_MS} ms more than on loopback`,
      },
    },
    reactionWhileActive: deployedReactionModel(reaction, reconcile),
    alternatives: {
      idlePollsWithoutMaxConcurrencyUsd: noMaxConcurrency,
      watchProxyAlwaysPerMonth: watchProxyAlways,
      how: [
        `SQS idle polls: kept at ${IDLE_POLLERS_WITH_MAX_CONCURRENCY} pollers per queue because each event source mapping sets MaximumConcurrency (reconcileConcurrency), which bounds the load on clusters and DynamoDB; without it Lambda may poll an idle queue with ${IDLE_POLLERS_WITHOUT} pollers ($${noMaxConcurrency}/month for both) but a burst could then take every concurrent execution of the account. A batching window would not save idle polls (the pollers long-poll either way), is not supported on FIFO queues, and would delay each reaction by up to its length.`,
        `watchProxyMode always: watchers on a ${always.schedules.find((s) => s.target === 'watch-proxy')?.expression ?? '?'} schedule add $${watchProxyAlways.totalUsd.toFixed(2)}/month to the idle stack, and each start replays every managed workload (one notice and one no-op reconcile per rollout).`,
      ],
    },
    notIncluded: [
      `${infra.alarms} CloudWatch alarms in infra (list price $0.10 per standard alarm-month: $${(infra.alarms * 0.1).toFixed(2)}/month, https://aws.amazon.com/cloudwatch/pricing/)`,
      'CloudWatch Logs ingestion and storage (every invocation logs a few lines; the sweep alone ~43,800 invocations a month), X-Ray traces (tracing is active), DynamoDB storage and PITR backups, data transfer',
      'the reconcile\'s cold starts: a pass after the container was reclaimed pays its module init (measured in the coldstart area) once',
      'free tiers (Lambda 1M requests + 400k GB-s, SQS 1M requests, Scheduler 14M invocations per month) would cover most of the idle stack',
    ],
  };
}

/** How long the on-demand watcher of one release runs, in how many launches, with how many lease checks. */
export function watcherOfRelease(releaseMs: number, watcherSeconds: number): { seconds: number; launches: number; beats: number } {
  const seconds = (releaseMs + IDLE_GRACE_MS + CHECK_EVERY_MS / 2) / 1000;
  const each = Math.max(1, watcherSeconds - RENEW_BEFORE_MS / 1000);
  const launches = watcherSeconds > 0 ? Math.max(1, Math.ceil((seconds - RENEW_BEFORE_MS / 1000) / each)) : 0;
  return { seconds: watcherSeconds > 0 ? seconds + (launches - 1) * (RENEW_BEFORE_MS / 1000) : 0, launches, beats: watcherSeconds > 0 ? Math.ceil(seconds / (CHECK_EVERY_MS / 1000)) : 0 };
}

export function line(what: string, quantity: number, unit: string, price: PriceName, basis: Basis, how: string): CostLine {
  return { what, quantity: round(quantity, 3), unit, price, usd: round(quantity * PRICES[price].usd, 6), basis, how };
}

export function block(lines: CostLine[]): CostBlock {
  return { lines, totalUsd: round(lines.reduce((n, l) => n + l.usd, 0), 4) };
}

function rows(r: CostModelResult): TableRow[] {
  const top = (b: CostBlock) => [...b.lines].sort((a, c) => c.usd - a.usd).slice(0, 2).map((l) => `${l.what} $${l.usd.toFixed(4)}`).join('; ');
  const perRollout = r.perManagedRolloutIdlePerMonth;
  const reaction = r.reactionWhileActive;
  return [
    { area: 'cost', metric: 'idle stack, per month (nothing managed; alarms and logs not included)', value: `$${r.idleStackPerMonth.totalUsd.toFixed(2)} (largest: ${top(r.idleStackPerMonth)})`, source: `model; prices of ${r.pricesRecordedOn}` },
    { area: 'cost', metric: `each managed rollout while idle, per month (its resync: ${perRollout.resyncsPerMonth} passes, every ${perRollout.resyncPeriodSeconds} s)`, value: `$${perRollout.totalUsd.toFixed(4)} (largest: ${top(perRollout)})`, source: 'model (measured no-op resync units)' },
    { area: 'cost', metric: `one release of a ${RELEASE_REPLICAS}-replica Deployment (its on-demand watcher included)`, value: `$${r.perRelease100Replicas.totalUsd.toFixed(6)} (largest: ${top(r.perRelease100Replicas)})`, source: 'model (measured release units)' },
    { area: 'cost', metric: 'not in the idle figure', value: r.notIncluded[0] ?? '', source: 'infra' },
    { area: 'cost', metric: `reaction while a release moves pods, deployed shape: modelled p95 (goal ≤ ${reaction.goalMs} ms)`, value: `${reaction.p95Ms} ms (${reaction.parts.map((p) => `${p.what} ${round(p.ms, 1)}`).join(' + ')})`, source: 'model (measured parts + stated AWS hops)' },
  ];
}
