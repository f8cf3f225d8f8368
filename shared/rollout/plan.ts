// plan(spec, state, observed, now, commands) → { actions, nextState, wakeAt, events }
// The whole release state machine as one pure function. It never reads the clock or the network;
// the reconcile pipeline observes, calls it, applies the actions and persists nextState.
import type { Cause } from './cause.ts';
import { applyCommands } from './commands.ts';
import { Draft } from './draft.ts';
import { EVENT, rolloutEvent } from './events.ts';
import { degradedReason, explain } from './message.ts';
import { recordStableImages, settlePermit } from './fleetGate.ts';
import { followScale, progress } from './progression.ts';
import { notYetRunnableProblems } from './notYetRunnable.ts';
import { isRoutingAction, restoreRouting, trafficProblems } from './routing.ts';
import { withCompleted } from './undo.ts';
import { APPLIED_COMMAND_MEMORY } from './state.ts';
import type { Command, PlanResult, ReleaseState, RolloutEvent, RolloutKey, RolloutSpec, WorkloadView } from './types.ts';

/** After a pass that changes the template, look again this soon even if no watch event arrives. */
const TEMPLATE_CHANGE_REQUEUE_SECONDS = 2;
/** First sight of a workload in the middle of a native rollout: look again once it may have ended. */
const NATIVE_ROLLOUT_REQUEUE_SECONDS = 10;
/** A deleted rollout's hand-back: look again once the native controller has taken the workload back. */
const HAND_BACK_REQUEUE_SECONDS = 2;

export function plan(
  spec: RolloutSpec,
  state: ReleaseState,
  view: WorkloadView,
  now: Date,
  commands: Command[] = state.commands,
): PlanResult {
  const d = new Draft(spec, state, view, now);
  const s = d.state;

  if (s.removing || commands.some((c) => c.type === 'delete' && !s.appliedCommandIds.includes(c.id))) {
    return planRemoval(d, commands);
  }

  // A release asked meanwhile is the fix a stuck rollback or undo asks for (a template of its own):
  // it is applied and replaces it, instead of waiting behind it forever with every other command (soak).
  const fixedByRelease = commands.some((c) => c.type === 'release' && !s.appliedCommandIds.includes(c.id));
  // A spec using Kruise fields no release can run yet (notYetRunnable.ts) is held the same way.
  const problems = [...view.problems, ...notYetRunnableProblems(spec), ...trafficProblems(d), ...(fixedByRelease ? [] : releaseProblems(s, view))];
  if (!view.exists || problems.length > 0) {
    // Outside us something broke the contract: touch nothing, keep commands until it is fixed.
    const why = degradedReason(spec, view, problems, now);
    if (s.phase !== 'Degraded' || s.message !== why.message) {
      s.phase = 'Degraded';
      s.message = why.message;
      s.cause = why.cause;
      d.emit(EVENT.Degraded, why.message);
    }
    return finish(d, { degraded: true });
  }
  if (s.phase === 'Degraded') d.emit(EVENT.Recovered, 'the workload is back in a state we can manage');
  if (s.cause?.kind === 'ClusterUnreachable') d.emit(EVENT.ClusterReachable, `cluster "${spec.cluster}" answers again`);

  applyCommands(d, commands);

  if (s.stableRevision === null && s.release === null && !adopt(d)) return finish(d);

  // Detect first: a template changed while the workload was handed back starts a release that must be held.
  detectNewRevision(d);
  const changesTemplate = d.commandActions.some((a) => a.type === 'set-template');
  // A fleet member's permit binds to the release of the template it wrote, or finds nothing to release.
  if (!changesTemplate) settlePermit(d);
  // The workload's own marks are the truth about the strategy in flight (a STATE restored from an
  // older backup, or written by another version, may say otherwise).
  if (d.release && d.view.strategy !== null && d.release.strategy !== d.view.strategy) d.release.strategy = d.view.strategy;
  d.actions.push(...d.commandActions);
  // A release request whose template change did not make a new revision (the template already was
  // that, or was put back meanwhile) starts nothing: it is no longer waiting to be picked up.
  if (!changesTemplate && s.release === null && s.requestedBy) {
    s.requestedBy = null;
    s.scheduledStartAt = null;
  }
  // A pass that changes the template moves no pods: its batch would be paced for the revision being
  // replaced, and the driver's budget (a lowered partition, a Deployment's surge room) would let the
  // native controller roll the NEW template past step 1 without its approval (soak). The next pass
  // sees the new template and restarts the release from step 1.
  if (!spec.paused && !s.userPaused && !changesTemplate) progress(d);
  // Whatever else holds the release still (paused, frozen by a failure, a template change this pass,
  // a closed window, a paused rollback), a Partition rollout follows the user's scale: nobody else
  // can (progression.ts). Not in a pass that puts a template back or hands the workload back.
  // Nor in one that changes the routing: the pods it would take away may still receive requests.
  if (!d.actions.some((a) => a.type === 'distribute' || a.type === 'release-hold' || a.type === 'restore-template' || isRoutingAction(a))) followScale(d);
  // The next pass restarts the release on the new template: its watch event may be lost (soak: a cut
  // watch and a kill left a release on the replaced revision until the resync, 15 s later).
  if (changesTemplate) d.requeue(TEMPLATE_CHANGE_REQUEUE_SECONDS);

  // Finalizing hands the workload back on purpose; anything else unheld is someone else's doing. A
  // workload that still carries a release strategy's changes is never left unheld, finalizing or not.
  // Decided after progressing, so a hand-back this very pass decides (or a crashed one replays) is not
  // undone; the hold goes first all the same, before any move.
  // A template change of ours always lands on a held workload: during the hand-back the native
  // controller would otherwise roll the new template at once, past every batch and approval (soak).
  // So does a template an undo or a rollback puts back (an undo right after a hand-back met an
  // unpaused Deployment, and the native controller rolled it: soak); a driver that hands back with
  // the restore (MinReadySeconds: the native controller rolls back with the user's fields) keeps
  // doing so.
  const handingBack = d.release?.finalizing === true && d.view.strategy === null;
  const restoresTemplate = d.actions.some((a) => a.type === 'restore-template');
  if (!d.view.held && (!handingBack || changesTemplate || restoresTemplate)) {
    d.actions.unshift({ type: 'hold' });
    if (d.release && !handingBack) d.emit(EVENT.HoldRestored, 'the workload was not held during a release; holding it again');
  }
  return finish(d);
}

