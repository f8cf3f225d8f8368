// Typed reads of the Deployment and ReplicaSet fields the driver uses, from wire-format JSON.
import type { KubeObject, KubeWrite } from '../../kube/types.ts';
import { objectRef, spec } from '../common/objects.ts';
import { isRecord } from '../../json.ts';
import type { IntOrPercent } from '../../rollout/types.ts';

/** Partition strategy: where we keep the user's rollingUpdate strategy while a release holds the Deployment on Recreate. */
export const ORIGINAL_STRATEGY = 'rollouts.serverless-rollouts.io/original-strategy';
export const REVISION = 'deployment.kubernetes.io/revision';
export const DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';
/** Deployment annotations the native controller never copies onto ReplicaSets (annotationsToSkip). */
export const NOT_COPIED = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION,
  'deployment.kubernetes.io/revision-history',
  DESIRED_REPLICAS,
  MAX_REPLICAS,
  'deprecated.deployment.rollback.to',
]);
export const MAX_INT32 = 2147483647;
/** Kruise's MaxReadySeconds: the inflated minReadySeconds (validation wants it below progressDeadlineSeconds). */
export const INFLATED_MIN_READY_SECONDS = MAX_INT32 - 1;
/** Kruise's MaxProgressSeconds: the inflated progressDeadlineSeconds, which also means "no deadline". */
export const INFLATED_PROGRESS_DEADLINE_SECONDS = MAX_INT32;

export interface Strategy {
  type?: string;
  rollingUpdate?: { maxSurge?: IntOrPercent; maxUnavailable?: IntOrPercent };
}

export function strategyOf(d: KubeObject): Strategy {
  const s = spec(d).strategy;
  return isRecord(s) ? (s as Strategy) : {};
}

/** The user's strategy: the one saved while we hold the Deployment on Recreate, else the live one. */
export function userStrategy(d: KubeObject): Strategy {
  const saved = d.metadata.annotations?.[ORIGINAL_STRATEGY];
  if (saved) {
    try {
      const parsed: unknown = JSON.parse(saved);
      if (isRecord(parsed)) return parsed as Strategy;
    } catch {
      // A tampered annotation is reported as a problem by the view; fall through to the live value.
    }
  }
  return strategyOf(d);
}

export function inTakeover(d: KubeObject): boolean {
  return d.metadata.annotations?.[ORIGINAL_STRATEGY] !== undefined;
}

export function revisionNumber(rs: KubeObject): number {
  const n = Number(rs.metadata.annotations?.[REVISION] ?? '0');
  return Number.isInteger(n) ? n : 0;
}


/**
 * A no-op patch of the Deployment guarded by the resourceVersion the pass observed, sent before
 * ReplicaSet writes when the pass has no Deployment change of its own to carry the guard. Those
 * writes are sized for the N the pass read; if the Deployment changed since (a scale by the user or
 * an HPA), the apiserver refuses the guard (409) and nothing after it is sent. With the
 * resourceVersion still current it is "no change": nothing is stored, no watch event follows.
 * (Soak: a scale-down of the stable ReplicaSet sized for N 4, sent after the user scaled to 5, left
 * 4 Available of 5 under maxUnavailable 0.)
 */
export function deploymentGuard(d: KubeObject): KubeWrite {
  return {
    verb: 'patch', ref: objectRef(d), patchType: 'merge', resourceVersion: d.metadata.resourceVersion, patch: {}, reason: 'guard: the Deployment is as observed',
  };
}
