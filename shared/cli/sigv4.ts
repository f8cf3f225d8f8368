// SigV4 for a deployed API: its Function URL uses IAM auth, so every request is signed for service
// "lambda" with the caller's credentials from the standard AWS chain (environment, profile, SSO,
// instance/container role…). The region comes from the Function URL's host
// (<id>.lambda-url.<region>.on.aws), else AWS_REGION / AWS_DEFAULT_REGION.
import { Sha256 } from '@aws-crypto/sha256-js';
import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import { SignatureV4 } from '@smithy/signature-v4';
import { ConfigError } from '../errors.ts';
import type { OutgoingRequest, RequestSigner } from '../client/client.ts';

export const SIGV4_SERVICE = 'lambda';
type Credentials = ConstructorParameters<typeof SignatureV4>[0]['credentials'];

const FUNCTION_URL_HOST = /^[a-z0-9]+\.lambda-url\.([a-z0-9-]+)\.on\.aws$/i;

/** The region to sign for; ConfigError when neither the host nor the environment tells. */
export function signingRegion(endpoint: URL, env: Record<string, string | undefined>): string {
  const fromHost = FUNCTION_URL_HOST.exec(endpoint.hostname)?.[1];
  const region = fromHost ?? (env.AWS_REGION || undefined) ?? (env.AWS_DEFAULT_REGION || undefined);
  if (!region) throw new ConfigError(`cannot tell the AWS region of ${endpoint.origin}: set AWS_REGION`);
  return region;
}

export function sigv4Signer(region: string, credentials: Credentials = fromNodeProviderChain()): RequestSigner {
  const signer = new SignatureV4({ credentials, region, service: SIGV4_SERVICE, sha256: Sha256 });
  return async (req: OutgoingRequest) => {
    const query: Record<string, string> = {};
    for (const [k, v] of req.url.searchParams) query[k] = v;
    const signed = await signer.sign({
      method: req.method,
      protocol: req.url.protocol,
      hostname: req.url.hostname,
      ...(req.url.port ? { port: Number(req.url.port) } : {}),
      path: req.url.pathname,
      query,
      headers: { ...req.headers, host: req.url.host },
      ...(req.body !== undefined ? { body: req.body } : {}),
    });
    // fetch sets Host itself (and refuses to be told).
    return Object.fromEntries(Object.entries(signed.headers).filter(([k]) => k.toLowerCase() !== 'host'));
  };
}
