// What the rollout core knows of a workload kind: its identity and its capabilities, declared by the
// kind's driver (shared/workloads/<kind>/type.ts) and gathered into a generated table
// (shared/rollout/workloadKinds.generated.ts, written by scripts/generate.ts). The core plans over a
// kind-neutral view plus these capabilities, so it never compares a kind's name. A leaf: the
// strategies are defined here so the table and the core types can both use them.

/**
 * How a Deployment release moves pods (`spec.deploymentStrategy` of our apiVersion). MinReadySeconds
 * (seed 001, the default): the native RollingUpdate controller replaces pods, paced by inflated
 * minReadySeconds and a per-batch maxSurge/maxUnavailable. Partition: the Deployment stays paused
 * and we scale its ReplicaSets. The planner only records it and hands it to the driver.
 */
export const DEPLOYMENT_STRATEGIES = ['MinReadySeconds', 'Partition'] as const;
/**
 * Every strategy a release may run with: the in-place ones above, which spec.deploymentStrategy
 * chooses, and CanaryWorkload, which Kruise's `enableExtraWorkloadForCanary: true` chooses for the
 * kinds whose WorkloadType.canaryWorkload (a `<name>-canary` Deployment; docs/traffic.md).
 */
export const RELEASE_STRATEGIES = [...DEPLOYMENT_STRATEGIES, 'CanaryWorkload'] as const;
export type DeploymentStrategy = (typeof RELEASE_STRATEGIES)[number];

/** Whether a preUpdate pod hook can run before the very pod a batch replaces. */
export type PreUpdateCapability =
  | { readonly when: 'always' }
  /** Never, or only under one strategy; `why` is the reason the Rollout is refused otherwise. */
  | { readonly when: 'never' | DeploymentStrategy; readonly why: string };

export interface WorkloadType {
  /** apiVersion of the workload, as written in spec.workloadRef. */
  readonly apiVersion: string;
  /** Kubernetes kind, as written in spec.workloadRef. */
  readonly kind: string;
  /** What a batch counts: pods of the replicas, or nodes (pods on the nodes a DaemonSet schedules). */
  readonly counts: 'replicas' | 'nodes';
  /**
   * The workload may run `updateStrategy.type: OnDelete` (its pods are replaced only when deleted),
   * so a Rollout may choose who deletes them (spec.onDeletePolicy).
   */
  readonly onDelete: boolean;
  /**
   * The strategies (spec.deploymentStrategy) the kind can be released with, the default first; []
   * when it has one way of moving pods (the field is then refused).
   */
  readonly strategies: readonly DeploymentStrategy[];
  /**
   * Strategies under which the product scales the revisions itself: a held release then follows
   * the user's scale (shared/rollout/progression.ts followScale), as the native controller would.
   */
  readonly scaledByUs: readonly DeploymentStrategy[];
  readonly preUpdate: PreUpdateCapability;
  /**
   * How percents round: Kruise `NewRSReplicasLimit` — a percent other than the literal "100%" keeps
   * at least one old pod when N > 1 (90% of 5 → 4). Otherwise a plain ceil, clamped to N.
   */
  readonly percentKeepsOldPod: boolean;
  /** Kruise's blueGreenSupportWorkloadGVKs: the kind can be released blue-green. */
  readonly blueGreen: boolean;
  /**
   * The kind's driver runs a blue-green release (shared/rollout/blueGreen.ts: it reads a `distribute`
   * with `rollingStyle: 'BlueGreen'` as new pods beside the old); a blueGreen kind without it is
   * refused on apply as not yet runnable (shared/rollout/notYetRunnable.ts).
   */
  readonly runsBlueGreen: boolean;
  /** Kruise's IsRealPartition: enableExtraWorkloadForCanary makes a canary workload of this kind. */
  readonly canaryWorkload: boolean;
  /**
   * A release of the kind can route traffic (docs/traffic.md): its revisions carry a pod label the
   * traffic Services select on (the driver's revisionLabel, which it then declares).
   */
  readonly routesTraffic: boolean;
}
