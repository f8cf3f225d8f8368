// The workload kinds this product releases, as a Rollout's workloadRef names them (apiVersion +
// kind) and under the name the product gives each (`rollouts plan --kind`, the API, the claims),
// with what each can do (shared/rollout/workloadType.ts). The table is generated from the drivers'
// own declarations (shared/workloads/*/type.ts, by scripts/generate.ts), so the core reads a kind's
// capabilities without importing the drivers; shared/workloads/registry.ts maps every entry to a
// driver, and a driver registered at run time (registerDriver there) adds its kind here. Two Kruise
// kinds share a Kubernetes kind name with a native one; their apiVersion tells them apart, and the
// product calls them AdvancedStatefulSet and AdvancedDaemonSet, as OpenKruise's docs do.
import { GENERATED_WORKLOAD_TYPES } from './workloadKinds.generated.ts';
import type { WorkloadType } from './workloadType.ts';

export type { WorkloadType } from './workloadType.ts';

/** The product's name of a kind the generated table lists. */
export type WorkloadKind = keyof typeof GENERATED_WORKLOAD_TYPES;

/** The kinds of the generated table: the product's own. */
export const WORKLOAD_TYPES: Readonly<Record<WorkloadKind, WorkloadType>> = GENERATED_WORKLOAD_TYPES;

export const WORKLOAD_KINDS = Object.freeze(Object.keys(WORKLOAD_TYPES) as WorkloadKind[]);

/** Kinds added at run time by shared/workloads/registry.ts registerDriver (a kind outside the table). */
const registered = new Map<string, WorkloadType>();

/**
 * Adds a kind the generated table does not list. Refused for a name or a workloadRef
 * (apiVersion + kind) already known: two drivers for one kind would be a bug.
 */
export function registerWorkloadType(name: string, type: WorkloadType): void {
  if (knownWorkloadKinds().includes(name as WorkloadKind)) throw new Error(`workload kind ${name} is already known`);
  const taken = workloadKindOf(type.apiVersion, type.kind);
  if (taken !== null) throw new Error(`workload kind ${name}: ${type.apiVersion} ${type.kind} is already the kind ${taken}`);
  registered.set(name, Object.freeze({ ...type }));
}

/** Every kind known: the table's, then those registered at run time. */
export function knownWorkloadKinds(): WorkloadKind[] {
  return [...WORKLOAD_KINDS, ...(registered.keys() as Iterable<WorkloadKind>)];
}

/** The identity and capabilities of a kind. */
export function workloadTypeOf(kind: WorkloadKind): WorkloadType {
  const type = (WORKLOAD_TYPES as Readonly<Record<string, WorkloadType>>)[kind] ?? registered.get(kind);
  if (!type) throw new Error(`unknown workload kind ${String(kind)}`);
  return type;
}

/** The product's kind for a workloadRef, or null when no driver releases it. */
export function workloadKindOf(apiVersion: string, kind: string): WorkloadKind | null {
  return knownWorkloadKinds().find((k) => workloadTypeOf(k).apiVersion === apiVersion && workloadTypeOf(k).kind === kind) ?? null;
}

/** "CloneSet (apps.kruise.io/v1alpha1)", "AdvancedStatefulSet (apps.kruise.io/v1beta1 StatefulSet)": for people. */
export function describeWorkloadType(kind: WorkloadKind): string {
  const t = workloadTypeOf(kind);
  return t.kind === kind ? `${kind} (${t.apiVersion})` : `${kind} (${t.apiVersion} ${t.kind})`;
}
