// What the rollout core may know of a CloneSet (shared/rollout/workloadType.ts): gathered into
// shared/rollout/workloadKinds.generated.ts by scripts/generate.ts.
import type { WorkloadType } from '../../rollout/workloadType.ts';

export const CLONESET_TYPE = {
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'CloneSet',
  counts: 'replicas',
  onDelete: false,
  strategies: [],
  scaledByUs: [],
  // Its controller chooses which pods a partition updates (priority, scatter): a preUpdate of ours
  // could run on another pod than the one updated. Kruise's own hooks cannot.
  preUpdate: {
    when: 'never',
    why: 'is not supported for a CloneSet: its controller chooses which pods a batch updates, so the hook could run on another pod; use OpenKruise\'s own lifecycle.preUpdate hook on the workload (postUpdate works)',
  },
  percentKeepsOldPod: false,
  blueGreen: true,
  // Kruise's CloneSet blue-green (maxSurge, ReCreate) is not ported yet (docs/traffic.md).
  runsBlueGreen: false,
  canaryWorkload: false,
  routesTraffic: false,
} as const satisfies WorkloadType;
