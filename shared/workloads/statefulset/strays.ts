// Stray pods: below the partition, on another revision than the current (stable) one. The
// partition only moves pods at or above it to the update revision; below it the
// controller leaves existing pods alone and recreates missing ones from status.currentRevision. So
// when a release restarts on a newer revision (v1 → v2 interrupted by v3), the v2 pods below the new
// partition would stay forever and the batch could never match its distribution. Deleting them
// makes the controller recreate them from the current revision — the same move the Deployment
// driver makes by scaling the interrupted ReplicaSet down.
import type { KubeObject, KubeWrite } from '../../kube/types.ts';
import type { Distribution } from '../../rollout/types.ts';
import { num, spec } from '../common/objects.ts';
import { isAvailable } from '../common/pods.ts';
import { currentRevisionOf, isTerminating, ordinalOf, ownedPods, podRevision } from './statefulSetObjects.ts';

export interface StrayInput {
  set: KubeObject;
  pods: KubeObject[];
  /** The partition this pass leaves on the set. */
  partition: number;
  target: string;
  distribution: Distribution;
  maxUnavailable: number;
  /** The set's minReadySeconds: a recreated pod spends the budget until it is Available, not just Ready. */
  minReadySeconds: number;
  now: Date;
}

/**
 * Deletes of stray pods, highest ordinal first, only while the controller has nothing to do above
 * the partition (so the two never spend the unavailability budget at the same time) and within the
 * set's maxUnavailable, counted in Available pods as the StatefulSet controller counts them.
 */
export function strayDeletions(x: StrayInput): KubeWrite[] {
  const current = currentRevisionOf(x.set);
  // The release's own stable revision may not be the set's current one (a release restarted during a
  // rollback: the pods below the partition are the current revision's, whatever the plan calls
  // stable). Below the partition only the current revision can ever be, so every other one is a
  // stray, or the batch would wait for pods that never leave (soak).
  if (current === '' || current === x.target) return [];
  const total = num(spec(x.set).replicas, 1);
  const start = num((spec(x.set).ordinals as { start?: unknown } | undefined)?.start, 0);
  const byIndex = new Map<number, KubeObject>();
  for (const pod of ownedPods(x.set, x.pods)) {
    const ordinal = ordinalOf(pod, x.set.metadata.name);
    if (ordinal !== null) byIndex.set(ordinal - start, pod);
  }
  const settled = (i: number) => {
    const pod = byIndex.get(i);
    // Available, not Ready: with minReadySeconds, a stray deleted by the last pass comes back Ready
    // within a second and would free the budget for the next one while still unavailable (soak: two
    // pods down at once with maxUnavailable 1).
    return pod !== undefined && !isTerminating(pod) && isAvailable(pod, x.minReadySeconds, x.now);
  };
  for (let i = x.partition; i < total; i += 1) {
    if (!settled(i) || podRevision(byIndex.get(i)!) !== x.target) return [];
  }
  let ready = 0;
  for (let i = 0; i < total; i += 1) if (settled(i)) ready += 1;
  let budget = x.maxUnavailable - (total - ready);
  const writes: KubeWrite[] = [];
  for (let i = Math.min(x.partition, total) - 1; i >= 0 && budget > 0; i -= 1) {
    const pod = byIndex.get(i);
    if (!pod || isTerminating(pod) || podRevision(pod) === current) continue;
    writes.push({
      verb: 'delete',
      ref: { apiVersion: 'v1', kind: 'Pod', namespace: pod.metadata.namespace ?? x.set.metadata.namespace ?? 'default', name: pod.metadata.name },
      resourceVersion: pod.metadata.resourceVersion,
      reason: `delete ${pod.metadata.name} (revision ${podRevision(pod) || 'unknown'}, below partition ${x.partition}) so it comes back at ${current}`,
    });
    budget -= 1;
  }
  return writes;
}
