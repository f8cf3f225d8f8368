// One level-triggered pass for one rollout key: load → (flush outbox) → observe → plan → apply →
// persist (conditional on the version read) → flush outbox. Safe to run twice, concurrently, or
// after a crash at any line: cluster writes are desired-state patches guarded by resourceVersion,
// and the STATE write is conditional, so a loser changes nothing and simply runs again.
// Failures are told apart by their own `recovery` (shared/errors.ts): a transient one (the apiserver
// or DynamoDB still failing after the adapters' retries) leaves STATE untouched and asks to run
// again; a terminal one (no driver, a permission the identity lacks, a write the apiserver refuses)
// makes the rollout Degraded with the reason in this very pass, and nothing asks for it again until
// something changes (the resync still looks); and a template change the apiserver refuses fails the
// release request that asked for it. What the pass asks of the queue afterwards is runAgain.ts's.
import { isDeepStrictEqual } from 'node:util';
import { ConflictError, NotFoundError, TerminalError, TransientError, ValidationError, recoveryOf } from '../errors.ts';
import type { KubeWrite } from '../kube/types.ts';
import { plan, planDegraded } from '../rollout/plan.ts';
import type { Action, Command, Phase, PlanResult, ReleaseState, RolloutKey, RolloutSpec, WorkloadView } from '../rollout/types.ts';
import { TEMPLATE_CHANGE_REASON, type Observation, type WorkloadDriver } from '../workloads/driver.ts';
import { canaryOwner, observeTraffic, splitActions, trafficView, trafficWrites, type TrafficObservation } from './traffic.ts';
import { historyEntries } from './history.ts';
import { Meter, type MeterKey } from '../meter.ts';
import { recordUnreachable } from './unreachable.ts';
import type { ClusterClient, Outbox, StoredState } from '../ports.ts';
import type { ReconcileDeps } from './deps.ts';
import { flushOutbox } from './outbox.ts';
import { makeCalls } from './calls.ts';
import { saveStateKeepingCommands } from './saveState.ts';
import { checkStoredSpec } from './storedSpec.ts';
import { REQUEUE_SECONDS } from './runAgain.ts';
import { notifyFleet } from './fleet/notify.ts';
import { finishLeaving } from './clusterLeave.ts';

/**
 * `retry`: a transient fault outlasted the adapters' retries; nothing was persisted, run again
 * after `requeueSeconds`. `degraded`: a terminal fault; the rollout now says Degraded with the reason.
 */
export type ReconcileOutcome = 'noop' | 'progressed' | 'conflict' | 'missing' | 'removed' | 'retry' | 'degraded';

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
  /** retry/degraded: the failure's message. */
  error?: string;
}

const EMPTY_OUTBOX: Outbox = { history: [], events: [] };

/** What the pass knew when it failed: enough to record a terminal failure on the STATE it read. */
interface PassProgress {
  state: ReleaseState | null;
  version: number;
  loadedWake: string | null;
}

type Result = (outcome: ReconcileOutcome, extra?: Partial<ReconcileResult>) => ReconcileResult;

export async function reconcile(key: RolloutKey, deps: ReconcileDeps): Promise<ReconcileResult> {
  const meter = deps.meter ?? new Meter();
  const before = meter.snapshot();
  const progress: PassProgress = { state: null, version: 0, loadedWake: null };
  const result: Result = (outcome, extra = {}) => ({
    outcome, phase: null, requeueSeconds: null, wakeAt: null, previousWakeAt: progress.loadedWake, writes: 0, ...extra, counts: diff(meter.snapshot(), before),
  });
  try {
    return await pass(key, deps, progress, result);
  } catch (err) {
    const recovery = recoveryOf(err);
    if (recovery === 'transient') {
      const hint = (err instanceof TransientError ? err.retryAfterSeconds : null) ?? REQUEUE_SECONDS.transient;
      return result('retry', { requeueSeconds: Math.min(REQUEUE_SECONDS.maxTransient, Math.max(1, hint)), error: (err as Error).message });
    }
    // A ConfigError is terminal too: a registration that cannot work as configured (no token, a
    // token secret marked for deletion); Degraded names it, and the resync looks again once fixed.
    if (recovery === 'terminal' && progress.state !== null) return degrade(key, deps, progress, result, (err as Error).message);
    throw err;
  }
}

/** Record the terminal failure as Degraded (one conditional write), and ask for nothing more. */
async function degrade(key: RolloutKey, deps: ReconcileDeps, progress: PassProgress, result: Result, reason: string): Promise<ReconcileResult> {
  const planned = planDegraded(key, progress.state as ReleaseState, deps.clock.now(), reason);
  if (planned === null) return result('degraded', { phase: 'Degraded', error: reason, wakeAt: progress.loadedWake });
  const outbox: Outbox = { history: historyEntries(planned.events, progress.version + 1), events: planned.events };
  let version: number;
  try {
    version = await deps.store.saveState(key, { state: planned.nextState, outbox }, progress.version);
  } catch (err) {
    if (err instanceof ConflictError) return result('conflict', { requeueSeconds: REQUEUE_SECONDS.lostRace });
    if (recoveryOf(err) === 'transient') return result('retry', { requeueSeconds: REQUEUE_SECONDS.transient, error: (err as Error).message });
    throw err;
  }
  await flushOutbox(deps, key, planned.nextState, outbox, version);
  return result('degraded', { phase: 'Degraded', error: reason, wakeAt: planned.nextState.nextWakeAt });
}

