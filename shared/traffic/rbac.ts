// The product's Kubernetes RBAC: the workload drivers' grants and the traffic providers', with the
// Services every provider routes between (SERVICES_RBAC). infra/k8s/rollouts-rbac.yaml grants
// exactly this (test/unit/workloads/rbac.test.ts). Only the reconcile role takes the providers'
// grants: the API's read-only routes read no router (their `view` grants wait for a route that does).
import { requiredRbac, type RequiredRbac } from '../workloads/rbac.ts';
import { WORKLOAD_DRIVERS } from '../workloads/registry.ts';
import { SERVICES_RBAC, TRAFFIC_PROVIDERS } from './registry.ts';

export function productRbac(): RequiredRbac {
  return requiredRbac(Object.values(WORKLOAD_DRIVERS), [...Object.values(TRAFFIC_PROVIDERS).map((p) => p.rbac), SERVICES_RBAC]);
}
