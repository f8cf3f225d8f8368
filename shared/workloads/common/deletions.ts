// Batches of an OnDelete workload (a native DaemonSet we hold with OnDelete; a StatefulSet or a
// Kruise set whose user chose OnDelete): the controller replaces a pod only once it is deleted,
// and recreates it from the current template, i.e. on the target revision. So a batch deletes old
// pods, in the driver's order, until enough pods are on (or on their way to) the target, never
// leaving more slots unavailable at once than the workload's maxUnavailable. An old pod that is not
// Available costs nothing to replace (as the DaemonSet controller's own rolling update does).
import type { KubeObject, KubeWrite } from '../../kube/types.ts';
import { isAvailable } from './pods.ts';
import { isTerminating } from './revisions.ts';

export interface DeletionBatch {
  /** The workload's live (not terminating) pods. */
  pods: readonly KubeObject[];
  /** Names of the old pods, in the order the batch replaces them (the view's toReplace). */
  order: readonly string[];
  revisionOf(pod: KubeObject): string;
  target: string;
  /** Pods the batch wants on the target. */
  desired: number;
  /** Slots the controller keeps: replicas, or the nodes a DaemonSet schedules. */
  total: number;
  minReadySeconds: number;
  now: Date;
  maxUnavailable: number;
  /** Why each delete happens, for the write's reason. */
  reason(pod: KubeObject): string;
}

/**
 * The deletes this pass makes: none while what is missing (deleted or terminating pods, which come
 * back on the target) already covers the batch.
 */
export function batchDeletions(b: DeletionBatch): KubeWrite[] {
  const isAvailableNow = (p: KubeObject) => isAvailable(p, b.minReadySeconds, b.now);
  const live = b.pods.filter((p) => !isTerminating(p));
  const byName = new Map(live.map((p) => [p.metadata.name, p]));
  const coming = Math.max(0, b.total - live.length);
  let need = b.desired - live.filter((p) => b.revisionOf(p) === b.target).length - coming;
  let budget = b.maxUnavailable - (b.total - live.filter(isAvailableNow).length);
  const writes: KubeWrite[] = [];
  for (const name of b.order) {
    const pod = byName.get(name);
    if (need <= 0) break;
    if (!pod || b.revisionOf(pod) === b.target) continue;
    if (isAvailableNow(pod)) {
      if (budget <= 0) continue;
      budget -= 1;
    }
    need -= 1;
    writes.push(podDelete(pod, b.reason(pod)));
  }
  return writes;
}

/** Old pods that are not Available first (replacing them costs no availability), then the kind's order. */
export function unavailableFirst(pods: readonly KubeObject[], isAvailable: (pod: KubeObject) => boolean): KubeObject[] {
  return [...pods.filter((p) => !isAvailable(p)), ...pods.filter((p) => isAvailable(p))];
}

/** A pod delete guarded by the resourceVersion it was observed at (the pod may have changed since). */
export function podDelete(pod: KubeObject, reason: string): KubeWrite {
  return {
    verb: 'delete',
    ref: { apiVersion: 'v1', kind: 'Pod', namespace: pod.metadata.namespace ?? 'default', name: pod.metadata.name },
    resourceVersion: pod.metadata.resourceVersion,
    reason,
  };
}
