// A blue-green move on a Deployment (shared/rollout/blueGreen.ts): `distribution[target]` pods of the
// new revision beside every pod of the old one. Ported from Kruise v0.6's blue-green control of a
// native Deployment (pkg/controller/batchrelease/control/bluegreenstyle/deployment/control.go of
// openkruise/rollouts): the user's fields snapshot into the rollouts.kruise.io/original-* annotations
// (originals.ts, as the MinReadySeconds strategy, so the hand-back is the same one patch),
// minReadySeconds and progressDeadlineSeconds inflated, unpaused, RollingUpdate with
// maxSurge = the batch and maxUnavailable = 0. What the native controller does with that
// (Kubernetes' pkg/controller/deployment/rolling.go):
//  - NewRSNewReplicas creates new pods while old + new < N + maxSurge: the new revision grows to the batch;
//  - reconcileOldReplicaSets scales old pods down by at most all − (N − maxUnavailable) − new-unavailable
//    = (N + k) − N − k = 0: the new pods are never Available to it (inflated minReadySeconds, which it
//    copies onto the new ReplicaSet only), so no old pod goes, whatever time passes.
// So the Deployment is safe as left between passes, and while we are away: nothing but the batch
// comes up, nothing of the old revision goes. Our own count of Available new pods is pod by pod
// against the user's minReadySeconds (view.ts), as for MinReadySeconds.
//
// Kruise passes the step's percent as maxSurge; we pass the batch's pod count (stepTarget, with
// Kruise's NewRSReplicasLimit rounding), so the controller's rounding cannot differ from ours.
import type { KubeObject } from '../../kube/types.ts';
import type { WorkloadView } from '../../rollout/types.ts';
import { spec } from '../common/objects.ts';
import { strategyOf } from './deploymentObjects.ts';
import { takeOverPatch, type Originals, type TakeOverPatch } from './originals.ts';

export type BlueGreenPatch = TakeOverPatch;

/** One pass of a blue-green batch: take over (first pass) or keep the inflation, and set the surge to the batch. */
export function blueGreenPace(d: KubeObject, originals: Originals | null, view: WorkloadView, target: string, wanted: number): BlueGreenPatch {
  const out = takeOverPatch(d, originals);
  const surge = blueGreenSurge(view, target, wanted);
  if (surge === null) {
    // No pod of the new revision is asked for (N = 0): 0/0 is refused by the apiserver, so hold by pausing.
    if (spec(d).paused !== true) {
      out.spec.paused = true;
      out.reasons.push('pause: no pod of the new revision is asked for');
    }
    return out;
  }
  const live = strategyOf(d);
  // A Recreate Deployment is refused on apply and Degraded in the view (driver.ts, view.ts): RollingUpdate here.
  if (live.rollingUpdate?.maxSurge !== surge || live.rollingUpdate?.maxUnavailable !== 0) {
    out.spec.strategy = { rollingUpdate: { maxSurge: surge, maxUnavailable: 0 } };
    out.reasons.push(`blue-green: maxSurge ${surge} (the new revision's pods), maxUnavailable 0 (no old pod goes)`);
  }
  if (spec(d).paused === true) {
    out.spec.paused = false;
    out.reasons.push('unpause (the native controller brings the new pods up beside the old)');
  }
  return out;
}

/**
 * The batch as a pod count, never below what the new revision already has (a step never shrinks it:
 * batchDone's "more is fine"), at most N; null when it is 0.
 */
export function blueGreenSurge(view: WorkloadView, target: string, wanted: number): number | null {
  const has = view.revisions.find((r) => r.id === target)?.desired ?? 0;
  const surge = Math.min(view.replicas, Math.max(wanted, has));
  return surge > 0 ? surge : null;
}
