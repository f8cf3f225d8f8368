// Who local mode is on the cluster of the user's kubeconfig (issue 21). The admission policy
// serverless-rollouts-partition-hold (infra/k8s/rollouts-rbac.yaml) denies unpausing a Deployment
// held for a Partition release to everyone outside the group `serverless-rollouts`, so a Partition
// release driven with the user's own identity had its finalizing patch denied. When the user may
// impersonate the product's identity (user and group `serverless-rollouts`, what the manifest binds),
// and that identity holds the manifest's role, local mode acts as it: with exactly the product's
// least-privilege role, the same identity the deployed reconciler has. Otherwise it runs as the user,
// and where the policy exists (or cannot be read) a Partition Rollout is refused at apply, saying
// what to grant. Checked once at start with SelfSubjectAccessReviews, which every user may create.
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeHttpError, KubeTransport, type Impersonation } from '../adapters/kubernetes/transport.ts';

/** The identity infra/k8s/rollouts-rbac.yaml binds (ClusterRoleBinding serverless-rollouts, group subject). */
export const PRODUCT_IDENTITY: Impersonation = { user: 'serverless-rollouts', groups: ['serverless-rollouts'] };
export const PARTITION_HOLD_POLICY = 'serverless-rollouts-partition-hold';

const TIMEOUT_MS = 10_000;
/** Start-up questions asked again on 429/5xx: the answer decides what local mode may run. */
const ATTEMPTS = 5;
const RETRY_MS = 200;

export type LocalIdentity =
  | { kind: 'product'; impersonate: Impersonation }
  /** `partitionRefusal`: why a Partition Rollout cannot be applied here, or null when it can. */
  | { kind: 'own'; partitionRefusal: string | null };

interface ResourceAttributes { verb: string; group?: string; resource: string; name?: string }

export async function chooseIdentity(kc: KubeConfig): Promise<LocalIdentity> {
  const own = new KubeTransport(kc);
  // Already in the group the policy exempts (a kubeconfig issued for the product's identity): nothing to take.
  if ((await ownGroups(own))?.includes(PRODUCT_IDENTITY.groups[0] ?? '')) return { kind: 'own', partitionRefusal: null };
  const mayImpersonate = await allowed(own, { verb: 'impersonate', resource: 'users', name: PRODUCT_IDENTITY.user }) &&
    await allowed(own, { verb: 'impersonate', resource: 'groups', name: PRODUCT_IDENTITY.groups[0] ?? '' });
  // The product's identity is only worth taking when the manifest gives it its role here.
  if (mayImpersonate && await allowed(new KubeTransport(kc, PRODUCT_IDENTITY), { verb: 'patch', group: 'apps', resource: 'deployments' })) {
    return { kind: 'product', impersonate: PRODUCT_IDENTITY };
  }
  if (!(await policyMayExist(own))) return { kind: 'own', partitionRefusal: null };
  const user = kc.getCurrentUser()?.name ?? 'the kubeconfig\'s user';
  return {
    kind: 'own',
    partitionRefusal:
      `local mode drives this cluster as ${user}, which is not in the group ${PRODUCT_IDENTITY.groups.join(', ')} that the admission policy ` +
      `${PARTITION_HOLD_POLICY} (infra/k8s/rollouts-rbac.yaml) exempts, and ${mayImpersonate ? 'the group has no role here' : 'may not impersonate it'}: ` +
      'the finalizing patch of a Partition release would be denied. Grant it `impersonate` on users and groups named serverless-rollouts ' +
      '(and apply infra/k8s/rollouts-rbac.yaml), then restart local mode; or use deploymentStrategy MinReadySeconds',
  };
}

/** The groups the apiserver authenticates the transport's identity into (SelfSubjectReview), or null when it will not say. */
async function ownGroups(transport: KubeTransport): Promise<string[] | null> {
  const res = await answered(() => transport.send({
    method: 'POST', path: '/apis/authentication.k8s.io/v1/selfsubjectreviews', timeoutMs: TIMEOUT_MS,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  }));
  if (res === null) return null;
  return (JSON.parse(res.body) as { status?: { userInfo?: { groups?: string[] } } }).status?.userInfo?.groups ?? [];
}

/** The answer, asked again on an overloaded or failing apiserver (429, 5xx); null when it refuses (4xx). */
async function answered<T>(ask: () => Promise<T>): Promise<T | null> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ask();
    } catch (err) {
      if (!(err instanceof KubeHttpError)) throw err;
      if ((err.code !== 429 && err.code < 500) || attempt === ATTEMPTS) return null;
      await sleep(RETRY_MS * attempt);
    }
  }
}

/** One SelfSubjectAccessReview: may the transport's identity do this (cluster-wide)? */
async function allowed(transport: KubeTransport, attributes: ResourceAttributes): Promise<boolean> {
  // An identity that may not even ask (403) may not do it.
  const res = await answered(() => transport.send({
    method: 'POST', path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', timeoutMs: TIMEOUT_MS,
    body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: attributes } },
  }));
  return res !== null && (JSON.parse(res.body) as { status?: { allowed?: boolean } }).status?.allowed === true;
}

/** False only when the apiserver says the policy does not exist (404); a 403 cannot tell. */
async function policyMayExist(transport: KubeTransport): Promise<boolean> {
  try {
    await transport.send({ method: 'GET', path: `/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/${PARTITION_HOLD_POLICY}`, timeoutMs: TIMEOUT_MS });
    return true;
  } catch (err) {
    if (err instanceof KubeHttpError) return err.code !== 404;
    throw err;
  }
}
