// The roles infra/k8s/rollouts-rbac.yaml documents as bound per namespace (pod hooks'
// serverless-rollouts-hooks, the canary Deployment's serverless-rollouts-canary): a test binds them
// in its namespace as an operator would, so the code under test runs as the documented roles and no more.
import { AuthorizationV1Api, RbacAuthorizationV1Api, type KubeConfig, type V1ResourceAttributes } from '@kubernetes/client-node';
import { ROLLOUTS_GROUP, ROLLOUTS_USER } from '../../shared/adapters/local/controlPlane.ts';
import { CANARY_CLUSTER_ROLE, HOOKS_CLUSTER_ROLE } from '../../shared/kube/roles.ts';
import { waitFor } from '../../bench/testbed/wait.ts';

/** A RoleBinding of `role` to the product's group in `namespace`, waited on until `grants` is allowed. */
async function bindRole(admin: KubeConfig, namespace: string, role: string, grants: V1ResourceAttributes): Promise<void> {
  await admin.makeApiClient(RbacAuthorizationV1Api).createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name: role },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: ROLLOUTS_GROUP }],
    },
  });
  const authorization = admin.makeApiClient(AuthorizationV1Api);
  await waitFor(async () => {
    const review = await authorization.createSubjectAccessReview({
      body: { spec: { user: ROLLOUTS_USER, groups: [ROLLOUTS_GROUP], resourceAttributes: { namespace, ...grants } } },
    });
    return review.status?.allowed;
  }, { message: `RBAC to allow ${ROLLOUTS_USER} ${grants.verb} ${grants.resource}${grants.subresource ? `/${grants.subresource}` : ''} in ${namespace}` });
}

export async function bindHooksRole(admin: KubeConfig, namespace: string): Promise<void> {
  await bindRole(admin, namespace, HOOKS_CLUSTER_ROLE, { resource: 'pods', subresource: 'exec', verb: 'create' });
}

export async function bindCanaryRole(admin: KubeConfig, namespace: string): Promise<void> {
  await bindRole(admin, namespace, CANARY_CLUSTER_ROLE, { group: 'apps', resource: 'deployments', verb: 'create' });
}
