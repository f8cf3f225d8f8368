// Pod hooks on a Deployment: the ReplicaSet controller, not we, picks the old pods a scale-down
// deletes (../common/podOrder.ts). The pods whose preUpdate succeeded get the lowest
// controller.kubernetes.io/pod-deletion-cost, so among equals it deletes them and no other; the
// planner moves only as many pods as have been cleared. (The controller still deletes a pod that
// is not scheduled, Pending or not Ready before a Ready one whatever its cost; the view's order,
// and so the planner's choice of pods, already puts those first.)
import type { KubeObject, KubeWrite } from '../../kube/types.ts';
import { POD_DELETION_COST } from '../common/podOrder.ts';

/** The lowest cost the annotation takes (an int32): below the default 0 and anything users set. */
export const CLEARED_DELETION_COST = String(-2147483648);

export function deletionCostWrites(obs: { pods: KubeObject[] }, pods: readonly string[]): KubeWrite[] {
  return pods.flatMap((name) => {
    const pod = obs.pods.find((p) => p.metadata.name === name);
    if (!pod || pod.metadata.annotations?.[POD_DELETION_COST] === CLEARED_DELETION_COST) return [];
    return [{
      // No resourceVersion: the patch only sets our annotation, and a pod's status changes all the time.
      verb: 'patch', patchType: 'merge',
      ref: { apiVersion: 'v1', kind: 'Pod', namespace: pod.metadata.namespace ?? 'default', name },
      patch: { metadata: { annotations: { [POD_DELETION_COST]: CLEARED_DELETION_COST } } },
      reason: `pod-deletion-cost ${CLEARED_DELETION_COST} on ${name}: its preUpdate hook succeeded, the ReplicaSet controller deletes it first`,
    }];
  });
}
