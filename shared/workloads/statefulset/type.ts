// What the rollout core may know of a StatefulSet and an Advanced StatefulSet
// (shared/rollout/workloadType.ts): gathered into shared/rollout/workloadKinds.generated.ts by
// scripts/generate.ts. Both are released one way (the partition), highest ordinal first, so a
// preUpdate can always run on the very pod a batch replaces.
import type { WorkloadType } from '../../rollout/workloadType.ts';

const ORDERED_SET = {
  counts: 'replicas',
  onDelete: true,
  strategies: [],
  scaledByUs: [],
  preUpdate: { when: 'always' },
  percentKeepsOldPod: false,
  blueGreen: false,
  runsBlueGreen: false,
  canaryWorkload: false,
  routesTraffic: false,
} as const;

export const STATEFULSET_TYPE = { apiVersion: 'apps/v1', kind: 'StatefulSet', ...ORDERED_SET } as const satisfies WorkloadType;

export const ADVANCED_STATEFULSET_TYPE = { apiVersion: 'apps.kruise.io/v1beta1', kind: 'StatefulSet', ...ORDERED_SET } as const satisfies WorkloadType;
