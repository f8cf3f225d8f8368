// The product's Kubernetes RBAC: the workload drivers' grants and the traffic providers', with the
// Services every provider routes between (SERVICES_RBAC). scripts/generate.ts writes the rules of
// infra/k8s/rollouts-rbac.yaml from this (test/unit/workloads/rbac.test.ts checks it grants exactly this). The reconcile role takes the providers'
// `reconcile` grants; the API's read-only role their `view` grants (get/list), for the workload route's
// reading of a routed Rollout's router and Services (shared/api/workloadRoutes.ts, the dashboard's traffic).
import { requiredRbac, type RequiredRbac } from '../workloads/rbac.ts';
import { WORKLOAD_DRIVERS } from '../workloads/registry.ts';
import type { ProviderRbac } from './provider.ts';
import { SERVICES_RBAC, TRAFFIC_PROVIDERS } from './registry.ts';

/** The traffic providers' grants, then the Services', in the drivers' shape. */
export function trafficGrants(): ProviderRbac[] {
  return [...Object.values(TRAFFIC_PROVIDERS).map((p) => p.rbac), SERVICES_RBAC];
}

export function productRbac(): RequiredRbac {
  return requiredRbac(Object.values(WORKLOAD_DRIVERS), trafficGrants());
}
