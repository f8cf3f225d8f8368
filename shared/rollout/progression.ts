// Moving a release forward: batch by batch for a release, straight to 100% for a rollback/undo,
// then handing the workload back to its native controller. Level-based: every decision is made
// from the observed view and the state, so running it twice gives the same answer.
import { isBatchReady, stepTarget } from './arithmetic.ts';
import type { Draft, Waiting } from './draft.ts';
import { EVENT } from './events.ts';
import { failRelease } from './failure.ts';
import { holdForFleet, recordStableImages } from './fleetGate.ts';
import { blockerReason } from './message.ts';
import { analyze, gatesOf, startAnalysis } from './gates.ts';
import { clearedTarget, postUpdatesDone } from './hooks.ts';
import { checkPodTimeouts } from './podTimeout.ts';
import { restoreRouting, routeBeforeMoves, routeStep } from './routing.ts';
import { isBlueGreen, narrowedBack, oldMayGo } from './blueGreen.ts';
import { withCompleted } from './undo.ts';
import { WINDOW_SEARCH_DAYS, isWindowOpen, nextWindowOpening } from './windows.ts';
import type { Action, Distribution, OnDeletePolicy, Release, RevisionView } from './types.ts';
import { workloadTypeOf } from './workloadKinds.ts';

/** While pods move, look again this often even if no watch event arrives. */
const MOVING_REQUEUE_SECONDS = 5;
/** While the native controller takes over or gives back the workload. */
const HANDOVER_REQUEUE_SECONDS = 2;

export function progress(d: Draft): void {
  const rel = d.release;
  // Routing of ours left on the router with no release running (a lost STATE): the user's back.
  if (!rel) {
    restoreRouting(d, 'no release is running');
    return;
  }
  if (!rel.finalizing) {
    progressSteps(d, rel);
    if (!rel.finalizing) return;
  }
  // The last moves take pods away: the router goes back to the user's routing first. A release's
  // also replace the stable pods, so the Services are restored before them (the stable Service must
  // select the new pods); a rollback's or an undo's remove only pods the narrowed stable Service
  // never selected, so its Services are restored once they are gone (finalize).
  // Blue-green: the switch to the new pods and the user's routing back come in finalize, once the
  // new revision is at full size (blueGreen.ts); a rollback of one first narrows back a switched Service.
  if (!narrowedBack(d, rel)) return;
  if (!isBlueGreen(d.spec, rel) && !restoreRouting(d, finishingWhy(rel), rel.kind === 'release')) return;
  finalize(d, rel);
}