async function pass(key: RolloutKey, deps: ReconcileDeps, progress: PassProgress, result: Result): Promise<ReconcileResult> {
  const crash = deps.crashPoint ?? (() => {});

  const loaded = await deps.store.load(key);
  progress.loadedWake = loaded.state.state.nextWakeAt;
  if (!loaded.spec) {
    // SPEC goes first when a rollout is deleted; STATE left behind means the delete died half-way.
    // Finish it, or the sweep would find the leftover due item on every tick.
    if (loaded.state.version > 0) {
      await deps.store.deleteRollout(key);
      await finishLeaving(deps, key.cluster);
      return result('removed');
    }
    return result('missing');
  }
  let { state, version } = loaded.state;
  progress.state = state;
  progress.version = version;
  const spec = checkStoredSpec(loaded.spec.spec);
  const pendingOutbox = loaded.state.outbox.history.length > 0 || loaded.state.outbox.events.length > 0;
  if (pendingOutbox) {
    // A previous pass persisted a transition and died before its side effects went out.
    const flushed = await flushOutbox(deps, key, state, loaded.state.outbox, version);
    // Another pass wrote STATE since we loaded it: what we read is stale, and planning from it with
    // the newer version would overwrite their write. Start again instead.
    if (flushed === null) return result('conflict', { requeueSeconds: REQUEUE_SECONDS.lostRace });
    ({ state, version } = flushed);
    progress.state = state;
    progress.version = version;
  }

  const driver = deps.drivers[spec.workloadRef.kind];
  if (!driver) throw new TerminalError(`no driver for workload kind ${spec.workloadRef.kind} in this version of serverless-rollouts`);
  let cluster: ClusterClient;
  let observation: Observation;
  let traffic: TrafficObservation | null;
  try {
    cluster = await deps.clusters.client(spec.cluster).catch((err: unknown) => {
      // An unregistered cluster (or one registered without a way in) stays so until someone registers it.
      throw err instanceof NotFoundError ? new TerminalError(err.message, { cause: err }) : err;
    });
    observation = await driver.observe(cluster, spec.namespace, spec.workloadRef, deps.clock.now(), { pods: podLevel(spec) });
    traffic = await observeTraffic(cluster, spec);
  } catch (err) {
    // The reason says so (unreachable.ts); the error still fails the pass: retried, or Degraded when terminal.
    if (recoveryOf(err) !== 'terminal') await recordUnreachable(deps, key, spec, state, version, err);
    throw err;
  }
  await crash('observed');

  let view = driver.view(observation);
  // Pod hooks and the per-pod update timeout look at pods one by one.
  if (podLevel(spec)) view = { ...view, pods: driver.podViews(observation) };
  // Traffic routing reads the router and the Services (traffic.ts).
  const label = driver.revisionLabel ?? null;
  if (traffic) view = { ...view, traffic: trafficView(spec, traffic, driver.revisionMembers(observation), label) };
  let planned: PlanResult = plan(spec, state, view, deps.clock.now());
  let writes = passWrites(driver, observation, view, traffic, planned, label);
  let refusedAt: number | null = null;
  for (const [i, write] of writes.entries()) {
    try {
      await cluster.write(write);
    } catch (err) {
      // Someone else changed the object since we observed it: our plan may be stale. Persist nothing;
      // the next pass observes again and re-derives the same transition (level-based). A refused
      // precondition (shared/kube/types.ts) says the same.
      if (err instanceof ConflictError || (write.verb === 'patch' && write.precondition === true && err instanceof ValidationError)) {
        return result('conflict', { requeueSeconds: REQUEUE_SECONDS.lostRace, writes: i });
      }
      const refused = refusedCommand(err, write, writes.slice(0, i), planned.nextState, state);
      if (refused === null) throw err;
      // The apiserver will never take this template: the release request fails with its reason and
      // is consumed. What this pass planned without it is persisted; its remaining moves are left to
      // the next pass, which observes again (the writes before this one were sent, none after).
      planned = plan(spec, state, view, deps.clock.now(), withRefusal(state.commands, refused.id, refused.reason));
      refusedAt = i;
      break;
    }
    await crash(`wrote:${i}`);
  }
  if (refusedAt !== null) {
    writes = writes.slice(0, refusedAt);
    planned = { ...planned, requeueSeconds: REQUEUE_SECONDS.lostRace };
  }

  const changed = !isDeepStrictEqual(planned.nextState, state) || planned.events.length > 0;
  if (changed) {
    await crash('before-persist');
    const history = historyEntries(planned.events, version + 1);
    const outbox: Outbox = { history, events: planned.events };
    try {
      // Commands the API recorded meanwhile are kept for the next pass, not a reason to start over.
      ({ state, version } = await saveStateKeepingCommands(deps.store, key, { state: planned.nextState, outbox }, { state, version, outbox: EMPTY_OUTBOX }));
    } catch (err) {
      if (err instanceof ConflictError) return result('conflict', { requeueSeconds: REQUEUE_SECONDS.lostRace, writes: writes.length });
      throw err;
    }
    await crash('after-persist');
    progress.state = state;
    progress.version = version;
    const flushed = await flushOutbox(deps, key, state, outbox, version);
    await notifyFleet(deps, spec);
    // Hook and gate calls below write STATE again, on what the flush left; not on a STATE someone changed since.
    if (flushed !== null) ({ state, version } = flushed);
    else if (planned.invocations.length > 0) return result('conflict', { requeueSeconds: REQUEUE_SECONDS.lostRace, writes: writes.length });
  }
  if (planned.invocations.length > 0) {
    const persist = async (next: ReleaseState, outbox: Outbox, base: StoredState): Promise<StoredState> => {
      const saved = await saveStateKeepingCommands(deps.store, key, { state: next, outbox }, base);
      return (await flushOutbox(deps, key, saved.state, outbox, saved.version)) ?? saved;
    };
    const called = await makeCalls(spec, deps, planned.invocations, { state, version, outbox: EMPTY_OUTBOX }, persist);
    if (called.version === null) return result('conflict', { requeueSeconds: REQUEUE_SECONDS.lostRace, writes: writes.length });
    // The outcomes are recorded: the next pass plans from them at once.
    return result('progressed', { phase: called.state.phase, requeueSeconds: REQUEUE_SECONDS.callsRecorded, wakeAt: called.state.nextWakeAt, writes: writes.length });
  }
  if (planned.removed) {
    await deps.store.deleteRollout(key);
    await finishLeaving(deps, key.cluster);
    return result('removed', { writes: writes.length });
  }
  return result(changed || writes.length > 0 || pendingOutbox ? 'progressed' : 'noop', {
    phase: planned.nextState.phase,
    requeueSeconds: planned.requeueSeconds ?? (writes.length > 0 ? REQUEUE_SECONDS.afterWrite : null),
    wakeAt: planned.wakeAt,
    writes: writes.length,
  });
}

