// The deployment the deployed-path tests make: the stack synthesized for the test account in
// LocalStack's region, with deploy parameters that reach every branch of the cluster wiring: an EKS
// cluster in the stack's account (DescribeCluster, access entries), a cluster registered by
// endpoint whose token secret is in the stack's account (GetSecretValue on it), and two clusters
// registered by endpoint, each in an account of its own behind a role there (sts:AssumeRole; the
// token secret lives in that account). The same synthesized assembly serves the Lambda-runtime tests (its
// bundles and environment) and the `cdklocal deploy` test (cloudAssembly.ts).
import { synthesizedStack, type CloudAssembly } from './cloudAssembly.ts';
import { TEST_ACCOUNT, TEST_REGION } from './testAccount.ts';

/** A cluster in an account of its own, reached through a role there. */
export interface AccountCluster {
  name: string;
  /** LocalStack derives the account from a 12-digit access key id: these keys act in it. */
  account: string;
  roleArn: string;
  /** The name of its token secret in its account. */
  secretName: string;
}

export const ALPHA: AccountCluster = {
  name: 'alpha', account: '111111111111', roleArn: 'arn:aws:iam::111111111111:role/rollouts-access-alpha', secretName: 'rollouts/alpha-token',
};
export const BETA: AccountCluster = {
  name: 'beta', account: '222222222222', roleArn: 'arn:aws:iam::222222222222:role/rollouts-access-beta', secretName: 'rollouts/beta-token',
};

/** The endpoint cluster of deployed.bundles.test.ts: its token secret in the stack's account, no role. */
export const EDGE = { name: 'edge', secretName: 'rollouts/edge-token' };

/**
 * The secret ARN the deploy parameters name. Secrets Manager appends a random 6-character suffix
 * when the secret is made, so a deployment lists the ARN of a secret that exists; the synthesized
 * policy needs only its shape.
 */
export function listedSecretArn(cluster: { secretName: string; account?: string }): string {
  return `arn:aws:secretsmanager:${TEST_REGION}:${cluster.account ?? TEST_ACCOUNT}:secret:${cluster.secretName}-Ab12Cd`;
}

export const TEST_DEPLOY_CONTEXT = {
  clusters: [
    { name: 'prod', eksClusterName: 'prod-eks' },
    { name: EDGE.name, tokenSecretArn: listedSecretArn(EDGE) },
    ...[ALPHA, BETA].map((c) => ({ name: c.name, tokenSecretArn: listedSecretArn(c), roleArn: c.roleArn })),
  ],
};

export function testDeployment(): Promise<CloudAssembly> {
  return synthesizedStack({ account: TEST_ACCOUNT, region: TEST_REGION, context: TEST_DEPLOY_CONTEXT });
}
