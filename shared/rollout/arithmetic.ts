// Batch arithmetic, reproduced exactly from Kruise Rollout and Kubernetes (openkruise/rollouts: pkg/controller/batchrelease, CalculateBatchReplicas and IsBatchReady; k8s.io/apimachinery intstr).
// Every function here is total over validated specs; they throw only on inputs validation rejects.
import { isPercent, percentValue } from './intOrPercent.ts';
import type { IntOrPercent, RolloutSpec, WorkloadKind } from './types.ts';
import { workloadTypeOf } from './workloadKinds.ts';

/**
 * k8s `intstr.GetScaledValueFromIntOrPercent`: an int is returned as is; "p%" becomes
 * ceil(p·total/100) when roundUp, else floor. The float expression is evaluated in the same order as
 * Go's `float64(value) * float64(total) / 100`, so results match bit for bit.
 */
export function scaledValue(v: IntOrPercent, total: number, roundUp: boolean): number {
  if (!isPercent(v)) {
    if (!Number.isSafeInteger(v)) throw new RangeError(`invalid IntOrString ${String(v)}: not an integer`);
    return v;
  }
  const p = percentValue(v);
  if (p === null) throw new RangeError(`invalid IntOrString "${v}": not a percentage`);
  const exact = (p * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(n, hi));
}

/**
 * Pods of the new revision that batch `replicas` asks for when the workload has `total` replicas.
 * Kruise `CalculateBatchReplicas` (ceil, clamp to [0, N]) and, for the kinds that round so
 * (WorkloadType.percentKeepsOldPod: a Deployment), `NewRSReplicasLimit`: a percent other than the
 * literal "100%" keeps at least one old pod when N > 1 (90% of 5 → 4). Only in place: a canary
 * workload's batches (`inPlace` false) are the plain ceil, as Kruise's canary style sizes its canary
 * Deployment (pkg/controller/batchrelease/control/canarystyle/deployment/control.go).
 */
export function batchTarget(kind: WorkloadKind, replicas: IntOrPercent, total: number, inPlace = true): number {
  const target = clamp(scaledValue(replicas, total, true), 0, total);
  if (inPlace && workloadTypeOf(kind).percentKeepsOldPod && isPercent(replicas) && replicas !== '100%' && total > 1) {
    return Math.min(target, total - 1);
  }
  return target;
}

/** Pods of the target revision for step `i` of a spec: never fewer than an earlier step asked for. */
export function stepTarget(spec: RolloutSpec, i: number, total: number): number {
  let target = 0;
  for (let j = 0; j <= i; j += 1) {
    const step = spec.steps[j];
    if (step) target = Math.max(target, batchTarget(spec.workloadRef.kind, step.replicas, total, spec.rollingStyle !== 'CanaryWorkload'));
  }
  return target;
}

export interface BatchProgress {
  /** Pods of the new revision the batch wants (batchTarget). */
  desired: number;
  /** Pods of the new revision that exist. */
  updated: number;
  /** Of those, pods that are ready. */
  updatedReady: number;
  /** Share of *updated* pods allowed to be unready; null means 0. */
  failureThreshold: IntOrPercent | null;
}

/**
 * Kruise `BatchContext.IsBatchReady`. The threshold base is the updated pods, not N or the batch, and
 * a nil threshold means 0 (despite the Kruise API comment about maxUnavailable). At least one updated
 * pod must be ready whatever the threshold.
 */
export function isBatchReady(x: BatchProgress): boolean {
  if (x.updated < x.desired) return false;
  const allowedUnready = x.failureThreshold === null ? 0 : scaledValue(x.failureThreshold, x.updated, true);
  if (allowedUnready + x.updatedReady < x.desired) return false;
  return !(x.desired > 0 && x.updatedReady === 0);
}

export interface RollingBudget {
  maxSurge: number;
  maxUnavailable: number;
}

/** apps/v1 defaulting for RollingUpdate when a field is unset. */
const DEFAULT_ROLLING: IntOrPercent = '25%';

/**
 * k8s `ResolveFenceposts` + `MaxUnavailable` for a Deployment with `total` replicas: surge rounds up,
 * unavailable rounds down; if both are 0, unavailable becomes 1 so the rollout can progress; and
 * unavailable never exceeds the replica count (so it is 0 when total is 0).
 */
export function resolveRollingBudget(
  total: number,
  maxSurge: IntOrPercent | undefined,
  maxUnavailable: IntOrPercent | undefined,
): RollingBudget {
  const surge = scaledValue(maxSurge ?? DEFAULT_ROLLING, total, true);
  let unavailable = scaledValue(maxUnavailable ?? DEFAULT_ROLLING, total, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { maxSurge: surge, maxUnavailable: Math.min(unavailable, total) };
}
