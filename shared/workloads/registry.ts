// The one list of workload drivers: one per kind of shared/rollout/workloadKinds.ts, which the type
// below requires (a kind without a driver does not compile), and test/unit/workloads/registry.test.ts
// proves each serves exactly its kind's apiVersion and Kubernetes kind. Every composition root (the
// Lambdas, local mode, the engine test fixture) takes its drivers from here; the watch-proxy's
// catalogue and the documented RBAC (infra/k8s/rollouts-rbac.yaml) are derived from them.
// The drivers only use the ClusterClient port: importing this module does not load the Kubernetes
// client, so the sweep and API bundles can carry it.
import type { WorkloadKind } from '../rollout/types.ts';
import { WORKLOAD_KINDS } from '../rollout/workloadKinds.ts';
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
