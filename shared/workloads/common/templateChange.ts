// The pod-template change a release command asks for, as the same write for every workload kind.
import type { KubeWrite, ObjectRef } from '../../kube/types.ts';
import type { TemplateChange } from '../../rollout/types.ts';

/** The reason of every template-change write: the reconcile tells a refused release request by it. */
export const TEMPLATE_CHANGE_REASON = 'apply the requested pod template change';

/**
 * Strategic merge: containers merge by name, so only the named images change. No resourceVersion:
 * the patch is idempotent and must not lose to the hold patch the driver sends just before it.
 */
export function templateChangeWrite(target: ObjectRef, change: TemplateChange): KubeWrite {
  const patch =
    change.type === 'images'
      ? { spec: { template: { spec: { containers: Object.entries(change.images).map(([name, image]) => ({ name, image })) } } } }
      : { spec: { template: change.patch } };
  return { verb: 'patch', ref: target, patchType: 'strategic', patch, reason: TEMPLATE_CHANGE_REASON };
}