/**
 * The pass's writes in the planner's order: routing actions it put before any pod move (the user's
 * routing back before canary pods go), the driver's, then routing after them (a step's weight).
 */
function passWrites(driver: WorkloadDriver, observation: Observation, view: WorkloadView, traffic: TrafficObservation | null, planned: PlanResult, label: string | null): KubeWrite[] {
  const { before, driver: moves, after } = splitActions(planned.actions);
  const routed = (actions: Action[]): KubeWrite[] => (traffic && actions.length > 0 ? trafficWrites(traffic, actions, label ?? '', canaryOwner(observation.workload)) : []);
  return [...routed(before), ...driver.writes(observation, moves, view), ...routed(after)];
}

/** Pod hooks and the per-pod update timeout see pods one by one. */
function podLevel(spec: RolloutSpec): boolean {
  return spec.lifecycle !== undefined || (spec.podUpdateTimeoutSeconds ?? null) !== null;
}

/**
 * The release command (or fleet permit) whose template change the apiserver refused as invalid (400/422), matched by
 * order: the drivers write one template change per set-template action, in the order the planner
 * consumed the release commands. null when the refused write is not such a change (then the failure
 * is the driver's or the cluster's, and the pass fails as Degraded).
 */
function refusedCommand(err: unknown, write: KubeWrite, earlier: KubeWrite[], next: ReleaseState, state: ReleaseState): { id: string; reason: string } | null {
  if (!(err instanceof ValidationError) || write.reason !== TEMPLATE_CHANGE_REASON) return null;
  const consumed = new Set(next.appliedCommandIds);
  // A fleet's permit carrying a change writes the template as a release does, in the same order.
  const releases = state.commands.filter((c) => (c.type === 'release' || (c.type === 'permit' && c.change !== undefined)) && consumed.has(c.id) && !state.appliedCommandIds.includes(c.id));
  const index = earlier.filter((w) => w.reason === TEMPLATE_CHANGE_REASON).length;
  const command = releases[index];
  return command ? { id: command.id, reason: `the cluster refused the template change: ${err.message}` } : null;
}

function withRefusal(commands: Command[], id: string, reason: string): Command[] {
  return commands.map((c) => (c.id === id && (c.type === 'release' || c.type === 'permit') ? { ...c, refusal: reason } : c));
}

function diff(after: Record<MeterKey, number>, before: Record<MeterKey, number>): Record<MeterKey, number> {
  const out = { ...after };
  for (const k of Object.keys(out) as MeterKey[]) out[k] = after[k] - before[k];
  return out;
}
