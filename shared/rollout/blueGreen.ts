// Blue-green releases (`strategy.blueGreen`, Kruise v0.6's BlueGreenStrategy in
// api/v1beta1/rollout_types.go of openkruise/rollouts): each step's `replicas` is how many pods of the
// new revision stand beside the old one, which keeps every pod until the release ends. The planner
// emits the same `distribute` as in place, marked `rollingStyle: 'BlueGreen'`; the driver reads it
// as "this many new pods, no old pod goes" (shared/workloads/deployment/blueGreenPace.ts). batchDone
// holds as in place: the old revision is asked for, and runs, all its pods. The steps' traffic is
// routed as in place (routing.ts: the stable Service narrowed to the old pods, the canary Service
// on the new ones, the step's weight once its batch is Available; "0%" allowed).
//
// The end (Kruise's nextBlueGreenTask for a success in pkg/controller/rollout/rollout_bluegreen.go,
// and Argo Rollouts' scaleDownDelaySeconds in rollout/bluegreen.go of argoproj/argo-rollouts: the
// old ReplicaSet is scaled down that long after the switch, default 30 s):
//  1. the new revision at full size beside the old, every pod Available;
//  2. with a routing, the switch: the stable Service narrowed to the new pods too (from then on no
//     Service selects an old pod, whatever the weights), then the router back on the user's own
//     routing, each change given its grace period (Kruise routes all traffic to the new version
//     first; narrowing the stable Service to it reaches the same with the actions routing.ts has);
//  3. `scaleDownDelaySeconds`, counted from the switch (`scaleDownAt`, kept in the release, so a pass
//     run twice or after a crash waits for the same instant);
//  4. the final move (progression.ts finalize): the workload handed back, its native controller
//     removes the old pods; once they are gone the stable Service is restored and the canary
//     Service deleted (routing.ts restoreRouting), and the release completes.
// Once `scaleDownAt` has passed, the final move never turns back into a blue-green move: the
// hand-back then owns the workload.
//
// Abort (a rollback) goes the other way, as Kruise's FinaliseReasonRollback: the router back to the
// old pods first (after a switch, the stable Service narrowed back to them), then the new pods go.
import type { Draft } from './draft.ts';
import { EVENT } from './events.ts';
import { ORIGINAL, SERVICES_KEY, asked, graceOver, routedOf, wait } from './routing.ts';
import type { Release, RolloutSpec } from './types.ts';

/** Argo Rollouts' default (its defaults.DefaultScaleDownDelaySeconds) for our apiVersion. */
export const DEFAULT_SCALE_DOWN_DELAY_SECONDS = 30;

/** A release (not a rollback or an undo, which go straight back) of a blue-green spec. */
export function isBlueGreen(spec: RolloutSpec, rel: Release): boolean {
  return spec.rollingStyle === 'BlueGreen' && rel.kind === 'release';
}

/**
 * Before the final move of a blue-green release. `fullSize` pushes the move that brings the new
 * revision to every pod beside the old one. 'go' when the old revision may now be scaled down;
 * 'moving' while the new revision is not yet all there and Available (the caller waits on pods as
 * for a batch); 'routing' while the switch is being written (routing.ts set the reason and the
 * requeue); 'delay' while scaleDownDelaySeconds run (the wake-up and the reason are set).
 */
