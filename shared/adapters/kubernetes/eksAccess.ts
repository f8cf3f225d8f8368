// AWS-side pieces of reaching a cluster: DescribeCluster (endpoint + CA) and role credentials (a
// registration's roleArn, typically in another account). Loaded by the cluster provider only for
// registrations that need them (clusterProvider.ts), so other functions' cold starts skip the EKS
// and STS clients.
import { DescribeClusterCommand, EKSClient, type DescribeClusterCommandOutput } from '@aws-sdk/client-eks';
import { fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import { ConfigError, NotFoundError } from '../../errors.ts';
import type { Clock } from '../../ports.ts';
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
