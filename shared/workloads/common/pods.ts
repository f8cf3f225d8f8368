// Pod availability as the Kubernetes controllers judge it (Kubernetes' podutil.IsPodAvailable): a pod
// is Available once its Ready condition has been True for minReadySeconds, timed from the
// condition's lastTransitionTime. Shared by every driver that counts pods itself.
import type { KubeObject } from '../../kube/types.ts';
import { isRecord } from '../../json.ts';
import { status } from './objects.ts';

/** The pod's Ready condition (PodReady), if it reports one. */
function readyCondition(pod: KubeObject): Record<string, unknown> | undefined {
  const conditions = status(pod).conditions;
  return Array.isArray(conditions) ? conditions.find((c): c is Record<string, unknown> => isRecord(c) && c.type === 'Ready') : undefined;
}

/** PodReady is True. */
export function isPodReady(pod: KubeObject): boolean {
  return readyCondition(pod)?.status === 'True';
}

/** When the pod last became Ready (epoch ms), or null when it is not Ready now. */
export function readySince(pod: KubeObject): number | null {
  const ready = readyCondition(pod);
  if (ready?.status !== 'True') return null;
  const at = typeof ready.lastTransitionTime === 'string' ? Date.parse(ready.lastTransitionTime) : Number.NaN;
  // A Ready pod without a transition time counts as Ready since forever, as the controller treats it.
  return Number.isNaN(at) ? Number.NEGATIVE_INFINITY : at;
}

/** When the pod becomes (or became) Available under `minReadySeconds` (epoch ms), or null when it is not Ready. */
export function availableFrom(pod: KubeObject, minReadySeconds: number): number | null {
  const since = readySince(pod);
  return since === null ? null : since + minReadySeconds * 1000;
}

export function isAvailable(pod: KubeObject, minReadySeconds: number, now: Date): boolean {
  if (inPlaceUpdating(pod)) return false;
  const from = availableFrom(pod, minReadySeconds);
  return from !== null && (minReadySeconds <= 0 || from <= now.getTime());
}

/** The next instant one of `pods` turns Available (ISO), or null when none is waiting for minReadySeconds. */
export function nextAvailableAt(pods: KubeObject[], minReadySeconds: number, now: Date): string | null {
  if (minReadySeconds <= 0) return null;
  let next = Number.POSITIVE_INFINITY;
  for (const pod of pods) {
    const from = availableFrom(pod, minReadySeconds);
    if (from !== null && from > now.getTime()) next = Math.min(next, from);
  }
  return Number.isFinite(next) ? new Date(next).toISOString() : null;
}

/**
 * OpenKruise's in-place update in progress: the InPlaceUpdateReady readiness gate is not True
 * (Kruise sets it False before patching the image, and True once the kubelet runs the new one).
 * Such a pod is not Available, as Kruise's own IsPodUpdateReady says. Native pods have no such condition.
 */
export function inPlaceUpdating(pod: KubeObject): boolean {
  const conditions = status(pod).conditions;
  if (!Array.isArray(conditions)) return false;
  const gate = conditions.find((c): c is Record<string, unknown> => isRecord(c) && c.type === IN_PLACE_UPDATE_READY);
  return gate !== undefined && gate.status !== 'True';
}

export const IN_PLACE_UPDATE_READY = 'InPlaceUpdateReady';
