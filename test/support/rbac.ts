// Extra RBAC for one test: a ClusterRole bound to a user (by default the product's least-privilege
// user), effective when this returns. For tests of components the documented role does not cover
// yet (e.g. Kruise kinds before their drivers declare RBAC), never to widen what the product gets.
import { AuthorizationV1Api, RbacAuthorizationV1Api, type KubeConfig, type V1PolicyRule } from '@kubernetes/client-node';
import { ROLLOUTS_USER } from '../../shared/adapters/local/controlPlane.ts';
import { waitFor } from '../../bench/testbed/wait.ts';

export interface ClusterRoleGrant {
  /** Name of the ClusterRole and its ClusterRoleBinding. */
  name: string;
  rules: V1PolicyRule[];
  /** Default: the `serverless-rollouts` user. */
  user?: string;
}

/** Creates the ClusterRole and binding, waits until the authorizer allows each rule's first verb, and returns the undo. */
export async function grantClusterRole(admin: KubeConfig, grant: ClusterRoleGrant): Promise<() => Promise<void>> {
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  const user = grant.user ?? ROLLOUTS_USER;
  await rbac.createClusterRole({ body: { metadata: { name: grant.name }, rules: grant.rules } });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: grant.name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: grant.name },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    },
  });
  const authorization = admin.makeApiClient(AuthorizationV1Api);
  for (const rule of grant.rules) {
    const resourceAttributes = { group: rule.apiGroups?.[0] ?? '', resource: rule.resources?.[0], verb: rule.verbs[0] };
    await waitFor(async () => {
      const review = await authorization.createSubjectAccessReview({ body: { spec: { user, resourceAttributes } } });
      return review.status?.allowed;
    }, { message: `RBAC to allow ${user} ${resourceAttributes.verb} ${resourceAttributes.resource}.${resourceAttributes.group}` });
  }
  return async () => {
    await rbac.deleteClusterRoleBinding({ name: grant.name });
    await rbac.deleteClusterRole({ name: grant.name });
  };
}
