// The names infra/k8s/rollouts-rbac.yaml gives what it grants: the ClusterRoles and the groups that
// are bound to them. The reconcile and watch-proxy functions map to the write group, the API to the
// read-only one (infra/constructs/ClusterAccess.ts); pod hooks and the canary Deployment need their
// roles bound per namespace.

/** The ClusterRole of pod hooks: bound per namespace where Rollouts use hooks, never cluster-wide. */
export const HOOKS_CLUSTER_ROLE = 'serverless-rollouts-hooks';

/**
 * The ClusterRole of the canary Deployment (Kruise's enableExtraWorkloadForCanary): creating and
 * deleting Deployments, which RBAC cannot limit to the `<name>-canary` ones, so it is bound per
 * namespace where Rollouts use it, never cluster-wide.
 */
export const CANARY_CLUSTER_ROLE = 'serverless-rollouts-canary';

/** The ClusterRole of the reconcile and watch-proxy functions (bound to the group of the same name). */
export const ROLLOUTS_CLUSTER_ROLE = 'serverless-rollouts';

/** The read-only ClusterRole of the API (bound to the group of the same name). */
export const VIEW_CLUSTER_ROLE = 'serverless-rollouts-view';
