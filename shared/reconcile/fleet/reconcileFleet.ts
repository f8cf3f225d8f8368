// One fleet pass under the key F#<name> (docs/fleet.md, "The fleet pass"), in the same queue and
// pipeline as a rollout's: load the fleet's SPEC and STATE (flushing a leftover outbox first), the
// registered clusters and every member's STATE as its own reconcile stored it; plan (pure:
// shared/fleet/plan.ts); make the after-wave gate calls it asks for and plan again with their
// answers; write the member SPECs that differ; persist STATE with the member commands in its outbox
// (conditional on the version read); flush the outbox: history, events, each command recorded on
// its member (idempotent by id) and the member enqueued. A crash anywhere replays the outbox; a lost
// race persists nothing and sends nothing, and runs again.
import { isDeepStrictEqual } from 'node:util';
import { ConflictError, TerminalError, TransientError, recoveryOf } from '../../errors.ts';
import { selectableClusters } from '../../fleet/clusters.ts';
import { planFleet } from '../../fleet/plan.ts';
import { fleetClusters } from '../../fleet/placement.ts';
import { recordFleetResults } from '../../fleet/results.ts';
import { allMembers } from '../../fleet/state.ts';
import type { FleetEvent, FleetInvocation, FleetInvocationResult, FleetPlanResult, FleetSpec, FleetState, MemberCommand } from '../../fleet/types.ts';
import { Meter } from '../../meter.ts';
import type { Invocation } from '../../rollout/checkTypes.ts';
import type { ReconcileDeps } from '../deps.ts';
import type { ReconcileResult, ReconcileOutcome } from '../reconcile.ts';
import { REQUEUE_SECONDS } from '../runAgain.ts';
import { fleetHistoryEntries } from './history.ts';
import { loadMembers, writeMembers } from './members.ts';
import { EMPTY_FLEET_OUTBOX, flushFleetOutbox, saveFleetKeepingCommands } from './outbox.ts';

export async function reconcileFleet(name: string, deps: ReconcileDeps): Promise<ReconcileResult> {
  const meter = deps.meter ?? new Meter();
  const before = meter.snapshot();
  let loadedWake: string | null = null;
  const result = (outcome: ReconcileOutcome, extra: Partial<ReconcileResult> = {}): ReconcileResult => {
    const after = meter.snapshot();
    const counts = { ...after };
    for (const k of Object.keys(counts) as (keyof typeof counts)[]) counts[k] = after[k] - before[k];
    return { outcome, phase: null, requeueSeconds: null, wakeAt: null, previousWakeAt: loadedWake, writes: 0, ...extra, counts };
  };
  try {
    return await pass(name, deps, result, (w) => (loadedWake = w));
  } catch (err) {
    if (recoveryOf(err) === 'transient') {
      const hint = (err instanceof TransientError ? err.retryAfterSeconds : null) ?? REQUEUE_SECONDS.transient;
      return result('retry', { requeueSeconds: Math.min(REQUEUE_SECONDS.maxTransient, Math.max(1, hint)), error: (err as Error).message });
    }
    throw err;
  }
}

type Result = (outcome: ReconcileOutcome, extra?: Partial<ReconcileResult>) => ReconcileResult;

