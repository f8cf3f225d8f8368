// Blue-green releases (`strategy.blueGreen`, Kruise v0.6's BlueGreenStrategy in
// api/v1beta1/rollout_types.go of openkruise/rollouts): each step's `replicas` is how many pods of the
// new revision stand beside the old one, which keeps every pod until the release ends. The planner
// emits the same `distribute` as in place, marked `rollingStyle: 'BlueGreen'`; the driver reads it
// as "this many new pods, no old pod goes" (shared/workloads/deployment/blueGreenPace.ts). Its
// batchDone holds as in place: the old revision is asked for, and runs, all its pods.
//
// The end, after Argo Rollouts' scaleDownDelaySeconds (rollout/bluegreen.go of argoproj/argo-rollouts:
// the old ReplicaSet is scaled down that long after the switch, default 30 s): the new revision is
// first brought to full size beside the old and waited on until every pod is Available; then
// `scaleDownDelaySeconds` pass; only then the final move, which hands the workload back and lets its
// native controller remove the old pods. The instant is kept in the release (`scaleDownAt`), so a
// pass run twice, or after a crash, waits for the same one; once it has passed the final move never
// turns back into a blue-green move (the hand-back then owns the workload).
import type { Draft } from './draft.ts';
import { EVENT } from './events.ts';
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
 * for a batch); 'delay' while scaleDownDelaySeconds run (the wake-up and the reason are set).
 */
export function oldMayGo(d: Draft, rel: Release, fullSize: () => void): 'go' | 'moving' | 'delay' {
  if (!isBlueGreen(d.spec, rel)) return 'go';
  const at = rel.scaleDownAt ?? null;
  if (at !== null && d.now.getTime() >= Date.parse(at)) return 'go';
  fullSize();
  const n = d.view.replicas;
  const target = d.view.revisions.find((r) => r.id === rel.targetRevision);
  const available = Math.min(target?.available ?? 0, target?.current ?? 0);
  if (at === null && (target === undefined || target.desired < n || available < n)) return 'moving';
  const delay = d.spec.scaleDownDelaySeconds ?? 0;
  if (at === null) {
    rel.scaleDownAt = new Date(d.now.getTime() + delay * 1000).toISOString();
    d.emit(EVENT.BatchReady, `revision ${rel.targetRevision} at full size (${n} pods) beside the old one; the old one is scaled down after ${delay}s (scaleDownDelaySeconds)`);
    if (delay === 0) {
      d.actions.pop(); // the final move replaces the full-size one
      return 'go';
    }
  }
  const until = rel.scaleDownAt as string;
  d.wakeAt(new Date(until));
  d.waiting = { kind: 'TimedPause', text: `revision ${rel.targetRevision} runs at full size; the old revision is scaled down at ${until} (scaleDownDelaySeconds ${delay})` };
  return 'delay';
}
