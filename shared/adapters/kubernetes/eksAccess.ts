// AWS-side pieces of reaching a cluster: DescribeCluster (endpoint + CA), cross-account role
// credentials, and the token-bearing KubeConfig the typed APIs read on every request.
import { DescribeClusterCommand, EKSClient, type DescribeClusterCommandOutput } from '@aws-sdk/client-eks';
import { fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import { KubeConfig } from '@kubernetes/client-node';
import { ConfigError, NotFoundError } from '../../errors.ts';
import type { Clock } from '../../reconcile/ports.ts';
import type { AwsCredentials, AwsCredentialsProvider } from './eksToken.ts';

/** What we need of an EKSClient; a hand-written stand-in in unit tests. */
export interface EksDescriber {
  send(command: DescribeClusterCommand): Promise<DescribeClusterCommandOutput>;
}
export type EksClientFactory = (region: string, credentials: AwsCredentialsProvider) => EksDescriber;
export type AssumeRole = (roleArn: string, base: AwsCredentialsProvider, region: string) => AwsCredentialsProvider;

/** The regular client; it honours AWS_ENDPOINT_URL(_EKS) for emulators. */
export const defaultEksClient: EksClientFactory = (region, credentials) => new EKSClient({ region, credentials });

export const ROLE_SESSION_NAME = 'serverless-rollouts';

export const defaultAssumeRole: AssumeRole = (roleArn, base, region) =>
  fromTemporaryCredentials({
    masterCredentials: base,
    params: { RoleArn: roleArn, RoleSessionName: ROLE_SESSION_NAME },
    clientConfig: { region },
  });

/**
 * Reuses credentials until 5 minutes before they expire. fromTemporaryCredentials calls
 * AssumeRole on every invocation, and both DescribeCluster and each token signing ask for them.
 */
export function memoizeCredentials(provider: AwsCredentialsProvider, clock: Clock): AwsCredentialsProvider {
  let cached: Promise<AwsCredentials> | undefined;
  let expiresAt = Number.POSITIVE_INFINITY;
  return async () => {
    if (cached && clock.now().getTime() < expiresAt - 5 * 60_000) return cached;
    const pending = provider();
    cached = pending;
    try {
      const creds = await pending;
      expiresAt = creds.expiration?.getTime() ?? Number.POSITIVE_INFINITY;
      return creds;
    } catch (err) {
      cached = undefined; // never cache a failure
      throw err;
    }
  };
}

export interface EksEndpoint {
  server: string;
  caData: string;
}

export async function describeEksCluster(client: EksDescriber, clusterName: string, registered: string): Promise<EksEndpoint> {
  let out: DescribeClusterCommandOutput;
  try {
    out = await client.send(new DescribeClusterCommand({ name: clusterName }));
  } catch (err) {
    if ((err as { name?: unknown }).name === 'ResourceNotFoundException') {
      throw new NotFoundError(`cluster "${registered}": EKS cluster ${clusterName} not found`, { cause: err });
    }
    throw err;
  }
  const server = out.cluster?.endpoint;
  const caData = out.cluster?.certificateAuthority?.data;
  if (!server || !caData) {
    throw new ConfigError(`cluster "${registered}": EKS cluster ${clusterName} has no endpoint or CA yet (status ${out.cluster?.status ?? 'unknown'})`);
  }
  return { server, caData };
}

const USER = 'rollouts';

/** A one-cluster KubeConfig authenticating with a bearer token. */
export function tokenKubeConfig(name: string, c: { server: string; caData?: string; skipTLSVerify?: boolean; token: string }): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name, server: c.server, caData: c.caData, skipTLSVerify: c.skipTLSVerify ?? false }],
    users: [{ name: USER, token: c.token }],
    contexts: [{ name, cluster: name, user: USER }],
    currentContext: name,
  });
  return kc;
}

/**
 * Swaps the token in place. API clients made from `kc` read the user on every request, so they
 * pick the new token up, and the cluster entry (endpoint, CA) is reused as is.
 */
export function replaceToken(kc: KubeConfig, token: string): void {
  kc.loadFromOptions({
    clusters: kc.getClusters(),
    users: [{ name: USER, token }],
    contexts: kc.getContexts(),
    currentContext: kc.getCurrentContext(),
  });
}
