// What the rollout core may know of a Deployment (shared/rollout/workloadType.ts): gathered into
// shared/rollout/workloadKinds.generated.ts by scripts/generate.ts.
import type { WorkloadType } from '../../rollout/workloadType.ts';

export const DEPLOYMENT_TYPE = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  counts: 'replicas',
  onDelete: false,
  // MinReadySeconds first: the default (README "Deployment strategies").
  strategies: ['MinReadySeconds', 'Partition'],
  // Partition scales the ReplicaSets of a paused Deployment; nothing else scales them then.
  scaledByUs: ['Partition'],
  // With MinReadySeconds the Deployment controller deletes old pods itself, when its budget allows.
  preUpdate: {
    when: 'Partition',
    why: 'on a Deployment needs spec.deploymentStrategy: Partition: with MinReadySeconds (the default) the Deployment controller deletes old pods by itself, so no hook can be sure to run first',
  },
  percentKeepsOldPod: true,
  blueGreen: true,
  // The new revision beside the old through maxSurge (blueGreenPace.ts).
  runsBlueGreen: true,
  canaryWorkload: true,
  // Its ReplicaSets' pod-template-hash tells the revisions apart (the driver's revisionLabel).
  routesTraffic: true,
} as const satisfies WorkloadType;
