// The one list of workload drivers: one per kind of the core's generated table
// (shared/rollout/workloadKinds.generated.ts, written from these drivers by scripts/generate.ts),
// which the type below requires (a kind without a driver does not compile), and
// test/unit/workloads/registry.test.ts proves each serves exactly its kind's apiVersion and
// Kubernetes kind. Every composition root (the Lambdas, local mode, the engine test fixture) takes
// its drivers from here; the watch-proxy's catalogue and the documented RBAC
// (infra/k8s/rollouts-rbac.yaml) are derived from them. Adding a kind is its folder and one line
// here (then scripts/generate.ts); registerDriver adds one at run time, as
// test/unit/workloads/seventhKind/seventhKind.test.ts does.
// The drivers only use the ClusterClient port: importing this module does not load the Kubernetes
// client, so the sweep and API bundles can carry it.
import type { WorkloadKind } from '../rollout/types.ts';
import { WORKLOAD_KINDS, registerWorkloadType } from '../rollout/workloadKinds.ts';
import { cloneSetDriver } from './cloneset/driver.ts';
import { advancedDaemonSetDriver, daemonSetDriver } from './daemonset/driver.ts';
import { deploymentDriver } from './deployment/driver.ts';
import type { WorkloadDriver } from './driver.ts';
import { advancedStatefulSetDriver, statefulSetDriver } from './statefulset/driver.ts';

export const WORKLOAD_DRIVERS: Readonly<{ [K in WorkloadKind]: WorkloadDriver<K> }> = Object.freeze({
  Deployment: deploymentDriver,
  StatefulSet: statefulSetDriver,
  DaemonSet: daemonSetDriver,
  CloneSet: cloneSetDriver,
  AdvancedStatefulSet: advancedStatefulSetDriver,
  AdvancedDaemonSet: advancedDaemonSetDriver,
});

/** Workload kinds with a driver: all of them (the registry is complete by type). */
export const SUPPORTED_KINDS: readonly WorkloadKind[] = WORKLOAD_KINDS;

/** Drivers added at run time, for kinds outside the generated table. */
const registered = new Map<string, WorkloadDriver>();

/**
 * Adds a driver for a kind the generated table does not list: the core learns its type (its
 * identity and capabilities) and driverFor serves it. A kind already known is refused.
 */
export function registerDriver(driver: WorkloadDriver): void {
  registerWorkloadType(driver.kind, driver.type);
  registered.set(driver.kind, driver);
}

/** The driver of a kind: the registry's, or one registered at run time. */
export function driverFor(kind: WorkloadKind): WorkloadDriver {
  const driver = (WORKLOAD_DRIVERS as Readonly<Record<string, WorkloadDriver>>)[kind] ?? registered.get(kind);
  if (!driver) throw new Error(`no driver for workload kind ${String(kind)}`);
  return driver;
}
