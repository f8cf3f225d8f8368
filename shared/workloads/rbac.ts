// The Kubernetes RBAC the product needs in a managed cluster: exactly the union of what the
// registry's drivers declare (WorkloadDriver.rbac) and the traffic providers (shared/traffic/rbac.ts), one rule per resource. infra/k8s/rollouts-rbac.yaml
// is the documented manifest operators apply; test/unit/workloads/rbac.test.ts proves it grants
// this and nothing else, and every integration test runs as the user that manifest binds.
import type { KubeVerb, ResourceAccess, WorkloadDriver } from './driver.ts';

export interface RequiredRbac {
  /** The ClusterRole `serverless-rollouts` (reconcile and watch-proxy functions). */
  reconcile: ResourceAccess[];
  /** The ClusterRole `serverless-rollouts-view` (the API's read-only workload route). */
  view: ResourceAccess[];
  /** The ClusterRole `serverless-rollouts-hooks` (pod hooks), bound per namespace where hooks run. */
  hooks: ResourceAccess[];
  /** The ClusterRole `serverless-rollouts-canary` (the canary Deployment), bound per namespace where Rollouts use it. */
  canary: ResourceAccess[];
}

const VERB_ORDER: readonly KubeVerb[] = ['get', 'list', 'watch', 'create', 'patch', 'delete'];

/**
 * `others`: grants of units beside the drivers, in the drivers' shape: the traffic providers and the
 * Services they route between (shared/traffic/rbac.ts adds them; the whole product's role is that).
 */
export function requiredRbac(drivers: readonly WorkloadDriver[], others: readonly { reconcile: readonly ResourceAccess[]; view?: readonly ResourceAccess[] }[] = []): RequiredRbac {
  return {
    reconcile: union([...drivers.flatMap((d) => d.rbac.reconcile), ...others.flatMap((o) => o.reconcile)]),
    // The API's workload route reads a routed Rollout's router and Services too (shared/api/workloadRoutes.ts).
    view: union([...drivers.flatMap((d) => d.rbac.view), ...others.flatMap((o) => o.view ?? [])]),
    hooks: union(drivers.flatMap((d) => d.rbac.hooks ?? [])),
    canary: union(drivers.flatMap((d) => d.rbac.canaryWorkload ?? [])),
  };
}

/** One entry per (group, resource), verbs in the usual order; sorted by group, then resource. */
function union(grants: readonly ResourceAccess[]): ResourceAccess[] {
  const byResource = new Map<string, { apiGroup: string; resource: string; verbs: Set<KubeVerb> }>();
  for (const g of grants) {
    const key = `${g.apiGroup}/${g.resource}`;
    const entry = byResource.get(key) ?? { apiGroup: g.apiGroup, resource: g.resource, verbs: new Set<KubeVerb>() };
    for (const v of g.verbs) entry.verbs.add(v);
    byResource.set(key, entry);
  }
  return [...byResource.values()]
    .sort((a, b) => a.apiGroup.localeCompare(b.apiGroup) || a.resource.localeCompare(b.resource))
    .map((e) => ({ apiGroup: e.apiGroup, resource: e.resource, verbs: VERB_ORDER.filter((v) => e.verbs.has(v)) }));
}
