// The workload kinds this product releases, as a Rollout's workloadRef names them (apiVersion +
// kind) and under the name the product gives each (`rollouts plan --kind`, the API, the claims).
// Pure data, a leaf: the rollout core validates specs against it without importing the drivers,
// and shared/workloads/registry.ts must map every entry to a driver — its type requires one per
// kind, and test/unit/workloads/registry.test.ts proves each driver serves exactly its entry. Two
// Kruise kinds share a Kubernetes kind name with a native one; their apiVersion tells them apart,
// and the product calls them AdvancedStatefulSet and AdvancedDaemonSet, as OpenKruise's docs do.

export interface WorkloadType {
  /** apiVersion of the workload, as written in spec.workloadRef. */
  readonly apiVersion: string;
  /** Kubernetes kind, as written in spec.workloadRef. */
  readonly kind: string;
  /**
   * The workload may run `updateStrategy.type: OnDelete` (its pods are replaced only when deleted),
   * so a Rollout may choose who deletes them (spec.onDeletePolicy).
   */
  readonly onDelete: boolean;
  /** What a batch counts: pods of the replicas, or nodes (pods on the nodes a DaemonSet schedules). */
  readonly counts: 'replicas' | 'nodes';
}

export const WORKLOAD_TYPES = Object.freeze({
  Deployment: { apiVersion: 'apps/v1', kind: 'Deployment', onDelete: false, counts: 'replicas' },
  StatefulSet: { apiVersion: 'apps/v1', kind: 'StatefulSet', onDelete: true, counts: 'replicas' },
  DaemonSet: { apiVersion: 'apps/v1', kind: 'DaemonSet', onDelete: true, counts: 'nodes' },
  CloneSet: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', onDelete: false, counts: 'replicas' },
  AdvancedStatefulSet: { apiVersion: 'apps.kruise.io/v1beta1', kind: 'StatefulSet', onDelete: true, counts: 'replicas' },
  AdvancedDaemonSet: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'DaemonSet', onDelete: true, counts: 'nodes' },
} as const satisfies Record<string, WorkloadType>);

export type WorkloadKind = keyof typeof WORKLOAD_TYPES;

export const WORKLOAD_KINDS = Object.freeze(Object.keys(WORKLOAD_TYPES) as WorkloadKind[]);

/** The product's kind for a workloadRef, or null when no driver releases it. */
export function workloadKindOf(apiVersion: string, kind: string): WorkloadKind | null {
  return WORKLOAD_KINDS.find((k) => WORKLOAD_TYPES[k].apiVersion === apiVersion && WORKLOAD_TYPES[k].kind === kind) ?? null;
}

/** "CloneSet (apps.kruise.io/v1alpha1)", "AdvancedStatefulSet (apps.kruise.io/v1beta1 StatefulSet)": for people. */
export function describeWorkloadType(kind: WorkloadKind): string {
  const t = WORKLOAD_TYPES[kind];
  return t.kind === kind ? `${kind} (${t.apiVersion})` : `${kind} (${t.apiVersion} ${t.kind})`;
}
