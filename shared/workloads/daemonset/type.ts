// What the rollout core may know of a DaemonSet and an Advanced DaemonSet
// (shared/rollout/workloadType.ts): gathered into shared/rollout/workloadKinds.generated.ts by
// scripts/generate.ts. A batch counts nodes; pods go one way.
import type { WorkloadType } from '../../rollout/workloadType.ts';

const NODE_SET = {
  counts: 'nodes',
  onDelete: true,
  strategies: [],
  scaledByUs: [],
  percentKeepsOldPod: false,
  blueGreen: false,
  runsBlueGreen: false,
  canaryWorkload: false,
  routesTraffic: false,
} as const;

/** We pick the pods of each batch ourselves (OnDelete), so a preUpdate runs on the very pod replaced. */
export const DAEMONSET_TYPE = { apiVersion: 'apps/v1', kind: 'DaemonSet', ...NODE_SET, preUpdate: { when: 'always' } } as const satisfies WorkloadType;

/**
 * Its controller chooses which pods a partition updates (node order): a preUpdate of ours could run
 * on another pod than the one updated. Kruise's own hooks cannot.
 */
export const ADVANCED_DAEMONSET_TYPE = {
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'DaemonSet',
  ...NODE_SET,
  preUpdate: {
    when: 'never',
    why: 'is not supported for a AdvancedDaemonSet: its controller chooses which pods a batch updates, so the hook could run on another pod; use OpenKruise\'s own lifecycle.preUpdate hook on the workload (postUpdate works)',
  },
} as const satisfies WorkloadType;
