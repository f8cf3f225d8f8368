// One fleet release's cost at list prices: the single release's model (bench/costModel.ts, its
// prices, function sizes and watcher model) times the units a fleet release used in local mode
// (bench/fleetRelease.ts): reconcile passes and transitions from serve's own lines, DynamoDB
// requests and capacity at dynalite's server, each less what the stack does at rest in as long.
import { CHECK_EVERY_MS, IDLE_GRACE_MS } from '../../shared/watch/watcherDemand.ts';
import { block, line, watcherOfRelease, type CostBlock, type CostModelResult } from '../costModel.ts';
import type { FleetReleaseUnits } from './fleetUnits.ts';
import { round } from './stats.ts';

/** Passes run later than asked (deployed: the standard trigger queue, which has per-message delays). */
export const DELAYED_REASONS = new Set(['wake', 'requeue']);
const READ_OPS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);
const WRITE_OPS = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);
const REQUESTS_PER_MESSAGE = 3;

export interface FleetCostInputs {
  cost: CostModelResult;
  /** Median wall time of one reconcile pass while a release moves pods (the release area's, measured). */
  passWallMs: number;
  /** Median module init of the watch-proxy bundle (coldstart area). */
  watchInitMs: number;
  /** How the idle baseline was taken, for the `how` of the measured lines. */
  baseline: string;
}

const sumOps = (m: Record<string, number>, ops: Set<string>) => Object.entries(m).filter(([op]) => ops.has(op)).reduce((n, [, v]) => n + v, 0);

export function fleetReleaseCost(u: FleetReleaseUnits, x: FleetCostInputs): CostBlock {
  const fn = (name: string) => {
    const f = x.cost.infra.functions[name];
    if (!f) throw new Error(`function ${name} not in the cost area's infra`);
    return { memoryMb: f.memoryMb, gb: f.memoryMb / 1024 };
  };
  const reconcileFn = fn('reconcile');
  const watchFn = fn('watch-proxy');
  const passes = u.reconciles.fleet + u.reconciles.member;
  const delayed = Object.entries(u.reconciles.byReason).filter(([r]) => DELAYED_REASONS.has(r)).reduce((n, [, v]) => n + v, 0);
  const putItems = u.dynamodb.requests.PutItem ?? 0;
  const watcher = watcherOfRelease(u.releaseMs, x.cost.infra.watcherSeconds ?? 0);
  const catalog = x.cost.catalogUnits;
  const measured = `measured in the release window, ${x.baseline}`;
  return block([
    line('reconcile: Lambda requests', passes, 'invocations', 'lambdaRequest', 'measured', `${round(u.reconciles.fleet, 1)} fleet passes + ${round(u.reconciles.member, 1)} member passes (${Object.entries(u.reconciles.byReason).map(([r, n]) => `${r} ${round(n, 1)}`).join(', ')}), one invocation each; ${measured}`),
    line('reconcile: Lambda duration', (passes * x.passWallMs / 1000) * reconcileFn.gb, 'GB-s', 'lambdaArmGbSecond', 'measured + modelled', `passes (measured) × ${x.passWallMs} ms, the median pass of a 10-replica release (release area, measured on loopback), at ${reconcileFn.memoryMb} MB`),
    line('DynamoDB reads', sumOps(u.dynamodb.capacity, READ_OPS), 'RRU', 'dynamodbReadRequestUnit', 'measured', `ConsumedCapacity dynalite reported for ${round(sumOps(u.dynamodb.requests, READ_OPS), 1)} read requests (${[...READ_OPS].filter((o) => u.dynamodb.requests[o]).map((o) => `${o} ${round(u.dynamodb.requests[o] ?? 0, 1)}`).join(', ')}); ${measured}`),
    line('DynamoDB writes', sumOps(u.dynamodb.capacity, WRITE_OPS), 'WRU', 'dynamodbWriteRequestUnit', 'measured', `ConsumedCapacity dynalite reported for ${round(sumOps(u.dynamodb.requests, WRITE_OPS), 1)} write requests (${[...WRITE_OPS].filter((o) => u.dynamodb.requests[o]).map((o) => `${o} ${round(u.dynamodb.requests[o] ?? 0, 1)}`).join(', ')}); ${measured}`),
    line('DynamoDB due-index writes', 2 * putItems, 'WRU', 'dynamodbWriteRequestUnit', 'modelled', `${round(putItems, 1)} PutItem × 2 (dueAt changes: index delete + insert; dynalite does not report index writes), as the single release's line`),
    line('work queue (FIFO): passes asked for now', (passes - delayed) * REQUESTS_PER_MESSAGE, 'requests', 'sqsFifoRequest', 'measured + modelled', `${round(passes - delayed, 1)} messages (measured: a pass each; local mode's queue merges a key's pending runs, so a lower bound) × send + receive + delete`),
    line('trigger queue (standard): delayed runs', delayed * REQUESTS_PER_MESSAGE, 'requests', 'sqsStandardRequest', 'measured + modelled', `${round(delayed, 1)} passes of reasons ${[...DELAYED_REASONS].join('/')} (measured) × send + receive + delete`),
    line('EventBridge: transition events', u.events.rollout + u.events.fleet, 'events', 'eventBridgeCustomEvent', 'measured', `${round(u.events.fleet, 1)} fleet + ${round(u.events.rollout, 1)} member transitions, as serve printed them`),
    line('watcher: launches (asynchronous Invoke)', watcher.launches, 'invocations', 'lambdaRequest', 'modelled', `one watcher for the stack (one lease, shared/watch/watcherDemand.ts) for ${round(watcher.seconds, 1)} s: the fleet release's ${round(u.releaseMs / 1000, 1)} s + ${IDLE_GRACE_MS / 1000} s without demand + half a ${CHECK_EVERY_MS / 1000} s check`),
    line('watcher: Lambda duration', watcher.seconds * watchFn.gb + watcher.launches * (x.watchInitMs / 1000) * watchFn.gb, 'GB-s', 'lambdaArmGbSecond', 'measured + modelled', `${round(watcher.seconds, 1)} s at ${watchFn.memoryMb} MB + a cold start per launch (median module init ${x.watchInitMs} ms)`),
    line('watcher lease: demand + claim', delayed + watcher.launches, 'WRU', 'dynamodbWriteRequestUnit', 'measured + modelled', `one UpdateItem per pass asking to run again (${round(delayed, 1)}, measured as the delayed runs) + ${watcher.launches} claim(s)`),
    line('watcher lease: beats (strongly consistent GetItem)', watcher.beats, 'RRU', 'dynamodbReadRequestUnit', 'modelled', `one read per ${CHECK_EVERY_MS / 1000} s check`),
    line('watcher lease: beats (write)', watcher.beats, 'WRU', 'dynamodbWriteRequestUnit', 'modelled', `one write per ${CHECK_EVERY_MS / 1000} s check`),
    line('watcher: catalogue', watcher.launches * catalog.firstRefreshRcu + (watcher.seconds / 30) * catalog.steadyRefreshRcu, 'RRU', 'dynamodbReadRequestUnit', 'measured + modelled', `${catalog.firstRefreshRcu} RRU to load, ${catalog.steadyRefreshRcu} per 30 s refresh (cost area, measured)`),
  ]);
}