/**
 * Problems of the release itself that only the workload's owner can fix: a rollback or undo whose
 * target revision the workload no longer retains (revisionHistoryLimit pruned it), so its pod
 * template cannot be put back. Degraded instead of retrying forever.
 */
function releaseProblems(s: ReleaseState, view: WorkloadView): string[] {
  const rel = s.release;
  if (!rel || rel.templateSet || view.templateRevision === rel.targetRevision) return [];
  if (view.revisions.some((r) => r.id === rel.targetRevision)) return [];
  return [
    `the ${rel.kind} needs the pod template of revision ${rel.targetRevision}, which the workload no longer retains ` +
      `(pruned by revisionHistoryLimit?): set that template yourself (e.g. kubectl set image) or delete the rollout`,
  ];
}

/** First sight of the workload: record its current revision as stable, or wait for a native rollout to end. */
function adopt(d: Draft): boolean {
  const s = d.state;
  const tpl = d.view.templateRevision;
  const active = d.view.revisions.filter((r) => r.desired > 0);
  if (active.every((r) => r.id === tpl)) {
    s.stableRevision = tpl;
    s.completedRevisions = withCompleted(s, tpl);
    recordStableImages(d, tpl);
    d.emit(EVENT.Adopted, `managing ${d.spec.workloadRef.kind} ${d.spec.workloadRef.name} at revision ${tpl}`);
    return true;
  }
  if (!d.view.held) {
    d.requeue(NATIVE_ROLLOUT_REQUEUE_SECONDS); // holding it now would freeze it half-way
    return false;
  }
  // Held with several revisions and no state (state lost): the largest other revision is stable.
  const stable = active.filter((r) => r.id !== tpl).sort((a, b) => b.desired - a.desired)[0];
  s.stableRevision = stable?.id ?? tpl;
  s.completedRevisions = withCompleted(s, s.stableRevision);
  recordStableImages(d, s.stableRevision);
  d.emit(EVENT.Adopted, `managing a release in flight: stable ${s.stableRevision}, target ${tpl}`);
  return true;
}