function progressSteps(d: Draft, rel: Release): void {
  if (rel.failure !== null) return; // frozen until retry, abort or a new template
  if (holdForFleet(d, rel)) return; // a fleet member moves no pod before its fleet permits the release
  const now = d.now;
  const gate = gateOpensAt(d, rel);
  if (gate !== null) {
    if (!rel.gated) {
      rel.gated = true;
      d.emit(gate.why === 'window' ? EVENT.WaitingForWindow : EVENT.WaitingForStart, `waiting until ${gate.at.toISOString()}`);
    }
    d.wakeAt(gate.at);
    return;
  }
  if (rel.gated) {
    // Time spent waiting for a window or a scheduled start does not count against the batch deadline.
    rel.gated = false;
    rel.stepStartedAt = now.toISOString();
  }
  const total = d.view.replicas;
  if (total !== rel.observedReplicas) {
    // Kruise restarts the current batch against the new replica count (HPA, kubectl scale).
    d.emit(EVENT.BatchRestarted, `replicas changed ${rel.observedReplicas} → ${total}: step ${rel.stepIndex + 1} restarts`);
    rel.observedReplicas = total;
    rel.stepState = 'Upgrading';
    rel.stepStartedAt = now.toISOString();
    rel.stepReadyAt = null;
  }
  if (rel.stepIndex >= d.spec.steps.length) {
    // The spec lost steps mid-release (the API refuses that; another writer may not): redo the last one.
    rel.stepIndex = d.spec.steps.length - 1;
    rel.stepState = 'Upgrading';
    rel.stepStartedAt = now.toISOString();
    rel.stepReadyAt = null;
  }
  // Each pass may finish a step and start the next; the bound only guards against a bug looping.
  for (let pass = 0; pass <= d.spec.steps.length; pass += 1) {
    const step = d.spec.steps[rel.stepIndex];
    if (!step) break;
    const desired = stepTarget(d.spec, rel.stepIndex, total);
    const gates = gatesOf(step);
    if (rel.stepIndex === d.spec.steps.length - 1 && step.pause.type === 'none' && gates.length === 0 && desired === total && rel.stepState === 'Upgrading') {
      // A last step of every pod with nothing after it is the finish itself: moving pods to 100% is
      // what finalizing does (where a driver may let the native controller do it), so do it once.
      startFinalizing(d, rel, 'last step: every pod to the new revision, then hand back');
      return;
    }
    if (rel.stepState === 'Upgrading' || rel.stepState === 'Verifying') {
      // The router first: the user's routing back, or the stable Service narrowed (routing.ts).
      if (!routeBeforeMoves(d, rel, step.traffic)) return;
      // postUpdate as soon as a pod is Ready on the new revision: the next pod's preUpdate may wait for it.
      const postDone = postUpdatesDone(d, rel);
      if (d.release !== rel) return;
      // Only pods whose preUpdate succeeded may be replaced (the batch grows as they do).
      const allowed = clearedTarget(d, rel, desired);
      if (d.release !== rel) return;
      pushDistribute(d, rel, allowed, total);
      checkPodTimeouts(d, rel);
      if (d.release !== rel || rel.failure !== null) return;
      if (!postDone || !batchDone(d, rel, desired)) {
        rel.stepState = targetOf(d, rel).desired >= desired ? 'Verifying' : 'Upgrading';
        d.waiting = waitingFor(d, rel, desired) ?? d.waiting;
        checkDeadline(d, rel);
        if (rel.failure === null && d.release === rel) {
          d.requeue(MOVING_REQUEUE_SECONDS);
          // A pod that is Ready but not yet Available (minReadySeconds) sends no event when it turns Available.
          if (d.view.nextAvailableAt !== null) d.requeueAt(new Date(d.view.nextAvailableAt));
        }
        return;
      }
      rel.stepReadyAt = now.toISOString();
      d.emit(EVENT.BatchReady, `step ${rel.stepIndex + 1}: ${desired} of ${total} pods on the new revision and available`);
      if (step.traffic && d.view.traffic) rel.stepState = 'TrafficRouting';
      else if (gates.length > 0) startAnalysis(d, rel, gates);
      else pauseOrReady(d, rel, step.pause.type);
    } else {
      pushDistribute(d, rel, desired, total);
    }
    if (rel.stepState === 'TrafficRouting') {
      // Only now, the batch Available: the weight never reaches pods that are not (routing.ts).
      if (step.traffic && !routeStep(d, rel, step.traffic)) return;
      // The step's gates and its timed pause count from the traffic being live (Kruise).
      rel.stepReadyAt = d.now.toISOString();
      if (gates.length > 0) startAnalysis(d, rel, gates);
      else pauseOrReady(d, rel, step.pause.type);
    }
    if (rel.stepState === 'Analyzing') {
      const verdict = analyze(d, rel, gates);
      if (verdict !== 'passed') return;
      rel.gates = null;
      pauseOrReady(d, rel, step.pause.type);
    }
    if (rel.stepState === 'StepPaused') {
      if (step.pause.type !== 'timed') return;
      const until = Date.parse(rel.stepReadyAt ?? rel.stepStartedAt) + step.pause.seconds * 1000;
      if (now.getTime() < until) {
        d.wakeAt(new Date(until));
        return;
      }
      rel.stepState = 'StepReady';
    }
    // StepReady: on to the next step, or to the end.
    d.actions.pop();
    if (rel.stepIndex + 1 >= d.spec.steps.length) {
      startFinalizing(d, rel, 'last step done: finishing the release');
      return;
    }
    rel.stepIndex += 1;
    rel.stepState = 'Upgrading';
    rel.stepStartedAt = now.toISOString();
    rel.stepReadyAt = null;
    d.emit(EVENT.StepStarted, `step ${rel.stepIndex + 1} of ${d.spec.steps.length} started`);
  }
}