export function oldMayGo(d: Draft, rel: Release, fullSize: () => void): 'go' | 'moving' | 'routing' | 'delay' {
  if (!isBlueGreen(d.spec, rel)) return 'go';
  const at = rel.scaleDownAt ?? null;
  if (at !== null && d.now.getTime() >= Date.parse(at)) {
    // Until the hand-back has landed (the workload still carries the driver's marks) the switch must
    // hold; after it, the Services are finalize's to restore, so it is not asked again.
    if (d.view.strategy !== null && !switchToNew(d, rel)) return 'routing';
    return 'go';
  }
  fullSize();
  const delay = d.spec.scaleDownDelaySeconds ?? 0;
  if (at === null) {
    const n = d.view.replicas;
    const target = d.view.revisions.find((r) => r.id === rel.targetRevision);
    const available = Math.min(target?.available ?? 0, target?.current ?? 0);
    if (target === undefined || target.desired < n || available < n) return 'moving';
    if (!switchToNew(d, rel)) return 'routing';
    rel.scaleDownAt = new Date(d.now.getTime() + delay * 1000).toISOString();
    d.emit(EVENT.BatchReady, `revision ${rel.targetRevision} serves at full size (${n} pods) beside the old one; the old one is scaled down after ${delay}s (scaleDownDelaySeconds)`);
    if (delay === 0) {
      d.actions.pop(); // the final move replaces the full-size one
      return 'go';
    }
  } else if (!switchToNew(d, rel)) {
    // While the delay runs the switch is kept: a stable Service a GitOps sync put back would send
    // requests to the old pods the hand-back is about to remove (its watch brings us back at once).
    return 'routing';
  }
  const until = rel.scaleDownAt as string;
  d.wakeAt(new Date(until));
  d.waiting = { kind: 'TimedPause', text: `revision ${rel.targetRevision} serves at full size; the old revision is scaled down at ${until} (scaleDownDelaySeconds ${delay})` };
  return 'delay';
}

/**
 * The switch (step 2 above). True once the stable Service selects only the new pods, the router is
 * on the user's routing and both changes had their grace period; true at once without a routing.
 */
function switchToNew(d: Draft, rel: Release): boolean {
  const routed = routedOf(d);
  if (!routed) return true;
  const { routing, view } = routed;
  const fresh = view.revisionValues[rel.targetRevision];
  if (fresh === undefined) {
    wait(d, view, `no pod of the new revision ${rel.targetRevision} carries the label ${view.revisionLabel} yet`);
    return false;
  }
  if (view.stableNarrowedTo !== fresh || view.canarySelects !== fresh) {
    d.actions.push({ type: 'set-services', label: view.revisionLabel, stable: fresh, canary: fresh });
    asked(d, `${SERVICES_KEY}${fresh}/${fresh}`);
    wait(d, view, `switching Service ${routing.service} to the new pods (${view.revisionLabel}=${fresh})`);
    return false;
  }
  if (!view.converged.includes(ORIGINAL)) {
    // The Services' new endpoints reach the proxy within the grace period before the router leans on them.
    if (!graceOver(d, routing, view, `${SERVICES_KEY}${fresh}/${fresh}`)) return false;
    d.actions.push({ type: 'set-traffic', traffic: null, reason: 'blue-green switch: every request through Service ' + routing.service + ', now on the new pods' });
    asked(d, ORIGINAL);
    wait(d, view, `putting the original routing back, through Service ${routing.service} on the new pods`);
    return false;
  }
  const pending = view.pending[ORIGINAL];
  if (pending !== undefined) {
    wait(d, view, pending);
    return false;
  }
  return graceOver(d, routing, view, ORIGINAL);
}

/**
 * A rollback or undo of a blue-green spec, before the router goes back: a stable Service the switch
 * narrowed to the new pods is narrowed back to the pods the rollback keeps (the canary pods go
 * next, and no Service may select only them then). True when there is nothing to narrow back.
 */
export function narrowedBack(d: Draft, rel: Release): boolean {
  if (d.spec.rollingStyle !== 'BlueGreen' || rel.kind === 'release') return true;
  const routed = routedOf(d);
  if (!routed) return true;
  const { routing, view } = routed;
  const kept = view.revisionValues[rel.targetRevision];
  if (view.stableNarrowedTo === null || kept === undefined || view.stableNarrowedTo === kept) return true;
  d.actions.push({ type: 'set-services', label: view.revisionLabel, stable: kept, canary: null });
  asked(d, `${SERVICES_KEY}${kept}/`);
  wait(d, view, `narrowing Service ${routing.service} back to the pods the ${rel.kind} keeps (${view.revisionLabel}=${kept})`);
  return false;
}
