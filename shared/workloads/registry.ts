// The one list of workload kinds this product can release, each with its driver. Every composition
// root (the Lambdas, local mode, the engine test fixture) takes its drivers from here and the API
// accepts exactly these kinds, so apply can never accept a kind that reconcile cannot run.
// The drivers only use the ClusterClient port: importing this module does not load the Kubernetes
// client, so the sweep and API bundles can carry it.
import type { WorkloadKind } from '../rollout/types.ts';
import { deploymentDriver } from './deployment/driver.ts';
import type { WorkloadDriver } from './driver.ts';
import { statefulSetDriver } from './statefulset/driver.ts';

export const WORKLOAD_DRIVERS: Readonly<Partial<Record<WorkloadKind, WorkloadDriver>>> = Object.freeze({
  Deployment: deploymentDriver,
  StatefulSet: statefulSetDriver,
});

/** Workload kinds with a driver; apply refuses the others (422). */
export const SUPPORTED_KINDS: readonly WorkloadKind[] = Object.freeze(Object.keys(WORKLOAD_DRIVERS) as WorkloadKind[]);
