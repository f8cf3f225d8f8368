// The documented least-privilege role is exactly what the registry's drivers need: every verb a
// driver declares is granted, and nothing is granted that no driver declares.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KUBERNETES_GROUP, KUBERNETES_VIEW_GROUP } from '../../../infra/constructs/ClusterAccess.ts';
import { CANARY_CLUSTER_ROLE, HOOKS_CLUSTER_ROLE } from '../../../shared/kube/roles.ts';
import { productRbac } from '../../../shared/traffic/rbac.ts';
import { clusterRole, grantsOfAccess, grantsOfRules, rbacDocuments } from '../../support/rbacManifest.ts';

const required = productRbac();

/** The rules the manifest should carry, as YAML, for the failure message. */
function asYaml(access: typeof required.reconcile): string {
  return access.map((a) => `  - apiGroups: ["${a.apiGroup}"]\n    resources: ["${a.resource}"]\n    verbs: [${a.verbs.map((v) => `"${v}"`).join(', ')}]`).join('\n');
}

describe('infra/k8s/rollouts-rbac.yaml', () => {
  it(`grants the ${KUBERNETES_GROUP} group exactly the union of the drivers' reconcile needs`, () => {
    assert.deepEqual(grantsOfRules(clusterRole(KUBERNETES_GROUP).rules), grantsOfAccess(required.reconcile), `expected rules:\n${asYaml(required.reconcile)}`);
  });

  it(`grants the read-only ${KUBERNETES_VIEW_GROUP} group exactly what the drivers' observe reads`, () => {
    assert.deepEqual(grantsOfRules(clusterRole(KUBERNETES_VIEW_GROUP).rules), grantsOfAccess(required.view), `expected rules:\n${asYaml(required.view)}`);
  });

  it(`grants pod hooks (exec, pod-deletion-cost) only in ${HOOKS_CLUSTER_ROLE}, which nothing binds cluster-wide`, () => {
    assert.deepEqual(grantsOfRules(clusterRole(HOOKS_CLUSTER_ROLE).rules), grantsOfAccess(required.hooks), `expected rules:\n${asYaml(required.hooks)}`);
    assert.deepEqual(grantsOfAccess(required.hooks), ['/pods patch', '/pods/exec create', '/pods/exec get']);
    const bindings = rbacDocuments().filter((d) => d.kind === 'ClusterRoleBinding' && d.roleRef.name === HOOKS_CLUSTER_ROLE);
    assert.deepEqual(bindings, [], 'bound per namespace with a RoleBinding, where Rollouts use hooks');
    const reconcile = new Set(grantsOfRules(clusterRole(KUBERNETES_GROUP).rules));
    assert.ok(!reconcile.has('/pods/exec create') && !reconcile.has('/pods patch'), 'the cluster-wide role has no exec and no pod patch');
  });

  it(`grants creating and deleting Deployments (the canary Deployment) only in ${CANARY_CLUSTER_ROLE}, which nothing binds cluster-wide`, () => {
    assert.deepEqual(grantsOfRules(clusterRole(CANARY_CLUSTER_ROLE).rules), grantsOfAccess(required.canary), `expected rules:\n${asYaml(required.canary)}`);
    assert.deepEqual(grantsOfAccess(required.canary), ['apps/deployments create', 'apps/deployments delete']);
    const bindings = rbacDocuments().filter((d) => d.kind === 'ClusterRoleBinding' && d.roleRef.name === CANARY_CLUSTER_ROLE);
    assert.deepEqual(bindings, [], 'bound per namespace with a RoleBinding, where Rollouts use the canary style');
    const reconcile = new Set(grantsOfRules(clusterRole(KUBERNETES_GROUP).rules));
    assert.ok(!reconcile.has('apps/deployments create') && !reconcile.has('apps/deployments delete'), 'the cluster-wide role creates and deletes no workload');
  });

  it('covers the Kruise workloads, and the watch of every kind', () => {
    const grants = new Set(grantsOfRules(clusterRole(KUBERNETES_GROUP).rules));
    for (const resource of ['clonesets', 'statefulsets', 'daemonsets']) {
      for (const verb of ['get', 'list', 'watch', 'patch']) assert.ok(grants.has(`apps.kruise.io/${resource} ${verb}`), `${resource} ${verb}`);
    }
  });

  it('merges what several drivers declare for one resource into one rule, verbs in order', () => {
    const pods = required.reconcile.find((a) => a.apiGroup === '' && a.resource === 'pods');
    assert.deepEqual(pods?.verbs, ['list', 'delete']);
  });
});