async function pass(name: string, deps: ReconcileDeps, result: Result, sawWake: (w: string | null) => void): Promise<ReconcileResult> {
  const crash = deps.crashPoint ?? (() => {});
  const loaded = await deps.store.loadFleet(name);
  sawWake(loaded.state.state.nextWakeAt);
  if (!loaded.spec) {
    // SPEC goes first when a fleet is deleted: STATE left behind is a delete that died half-way.
    if (loaded.state.version > 0) {
      await deps.store.deleteFleet(name);
      return result('removed');
    }
    return result('missing');
  }
  const spec = loaded.spec.spec;
  let stored = loaded.state;
  const pending = stored.outbox.history.length > 0 || stored.outbox.events.length > 0 || stored.outbox.memberCommands.length > 0;
  if (pending) {
    const flushed = await flushFleetOutbox(deps, name, stored);
    if (flushed === null) return result('conflict', { requeueSeconds: REQUEUE_SECONDS.lostRace });
    stored = flushed;
  }

  const clusters = selectableClusters(await deps.store.listClusters());
  const inRelease = [stored.state.release, stored.state.lastRelease].flatMap((r) => (r ? allMembers(r).map((m) => m.cluster) : []));
  const members = await loadMembers(deps, spec, [...fleetClusters(spec, clusters).map((c) => c.name), ...inRelease]);
  await crash('observed');
  const now = deps.clock.now();
  // The specVersion the fleet runs under is the stored SPEC's (a FleetRollout applied meanwhile changes the next release).
  const base: FleetState = { ...stored.state, specVersion: loaded.spec.specVersion };
  let planned = planFleet(spec, base, members.observations, clusters, now);
  const events: FleetEvent[] = [...planned.events];
  const memberCommands: MemberCommand[] = [...planned.memberCommands];
  if (planned.invocations.length > 0) {
    const answers = await checkGates(deps, spec, planned.invocations);
    await crash('called');
    const recorded = recordFleetResults(spec, planned.nextState, answers, deps.clock.now());
    events.push(...recorded.events);
    planned = planFleet(spec, recorded.state, members.observations, clusters, deps.clock.now(), []);
    events.push(...planned.events);
    for (const c of planned.memberCommands) if (!memberCommands.some((m) => m.command.id === c.command.id)) memberCommands.push(c);
  }

  const writes = await writeMembers(deps, spec, planned.members, members);
  await crash('members-written');

  const next = planned.nextState;
  const changed = !isDeepStrictEqual(json(next), json(stored.state)) || events.length > 0 || memberCommands.length > 0;
  if (changed) {
    await crash('before-persist');
    const outbox = { history: fleetHistoryEntries(events, stored.version + 1), events, memberCommands };
    try {
      stored = await saveFleetKeepingCommands(deps.store, name, { state: next, outbox }, { ...stored, outbox: EMPTY_FLEET_OUTBOX });
    } catch (err) {
      if (err instanceof ConflictError) return result('conflict', { requeueSeconds: REQUEUE_SECONDS.lostRace });
      throw err;
    }
    await crash('after-persist');
    await flushFleetOutbox(deps, name, stored);
  }
  const moved = changed || writes.written.length > 0 || writes.removed.length > 0 || pending;
  return result(moved ? 'progressed' : 'noop', {
    requeueSeconds: planned.invocations.length > 0 ? REQUEUE_SECONDS.callsRecorded : null,
    wakeAt: planned.wakeAt,
    writes: writes.written.length + writes.removed.length,
    ...(writes.refused.length > 0 ? { error: writes.refused.map((r) => r.reason).join('; ') } : {}),
  });
}

/**
 * The after-wave gates, through the same CallRunner as a step's. Its call body names a rollout; for
 * a fleet it names the fleet (its name, the workload's namespace) and the wave's first cluster, the
 * release and the wave's number as the step: Prometheus and CloudWatch gates do not read it.
 */
async function checkGates(deps: ReconcileDeps, spec: FleetSpec, invocations: readonly FleetInvocation[]): Promise<FleetInvocationResult[]> {
  if (!deps.calls) throw new TerminalError(`fleet ${spec.name} has after-wave gates, and this deployment of serverless-rollouts has no way to call them`);
  const out: FleetInvocationResult[] = [];
  for (const inv of invocations) {
    const cluster = inv.context.clusters[0] ?? '';
    const call: Invocation = {
      type: 'check-gate', gate: inv.gate,
      context: { rollout: { cluster, namespace: spec.workload.namespace, name: spec.name }, releaseId: inv.context.releaseId, step: inv.context.waveNumber, revision: '' },
    };
    for (const r of await deps.calls.run(cluster, spec.workload.namespace, [call])) {
      if (r.type === 'check-gate') out.push({ type: 'check-gate', gate: r.gate, wave: inv.context.wave, measurement: r.measurement, at: r.at });
    }
  }
  return out;
}

function json(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value ?? null));
}

export type { FleetPlanResult };
