// The MinReadySeconds strategy's pacing: the live maxSurge/maxUnavailable for one pass, and how far
// we scale old ReplicaSets down ourselves. Pure; property-tested (test/unit/workloads/).
//
// What the native RollingUpdate controller does with them (Kubernetes' pkg/controller/deployment/rolling.go,
// and podutil.IsPodAvailable): new pods of a release never become Available to it (the new
// ReplicaSet's minReadySeconds is inflated), so
//  - it creates new pods while Σ old + new < N + maxSurge (NewRSNewReplicas), and
//  - it scales old ReplicaSets down only while Σ old-available > N − maxUnavailable
//    (reconcileOldReplicaSets: not-ready pods first, then available ones, oldest ReplicaSet first).
// From old = O it therefore settles at old = min(O, N − U) and new = min(N, N + S − old).
//
// The rules this chooser keeps, whatever the cluster does next:
//  1. maxUnavailable ≤ the user's, always. Then even if we vanish and someone changes the template
//     (the batch's pods become "old" and, being unavailable to the controller, the first to be
//     cleaned up), the controller keeps Σ old ≥ N − maxUnavailable: never below the user's budget.
//  2. maxUnavailable ≤ N − (old we leave): the controller never drains below what we decided.
//  3. The batch lands exactly: new = N + maxSurge − old ≤ the batch; never 0/0 (the apiserver
//     refuses it); maxSurge ≤ the user's, so the total never exceeds N + the user's surge.
//  4. Draining further than the user's maxUnavailable (a big batch) is ours to do, by scaling old
//     ReplicaSets, and only as far as truly Available pods allow: Available under the user's
//     ORIGINAL minReadySeconds, the pods of the batch included (seed 001's sliding window).
//  5. Surge first: old pods are removed only when the batch needs the room, or once every pod of
//     the batch is Available and covers them (nothing dips below N for nothing, and the budget does
//     not change with each pod that turns Available: every change costs the controller a sync).
//  6. The surge counts only old pods sure to stay: the controller may still be acting on the live
//     budget when we read, and take old pods down to N − its maxUnavailable before ours lands; a
//     surge sized on the old pods we saw then fills their room with new pods beyond the batch
//     (soak: kube-controller-manager back, a scale to 4 and a restart, 2 pods of a 1-pod batch).

export interface BudgetInput {
  /** N: the Deployment's spec.replicas. */
  replicas: number;
  /** The user's own budget, resolved against N (ResolveFenceposts). */
  userMaxSurge: number;
  userMaxUnavailable: number;
  /** Pods of the new revision this batch wants (cumulative). */
  target: number;
  /** spec.replicas of the new revision's ReplicaSet (0 before it exists). */
  newDesired: number;
  /** Of those, truly Available (original minReadySeconds). */
  newAvailable: number;
  /** Σ spec.replicas of every other ReplicaSet. */
  oldDesired: number;
  /** Σ of their truly Available pods within spec (min(available, desired) per ReplicaSet). */
  oldAvailable: number;
  /**
   * The maxUnavailable the controller may be acting on right now (the live one, resolved; 0 while
   * the Deployment is paused): until our new budget reaches it, it can still take old pods down to
   * N − this. Default 0.
   */
  liveMaxUnavailable?: number;
}

export interface Budget {
  maxSurge: number;
  maxUnavailable: number;
  /** What Σ old spec.replicas should be after this pass; below N − maxUnavailable it is ours to scale. */
  oldTarget: number;
  /**
   * The batch is complete (its pods are asked for, no old pod is left to drain): nothing should
   * move, so the Deployment is paused rather than left to the controller with this budget. A budget
   * only keeps the controller still for the N it was sized for: after a scale-down it would roll
   * new pods beyond the batch before the next pass (soak), and where the user allows no
   * unavailability and no old pod is surplus no accepted budget (never 0/0) keeps it still at all.
   * A paused Deployment still scales: a scale-up is spread over both revisions (README), a
   * scale-down takes pods from both; neither rolls anything.
   */
  hold: boolean;
}

export function chooseBudget(x: BudgetInput): Budget {
  const n = Math.max(0, x.replicas);
  const surge = Math.max(0, x.userMaxSurge);
  const unavailable = Math.max(0, Math.min(x.userMaxUnavailable, n));
  // Never shrink the new revision: what it already has is the batch (someone moved ahead of us).
  const batch = Math.min(n, Math.max(x.target, x.newDesired));
  // A user who allows no unavailability keeps one surplus old pod, so maxSurge can stay ≥ 1 (0/0 is invalid).
  const keep = unavailable === 0 ? 1 : 0;
  const oldDesired = Math.max(0, x.oldDesired);
  const oldAvailable = Math.min(Math.max(0, x.oldAvailable), oldDesired);
  const truly = oldAvailable + Math.max(0, x.newAvailable);
  const unready = oldDesired - oldAvailable;

  // The lowest the old pods may go now: down to the batch's share, spending the not-ready ones for
  // free and the ready ones only within the user's budget.
  const floor = Math.max(n - batch + keep, oldDesired - unready - Math.max(0, truly - (n - unavailable)));
  // How low they must go for the surge to reach the batch, and how low they may go without dipping below N.
  const needed = n + surge - batch;
  const landed = Math.max(0, x.newAvailable) >= batch;
  const covered = landed ? oldDesired - unready - Math.max(0, truly - n) : oldDesired;
  const oldTarget = Math.min(oldDesired, Math.max(floor, Math.min(needed, covered)));

  let maxUnavailable = Math.max(0, Math.min(unavailable, n - oldTarget));
  const staying = Math.min(oldTarget, n - Math.max(0, Math.min(x.liveMaxUnavailable ?? 0, n)));
  let maxSurge = Math.max(0, Math.min(surge, batch - (n - staying)));
  if (maxSurge === 0 && maxUnavailable === 0) {
    // Only when nothing may move (or N = 0): the fenceposts guarantee one of the user's budgets is ≥ 1.
    if (unavailable > 0) maxUnavailable = 1;
    else maxSurge = 1;
  }
  const hold = Math.max(0, x.newDesired) >= batch && oldTarget >= oldDesired;
  return { maxSurge, maxUnavailable, oldTarget, hold };
}