/**
 * Held still (paused by the user or the spec, frozen by a failure, in the pass that changes the
 * template; a rollback or undo too), a release whose strategy scales the revisions itself
 * (WorkloadType.scaledByUs: a Deployment's Partition) still follows the user's scale (`kubectl
 * scale`, an HPA). The native controller scales a paused Deployment's ReplicaSets proportionally,
 * but the Recreate takeover keeps it from doing so here, and the surplus (or the shortfall) stayed
 * until the release moved again (soak: ReplicaSets asking for 5 pods of a Deployment scaled to 3).
 * Nothing advances: the new revision keeps the pods it has (at most N), the stable revision takes
 * the rest, paced by the driver within the user's budget. Only on a scaling event: a held release
 * otherwise moves nothing.
 */
export function followScale(d: Draft): void {
  const rel = d.release;
  // Once handed back (unpaused, the user's strategy) the native controller follows the scale itself.
  if (!rel || rel.strategy === null || !workloadTypeOf(d.spec.workloadRef.kind).scaledByUs.includes(rel.strategy) || !d.view.held) return;
  const total = d.view.replicas;
  const asked = d.view.revisions.reduce((n, r) => n + r.desired, 0);
  if (asked === total) return;
  const onTarget = Math.min(d.view.revisions.find((r) => r.id === rel.targetRevision)?.desired ?? 0, total);
  d.actions.push(distributeAction(d, rel, heldBack(d.view.revisions, rel, onTarget, total), false));
}

function pushDistribute(d: Draft, rel: Release, onTarget: number, total: number): void {
  d.actions.push(distributeAction(d, rel, { [rel.targetRevision]: onTarget, [rel.stableRevision]: total - onTarget }, false));
}

/** A move of the release toward `distribution`, with what the driver needs to carry it out. */
function distributeAction(d: Draft, rel: Release, distribution: Distribution, final: boolean): Action {
  const podMetadata = d.spec.patchPodTemplateMetadata;
  return {
    type: 'distribute', target: rel.targetRevision, distribution, strategy: rel.strategy, final, onDeletePolicy: onDeletePolicy(d),
    ...(isBlueGreen(d.spec, rel) ? { rollingStyle: 'BlueGreen' as const } : {}),
    ...(podMetadata ? { podMetadata } : {}),
  };
}

/** The batch (and its gates) are done: the step's pause, or on. */
function pauseOrReady(d: Draft, rel: Release, pause: 'approval' | 'timed' | 'none'): void {
  rel.stepState = pause === 'none' ? 'StepReady' : 'StepPaused';
  if (pause === 'approval') d.emit(EVENT.AwaitingApproval, `step ${rel.stepIndex + 1} is waiting for approval`);
}

/** The spec's, as it is now: switching Manual ↔ Automatic mid-release takes effect on the next pass. */
function onDeletePolicy(d: Draft): OnDeletePolicy {
  return d.spec.onDeletePolicy ?? 'Automatic';
}

/**
 * What only someone else can do for the batch: the workload's own pause, or, with Manual OnDelete,
 * the user's deletions (the pods still on the old revision, in the order the batch would take them).
 */
function waitingFor(d: Draft, rel: Release, desired: number): Waiting | null {
  if (d.view.blocked !== null) return { kind: 'WorkloadPaused', text: d.view.blocked };
  if (onDeletePolicy(d) !== 'Manual' || d.spec.onDeletePolicy === null) return null;
  const missing = desired - targetOf(d, rel).current;
  if (missing <= 0) return null;
  const pods = d.view.toReplace;
  const shown = pods.length > MAX_PODS_NAMED ? `${pods.slice(0, MAX_PODS_NAMED).join(', ')} and ${pods.length - MAX_PODS_NAMED} more` : pods.join(', ');
  return { kind: 'ManualDeletion', text: `waiting for ${missing} more pod${missing === 1 ? '' : 's'} to be deleted (onDeletePolicy Manual); still on the old revision: ${shown || 'none'}` };
}

/** A waiting reason names at most this many pods (the message stays one line). */
const MAX_PODS_NAMED = 10;

function startFinalizing(d: Draft, rel: Release, why: string): void {
  rel.finalizing = true;
  rel.stepStartedAt = d.now.toISOString(); // the remaining moves get their own deadline
  d.emit(EVENT.Finalizing, why);
}

