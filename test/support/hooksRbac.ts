// Pod hooks need the documented ClusterRole serverless-rollouts-hooks (infra/k8s/rollouts-rbac.yaml),
// which operators bind per namespace: a test does the same for its namespace, so the code under
// test runs as the documented role and no more.
import { AuthorizationV1Api, RbacAuthorizationV1Api, type KubeConfig } from '@kubernetes/client-node';
import { ROLLOUTS_GROUP, ROLLOUTS_USER } from '../../shared/adapters/local/controlPlane.ts';
import { HOOKS_CLUSTER_ROLE } from '../../shared/kube/roles.ts';
import { waitFor } from '../../bench/testbed/wait.ts';

export async function bindHooksRole(admin: KubeConfig, namespace: string): Promise<void> {
  await admin.makeApiClient(RbacAuthorizationV1Api).createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name: HOOKS_CLUSTER_ROLE },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: HOOKS_CLUSTER_ROLE },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: ROLLOUTS_GROUP }],
    },
  });
  const authorization = admin.makeApiClient(AuthorizationV1Api);
  await waitFor(async () => {
    const review = await authorization.createSubjectAccessReview({
      body: { spec: { user: ROLLOUTS_USER, groups: [ROLLOUTS_GROUP], resourceAttributes: { namespace, resource: 'pods', subresource: 'exec', verb: 'create' } } },
    });
    return review.status?.allowed;
  }, { message: `RBAC to allow ${ROLLOUTS_USER} exec in ${namespace}` });
}
