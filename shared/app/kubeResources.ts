// The custom resources the Kubernetes adapter serves, as the drivers declare them (each one's
// workload and watches, shared/workloads/registry.ts), for every composition root that builds a
// cluster client. Here, not in the adapter, because the drivers and the adapter import nothing of
// each other (shared/ports.ts).
import { declaredResources, type KubeResource } from '../adapters/kubernetes/kinds.ts';
import { WORKLOAD_DRIVERS } from '../workloads/registry.ts';
import { TRAFFIC_RESOURCES } from '../traffic/registry.ts';

/** The drivers' kinds and the traffic providers' (routers and Services, shared/traffic/registry.ts). */
export const WORKLOAD_RESOURCES: readonly KubeResource[] = [...declaredResources(Object.values(WORKLOAD_DRIVERS)), ...TRAFFIC_RESOURCES];