/** When a closed window or a scheduled start releases the gate, or null if it is open now. */
function gateOpensAt(d: Draft, rel: Release): { at: Date; why: 'start' | 'window' } | null {
  const now = d.now;
  if (rel.notBefore !== null && now.getTime() < Date.parse(rel.notBefore)) return { at: new Date(rel.notBefore), why: 'start' };
  if (isWindowOpen(d.spec.windows, now)) return null;
  // No opening within the search horizon (e.g. a window inside a DST gap this week): look again then.
  const opens = nextWindowOpening(d.spec.windows, now) ?? new Date(now.getTime() + WINDOW_SEARCH_DAYS * 86_400_000);
  return { at: opens, why: 'window' };
}

/**
 * Kruise's batch readiness, on the target revision: it has the batch's pods (more is fine, a target
 * is never shrunk in a forward step) and enough of them are Available — Ready for the workload's
 * minReadySeconds; and no revision still runs pods beyond what is asked of it (they are on their way
 * out, e.g. a StatefulSet's pods below the partition on an interrupted revision). Surplus asked of
 * other revisions is fine: it only adds capacity, and the driver drains it while the step pauses.
 */
function batchDone(d: Draft, rel: Release, desired: number): boolean {
  const target = targetOf(d, rel);
  if (target.desired < desired || d.view.revisions.some((r) => r.current > r.desired)) return false;
  return isBatchReady({ desired, updated: target.current, updatedReady: target.available, failureThreshold: d.spec.failureThreshold });
}

function targetOf(d: Draft, rel: Release): Pick<RevisionView, 'desired' | 'current' | 'available'> {
  return d.view.revisions.find((r) => r.id === rel.targetRevision) ?? { desired: 0, current: 0, available: 0 };
}

function checkDeadline(d: Draft, rel: Release): void {
  const seconds = d.spec.progressDeadlineSeconds;
  if (seconds === null || rel.kind !== 'release') return;
  const deadline = Date.parse(rel.stepStartedAt) + seconds * 1000;
  if (d.now.getTime() < deadline) {
    d.wakeAt(new Date(deadline));
    return;
  }
  const blocker = blockerReason(d.view, rel, d.now);
  failRelease(d, rel, `step ${rel.stepIndex + 1} did not become ready within ${seconds}s${blocker ? `: ${blocker.text}` : ''}`);
}

