// One level-triggered pass for one rollout key: load → (flush outbox) → observe → plan → apply →
// persist (conditional on the version read) → flush outbox. Safe to run twice, concurrently, or
// after a crash at any line: cluster writes are desired-state patches guarded by resourceVersion,
// and the STATE write is conditional, so a loser changes nothing and simply runs again.
import { isDeepStrictEqual } from 'node:util';
import { ConflictError, NotFoundError } from '../errors.ts';
import { plan } from '../rollout/plan.ts';
import type { Phase, RolloutKey, WorkloadKind } from '../rollout/types.ts';
import type { Observation, WorkloadDriver } from '../workloads/driver.ts';
import { historyEntries } from './history.ts';
import { Meter, type MeterKey } from './meter.ts';
import { recordUnreachable } from './unreachable.ts';
import type { Clock, ClusterClient, ClusterProvider, EventPublisher, Outbox, StateStore } from './ports.ts';

export type Trigger = 'sweep' | 'watch' | 'api' | 'requeue' | 'test';

export interface ReconcileDeps {
  store: StateStore;
  clusters: ClusterProvider;
  drivers: Partial<Record<WorkloadKind, WorkloadDriver>>;
  events: EventPublisher;
  clock: Clock;
  /** Counts requests of this pass; the adapters must have been built with the same meter. */
  meter?: Meter;
  /**
   * Test hook: called (and awaited) at each crash point: 'observed', 'wrote:<i>', 'before-persist',
   * 'after-persist'. Throwing simulates the process dying there; awaiting lets a test act as a
   * concurrent writer at exactly that moment (bump a resourceVersion, record a command).
   */
  crashPoint?: (point: string) => void | Promise<void>;
}

export type ReconcileOutcome = 'noop' | 'progressed' | 'conflict' | 'missing' | 'removed';

export interface ReconcileResult {
  outcome: ReconcileOutcome;
  phase: Phase | null;
  /** Run again after this many seconds (pods moving, or a lost race); null = wait for events/wake-up. */
  requeueSeconds: number | null;
  wakeAt: string | null;
  /** The wake-up the stored STATE had before this pass (what `wakeAt` may replace). */
  previousWakeAt: string | null;
  writes: number;
  counts: Record<MeterKey, number>;
}

const EMPTY_OUTBOX: Outbox = { history: [], events: [] };
/** After a lost race (409 / stale version), look again almost at once. */
const RETRY_SECONDS = 1;
/**
 * After a pass that wrote to the cluster and asked for nothing sooner: look at what the write did.
 * A native controller sees its own writes come back as watch events; we must not depend on that
 * (a watch may be down, or not yet know a rollout just applied), so the pass that changed the pod
 * template for a `release` command is followed by the pass that starts the release.
 */
const AFTER_WRITE_SECONDS = 1;

