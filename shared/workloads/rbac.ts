// The Kubernetes RBAC the product needs in a managed cluster: exactly the union of what the
// registry's drivers declare (WorkloadDriver.rbac), one rule per resource. infra/k8s/rollouts-rbac.yaml
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
}

const VERB_ORDER: readonly KubeVerb[] = ['get', 'list', 'watch', 'create', 'patch', 'delete'];

export function requiredRbac(drivers: readonly WorkloadDriver[]): RequiredRbac {
  return {
    reconcile: union(drivers.flatMap((d) => d.rbac.reconcile)),
    view: union(drivers.flatMap((d) => d.rbac.view)),
    hooks: union(drivers.flatMap((d) => d.rbac.hooks ?? [])),
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
