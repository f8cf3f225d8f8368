// EKS bearer token, as aws-cli `eks get-token` and aws-iam-authenticator make it
// (kubernetes-sigs/aws-iam-authenticator's token.go): "k8s-aws-v1." + base64url(no padding) of a SigV4
// query-presigned GET of STS GetCallerIdentity, with the cluster name as the signed header
// x-k8s-aws-id. No AWS call is made here; EKS calls STS with the URL when it checks the token.
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import { ConfigError } from '../../errors.ts';

/** Structurally the AWS SDK's AwsCredentialIdentity. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

/** Structurally the AWS SDK's AwsCredentialIdentityProvider (fromNodeProviderChain, fromTemporaryCredentials…). */
export type AwsCredentialsProvider = () => Promise<AwsCredentials>;

export interface EksTokenInput {
  clusterName: string;
  region: string;
  credentials: AwsCredentials | AwsCredentialsProvider;
  /** The signing instant (the caller's clock). */
  now: Date;
  /** STS host to sign for; defaults to the regional `sts.<region>.amazonaws.com`. */
  stsHost?: string;
  /** X-Amz-Expires. The server accepts 0…900 and ignores the value otherwise; clients send 60. */
  expiresInSeconds?: number;
}

export interface EksToken {
  token: string;
  expiresAt: Date;
}

export const EKS_TOKEN_PREFIX = 'k8s-aws-v1.';
/** The server accepts a token for 15 minutes after X-Amz-Date; like aws-cli we stop using it at 14. */
export const EKS_TOKEN_LIFETIME_MS = 14 * 60_000;

/**
 * The query parameters the authenticator accepts, in the order of the checked test vector
 * (aws-sdk-ruby's STS presigned_url spec). Order does not affect validity; a fixed order makes
 * the token byte-for-byte reproducible.
 */
const QUERY_ORDER = [
  'Action',
  'Version',
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Date',
  'X-Amz-Expires',
  'X-Amz-SignedHeaders',
  'X-Amz-Security-Token',
  'X-Amz-Signature',
] as const;

export async function createEksToken(input: EksTokenInput): Promise<EksToken> {
  const now = input.now;
  const host = input.stsHost ?? `sts.${input.region}.amazonaws.com`;
  const credentials = typeof input.credentials === 'function' ? await input.credentials() : input.credentials;
  const signer = new SignatureV4({ credentials, region: input.region, service: 'sts', sha256: Sha256 });
  const presigned = await signer.presign(
    {
      method: 'GET',
      protocol: 'https:',
      hostname: host,
      path: '/',
      // x-k8s-aws-id is not an x-amz-* header, so the signer keeps it a signed header and does not
      // hoist it into the query, which is what the authenticator requires.
      headers: { host, 'x-k8s-aws-id': input.clusterName },
      query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
    },
    // The signer's default expiresIn (3600) is over the authenticator's 900 limit.
    { expiresIn: input.expiresInSeconds ?? 60, signingDate: now },
  );
  const url = `https://${host}/?${orderedQuery(presigned.query ?? {})}`;
  const token = EKS_TOKEN_PREFIX + Buffer.from(url, 'utf8').toString('base64url');
  return { token, expiresAt: expiryOf(now, credentials.expiration) };
}

function orderedQuery(query: Record<string, string | string[] | null>): string {
  const unexpected = Object.keys(query).filter((k) => !(QUERY_ORDER as readonly string[]).includes(k));
  // Every query parameter is part of the signature, so dropping one would invalidate it; and the
  // authenticator rejects any parameter outside its whitelist. Either way the token would fail.
  if (unexpected.length > 0) throw new ConfigError(`EKS token: unexpected presigned query parameters ${unexpected.join(', ')}`);
  // encodeURIComponent matches SigV4's escaping for these values (alphanumerics, "/", ";", and the
  // base64 "+/=" of a session token); it differs only on !'()*, which never occur here.
  return QUERY_ORDER.filter((k) => typeof query[k] === 'string')
    .map((k) => `${k}=${encodeURIComponent(query[k] as string)}`)
    .join('&');
}

/** 14 minutes, or less when the signing credentials expire sooner (STS then rejects the URL). */
function expiryOf(now: Date, credentialsExpiration?: Date): Date {
  const byLifetime = now.getTime() + EKS_TOKEN_LIFETIME_MS;
  const byCredentials = credentialsExpiration?.getTime() ?? Number.POSITIVE_INFINITY;
  return new Date(Math.min(byLifetime, byCredentials));
}