export async function reconcile(key: RolloutKey, _trigger: Trigger, deps: ReconcileDeps): Promise<ReconcileResult> {
  const meter = deps.meter ?? new Meter();
  const before = meter.snapshot();
  const result = (outcome: ReconcileOutcome, extra: Partial<ReconcileResult> = {}): ReconcileResult => ({
    outcome, phase: null, requeueSeconds: null, wakeAt: null, previousWakeAt: loadedWake, writes: 0, ...extra, counts: diff(meter.snapshot(), before),
  });
  const crash = deps.crashPoint ?? (() => {});

  const loaded = await deps.store.load(key);
  const loadedWake = loaded.state.state.nextWakeAt;
  if (!loaded.spec) {
    // SPEC goes first when a rollout is deleted; STATE left behind means the delete died half-way.
    // Finish it, or the sweep would find the leftover due item on every tick.
    if (loaded.state.version > 0) {
      await deps.store.deleteRollout(key);
      return result('removed');
    }
    return result('missing');
  }
  const spec = loaded.spec.spec;
  let { state, version } = loaded.state;
  const pendingOutbox = loaded.state.outbox.history.length > 0 || loaded.state.outbox.events.length > 0;
  if (pendingOutbox) {
    // A previous pass persisted a transition and died before its side effects went out.
    const flushed = await flushOutbox(deps, key, state, loaded.state.outbox, version);
    // Someone wrote STATE since we loaded it (a command, another pass): what we read is stale, and
    // planning from it with the newer version would overwrite their write. Start again instead.
    if (flushed === null) return result('conflict', { requeueSeconds: RETRY_SECONDS });
    version = flushed;
  }

  const driver = deps.drivers[spec.workloadRef.kind];
  if (!driver) throw new NotFoundError(`no driver for workload kind ${spec.workloadRef.kind}`);
  let cluster: ClusterClient;
  let observation: Observation;
  try {
    cluster = await deps.clusters.client(spec.cluster);
    observation = await driver.observe(cluster, spec.namespace, spec.workloadRef, deps.clock.now());
  } catch (err) {
    // The reason says so (unreachable.ts); the error still fails the pass, which is retried as before.
    await recordUnreachable(deps, key, spec, state, version, err);
    throw err;
  }
  await crash('observed');

  const view = driver.view(observation);
  const planned = plan(spec, state, view, deps.clock.now());
  const writes = driver.writes(observation, planned.actions, view);
  for (const [i, write] of writes.entries()) {
    try {
      await cluster.write(write);
    } catch (err) {
      // Someone else changed the object since we observed it: our plan may be stale. Persist nothing;
      // the next pass observes again and re-derives the same transition (level-based).
      if (err instanceof ConflictError) return result('conflict', { requeueSeconds: RETRY_SECONDS, writes: i });
      throw err;
    }
    await crash(`wrote:${i}`);
  }

  const changed = !isDeepStrictEqual(planned.nextState, state) || planned.events.length > 0;
  if (changed) {
    await crash('before-persist');
    const history = historyEntries(planned.events, version + 1);
    const outbox: Outbox = { history, events: planned.events };
    try {
      version = await deps.store.saveState(key, { state: planned.nextState, outbox }, version);
    } catch (err) {
      if (err instanceof ConflictError) return result('conflict', { requeueSeconds: RETRY_SECONDS, writes: writes.length });
      throw err;
    }
    await crash('after-persist');
    state = planned.nextState;
    await flushOutbox(deps, key, state, outbox, version);
  }
  if (planned.removed) {
    await deps.store.deleteRollout(key);
    return result('removed', { writes: writes.length });
  }
  return result(changed || writes.length > 0 || pendingOutbox ? 'progressed' : 'noop', {
    phase: planned.nextState.phase,
    requeueSeconds: planned.requeueSeconds ?? (writes.length > 0 ? AFTER_WRITE_SECONDS : null),
    wakeAt: planned.wakeAt,
    writes: writes.length,
  });
}

/**
 * Write the history items, publish the events, then clear the outbox. Returns the new STATE version,
 * or null when someone else wrote STATE first (their item keeps the outbox or has moved on; either
 * way the items and events just sent are idempotent, and the next pass sees the current STATE).
 */
export async function flushOutbox(deps: ReconcileDeps, key: RolloutKey, state: Parameters<StateStore['saveState']>[1]['state'], outbox: Outbox, version: number): Promise<number | null> {
  await deps.store.putHistory(key, outbox.history);
  if (outbox.events.length > 0) await deps.events.publish(outbox.events);
  try {
    return await deps.store.saveState(key, { state, outbox: EMPTY_OUTBOX }, version);
  } catch (err) {
    if (err instanceof ConflictError) return null;
    throw err;
  }
}

function diff(after: Record<MeterKey, number>, before: Record<MeterKey, number>): Record<MeterKey, number> {
  const out = { ...after };
  for (const k of Object.keys(out) as MeterKey[]) out[k] = after[k] - before[k];
  return out;
}