/** A pod template we have not released yet starts a release (or restarts the one in flight). */
function detectNewRevision(d: Draft): void {
  const s = d.state;
  const tpl = d.view.templateRevision;
  const rel = s.release;
  if (rel === null) {
    if (s.stableRevision !== null && tpl !== s.stableRevision) {
      d.startRelease('release', tpl, s.stableRevision);
      d.emit(EVENT.ReleaseStarted, `release of revision ${tpl} started (stable ${s.stableRevision})`);
    }
    return;
  }
  if (!rel.templateSet || tpl === rel.targetRevision) return;
  if (rel.kind === 'release' && tpl === rel.stableRevision) {
    // Kruise: a template put back to the stable one is a rollback, done directly.
    d.startRelease('rollback', tpl, tpl, { id: rel.id, endPhase: 'Aborted' });
    d.emit(EVENT.RollbackStarted, 'the pod template was put back to the stable revision: rolling back');
    return;
  }
  const target = d.view.revisions.find((r) => r.id === rel.targetRevision);
  const landed = rel.finalizing && target !== undefined && target.desired === d.view.replicas;
  const stable = landed ? rel.targetRevision : rel.stableRevision;
  d.startRelease('release', tpl, stable);
  d.emit(EVENT.ReleaseRestarted, `new revision ${tpl} replaces ${rel.targetRevision} mid-release: starting again from step 1`);
}

/** Delete: hand the workload back to its native controller, then tell the caller to forget us. */
function planRemoval(d: Draft, commands: Command[]): PlanResult {
  const s = d.state;
  if (!s.removing) {
    s.removing = true;
    s.appliedCommandIds = [...s.appliedCommandIds, ...commands.map((c) => c.id)].slice(-APPLIED_COMMAND_MEMORY);
    s.commands = [];
    const del = commands.find((c) => c.type === 'delete');
    d.commandId = del?.id ?? null;
    d.emit(EVENT.Released, 'rollout deleted: handing the workload back to its native controller', del?.by ?? null);
    d.commandId = null;
  }
  // The user's routing back before the workload: its canary pods go once it is handed back.
  if (!restoreRouting(d, 'the rollout is deleted')) return finish(d);
  if (d.view.exists && (d.view.held || d.view.strategy !== null)) {
    d.actions.push({ type: 'release-hold' });
    d.requeue(HAND_BACK_REQUEUE_SECONDS);
    return finish(d);
  }
  return { ...finish(d), removed: true };
}

function finish(d: Draft, opts: { degraded?: boolean } = {}): PlanResult {
  const s = d.state;
  if (!opts.degraded) {
    if (d.spec.paused || s.userPaused) s.phase = 'Paused';
    else if (s.release) s.phase = s.release.failure !== null ? 'Failed' : 'Progressing';
    else if (s.phase !== 'Completed' && s.phase !== 'Aborted' && s.phase !== 'Failed') s.phase = s.lastRelease?.endPhase ?? 'Healthy';
    const why = explain(d.spec, s, d.view, d.now, d.waiting);
    s.message = why.message;
    s.cause = why.cause;
  }
  const wakeAt = d.earliestWake();
  s.nextWakeAt = wakeAt;
  // Events carry the phase and the reason the rollout has after this plan.
  const events = d.events.map((e) => ({ ...e, phase: s.phase, reason: s.message, cause: s.cause ?? null }));
  return { actions: d.actions, invocations: d.invocations, nextState: s, wakeAt, requeueSeconds: d.requeueSeconds, events, removed: false };
}

/**
 * A pass that cannot go on for a reason running again will not fix (a TerminalError: no driver, an
 * invalid stored spec, an unregistered cluster, a missing permission, a write the apiserver refuses):
 * Degraded with the reason, commands and release kept for when it is fixed. null when the rollout
 * already says exactly that (nothing to write).
 */
export function planDegraded(key: RolloutKey, state: ReleaseState, now: Date, reason: string): { nextState: ReleaseState; events: RolloutEvent[] } | null {
  if (state.phase === 'Degraded' && state.message === reason) return null;
  const cause: Cause = { kind: 'CannotProceed', object: null, field: null, detail: reason, since: now.toISOString(), until: null };
  const nextState: ReleaseState = { ...structuredClone(state), phase: 'Degraded', message: reason, cause };
  const releaseId = state.release?.id ?? state.lastRelease?.id ?? null;
  return { nextState, events: [rolloutEvent(key, EVENT.Degraded, { releaseId, phase: 'Degraded', stepIndex: state.release?.stepIndex ?? null, message: reason, at: now, reason, cause })] };
}
