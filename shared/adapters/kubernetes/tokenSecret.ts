// The bearer token of an endpoint-registered cluster, kept in AWS Secrets Manager
// (endpoint.tokenSecretArn): the secret's string is the token itself, or JSON with a "token" field.
// Read with the credentials the registration calls for (the function's role, or the registration's
// roleArn in the cluster's account: the secret then lives there). Loaded only for such registrations.
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ConfigError, ForbiddenError, NotFoundError } from '../../errors.ts';
import type { AwsCredentialsProvider } from './eksToken.ts';

/** What we need of a SecretsManagerClient; tests may pass their own. */
export interface SecretReader {
  send(command: GetSecretValueCommand): Promise<{ SecretString?: string }>;
}
export type SecretReaderFactory = (region: string, credentials: AwsCredentialsProvider) => SecretReader;

/** The regular client; it honours AWS_ENDPOINT_URL(_SECRETS_MANAGER) for emulators. */
export const defaultSecretReader: SecretReaderFactory = (region, credentials) => new SecretsManagerClient({ region, credentials });

const SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:([a-z0-9-]+):\d{12}:secret:.+$/;

/** The region a Secrets Manager ARN names (the secret is read there). */
export function secretRegion(arn: string): string {
  const region = SECRET_ARN.exec(arn)?.[1];
  if (!region) throw new ConfigError(`tokenSecretArn ${arn} is not a Secrets Manager secret ARN`);
  return region;
}

export async function readTokenSecret(reader: SecretReader, arn: string, cluster: string): Promise<string> {
  let value: string | undefined;
  try {
    value = (await reader.send(new GetSecretValueCommand({ SecretId: arn }))).SecretString;
  } catch (err) {
    const name = (err as { name?: unknown }).name;
    if (name === 'ResourceNotFoundException') throw new NotFoundError(`cluster "${cluster}": token secret ${arn} not found`, { cause: err });
    if (name === 'AccessDeniedException') throw new ForbiddenError(`cluster "${cluster}": may not read token secret ${arn}`, { cause: err });
    // Retrying cannot help these: the secret is scheduled for deletion (InvalidRequestException), or
    // its KMS key refuses us (DecryptionFailure). Throttling and 5xx stay retryable (thrown as is).
    if (name === 'InvalidRequestException') throw new ConfigError(`cluster "${cluster}": token secret ${arn} cannot be read: ${(err as Error).message}`, { cause: err });
    if (name === 'DecryptionFailure') throw new ForbiddenError(`cluster "${cluster}": token secret ${arn} cannot be decrypted with its KMS key: ${(err as Error).message}`, { cause: err });
    throw err;
  }
  const token = tokenOf(value);
  if (!token) throw new ConfigError(`cluster "${cluster}": token secret ${arn} holds no token (a string, or JSON with a "token" field)`);
  return token;
}

function tokenOf(value: string | undefined): string | undefined {
  const text = value?.trim();
  if (!text?.startsWith('{')) return text || undefined;
  try {
    const token = (JSON.parse(text) as { token?: unknown }).token;
    return typeof token === 'string' && token.trim() !== '' ? token.trim() : undefined;
  } catch {
    return undefined;
  }
}