function finalize(d: Draft, rel: Release): void {
  if (rel.failure !== null) return; // frozen until retry, abort or a new template
  const view = d.view;
  if (!rel.templateSet) {
    if (view.templateRevision !== rel.targetRevision) {
      if (!view.observed) {
        // A ReplicaSet scaled while kube-controller-manager was away still reports its old counts.
        // Under MinReadySeconds this restore is the hand-back: the Deployment controller, back,
        // would size the revisions from those stale counts while the ReplicaSet controller deletes
        // the pods of the scale it never carried out: one pod below the user's budget (soak smoke).
        d.requeue(HANDOVER_REQUEUE_SECONDS);
        return;
      }
      d.actions.push({ type: 'restore-template', revision: rel.targetRevision, strategy: rel.strategy });
      d.requeue(HANDOVER_REQUEUE_SECONDS);
      return;
    }
    rel.templateSet = true;
  }
  const full: Distribution = { [rel.targetRevision]: view.replicas };
  // Blue-green: the new revision at full size beside the old, then scaleDownDelaySeconds (blueGreen.ts).
  const blueGreen = oldMayGo(d, rel, () => d.actions.push(distributeAction(d, rel, { ...full, [rel.stableRevision]: 0 }, false)));
  if (blueGreen !== 'go') {
    if (blueGreen === 'moving') {
      checkDeadline(d, rel);
      if (d.release === rel && rel.failure === null) d.requeue(MOVING_REQUEUE_SECONDS);
      if (d.view.nextAvailableAt !== null) d.requeueAt(new Date(d.view.nextAvailableAt));
    }
    return;
  }
  const postDone = postUpdatesDone(d, rel);
  if (d.release !== rel) return;
  const allowed = clearedTarget(d, rel, view.replicas);
  if (d.release !== rel) return;
  const last = distributeAction(d, rel, allowed === view.replicas ? full : heldBack(view.revisions, rel, allowed, view.replicas), allowed === view.replicas);
  const target = view.revisions.find((r) => r.id === rel.targetRevision);
  const settled =
    allowed === view.replicas &&
    postDone &&
    reachedSpec(view.revisions, full) &&
    othersDrained(view.revisions, full) &&
    target !== undefined &&
    target.current === view.replicas &&
    target.available === view.replicas;
  if (!settled) {
    d.actions.push(last);
    if (rel.kind === 'release') checkPodTimeouts(d, rel);
    if (d.release !== rel || rel.failure !== null) return;
    d.waiting = waitingFor(d, rel, view.replicas) ?? d.waiting;
    if (rel.kind === 'release') checkDeadline(d, rel);
    if (d.release === rel && rel.failure === null) d.requeue(MOVING_REQUEUE_SECONDS);
    return;
  }
  if (!view.observed) {
    // The controller has not observed the latest spec: a template changed meanwhile (`kubectl set
    // image` while kube-controller-manager is down) is no revision yet, so this release looks done;
    // handing back now would let the controller roll that template to every pod once it is back (soak).
    d.requeue(HANDOVER_REQUEUE_SECONDS);
    return;
  }
  // Every pod on the target: the Services back as the user had them before the workload is (routing.ts).
  if (!restoreRouting(d, finishingWhy(rel))) return;
  if (view.held && !view.nativeComplete) {
    // Let the native controller take the finished revision as its own and record completion.
    d.actions.push({ type: 'release-hold' });
    d.requeue(HANDOVER_REQUEUE_SECONDS);
    return;
  }
  if (!view.nativeComplete) {
    d.requeue(HANDOVER_REQUEUE_SECONDS);
    return;
  }
  d.actions.push({ type: 'hold' });
  complete(d, rel);
}

function finishingWhy(rel: Release): string {
  return rel.kind === 'release' ? 'the release is finishing' : `${rel.kind} to revision ${rel.targetRevision}`;
}

function complete(d: Draft, rel: Release): void {
  const s = d.state;
  s.stableRevision = rel.targetRevision;
  // A revision that ends a release Completed is known-good: an undo may go back to it at once (undo.ts).
  if (rel.endPhase === 'Completed') s.completedRevisions = withCompleted(s, rel.targetRevision);
  recordStableImages(d, rel.targetRevision);
  s.lastRelease = { ...rel, finalizing: false };
  s.release = null;
  s.phase = rel.endPhase;
  const type = rel.endPhase === 'Aborted' ? EVENT.ReleaseAborted : rel.endPhase === 'Failed' ? EVENT.RolledBack : EVENT.ReleaseCompleted;
  const what = rel.kind === 'release' ? 'release' : rel.kind;
  d.emit(type, `${what} ${rel.id} finished: every pod runs revision ${rel.targetRevision}`);
}

/**
 * The last move while pod hooks hold some pods back: `allowed` on the target, the rest on the other
 * revision with the most pods (the stable one of a release, the one a rollback leaves).
 */
function heldBack(revisions: RevisionView[], rel: Release, allowed: number, total: number): Distribution {
  const other = revisions.filter((r) => r.id !== rel.targetRevision).sort((a, b) => b.current - a.current)[0]?.id ?? rel.stableRevision;
  return { [rel.targetRevision]: allowed, [other]: total - allowed };
}

/** Every revision's desired pods (ReplicaSet spec) equal the distribution (absent = 0). */
export function reachedSpec(revisions: RevisionView[], distribution: Distribution): boolean {
  const ids = new Set([...Object.keys(distribution), ...revisions.map((r) => r.id)]);
  for (const id of ids) {
    const want = distribution[id] ?? 0;
    const have = revisions.find((r) => r.id === id)?.desired ?? 0;
    if (want !== have) return false;
  }
  return true;
}

/** Surplus pods have actually gone (not just been asked to go): no revision runs more than wanted. */
function othersDrained(revisions: RevisionView[], distribution: Distribution): boolean {
  return revisions.every((r) => r.current <= (distribution[r.id] ?? 0));
}
