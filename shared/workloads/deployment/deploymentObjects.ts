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
 * A check sent before ReplicaSet writes when the pass has no Deployment change of its own: a JSON
 * patch whose only op tests that metadata.generation is still the observed one. Those writes are
 * sized for the N (and template) the pass read; if the user or an HPA changed the Deployment's spec
 * since, the apiserver refuses the test (422) and nothing after it is sent (a precondition: the
 * pass stops as on a conflict). Status updates do not change the generation, so the controller's
 * own churn does not trip it; passing, it stores nothing ("no change"). Checked on the real
 * apiserver by test/integration/kube-client.test.ts. (Soak: a scale-down of the stable ReplicaSet
 * sized for N 4, sent after the user scaled to 5, left 4 Available of 5 under maxUnavailable 0.)
 */
export function deploymentGuard(d: KubeObject): KubeWrite {
  return {
    verb: 'patch', ref: objectRef(d), patchType: 'json', precondition: true,
    patch: [{ op: 'test', path: '/metadata/generation', value: d.metadata.generation ?? 0 }],
    reason: `check: the Deployment's spec is still generation ${d.metadata.generation ?? 0}`,
  };
}
