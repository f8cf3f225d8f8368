// Credentials for a throwaway control plane: a service-account signing key pair, a static token file
// with an admin (system:masters), the least-privilege product user and any extra users a test asks
// for, and a kubeconfig for the admin and the product user.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { ConfigError } from '../../../errors.ts';

/** The user and group the product's RBAC (infra/k8s/rollouts-rbac.yaml) binds. */
export const ROLLOUTS_USER = 'serverless-rollouts';
export const ROLLOUTS_GROUP = 'serverless-rollouts';

export type KubeconfigUser = 'admin' | 'rollouts';

/** One more static-token user, e.g. one bound only to a read-only group, to test an RBAC role alone. */
export interface ExtraTokenUser {
  name: string;
  groups: readonly string[];
}

export interface Credentials {
  adminToken: string;
  rolloutsToken: string;
  /** Bearer tokens of the extra users, by user name. */
  extraTokens: Record<string, string>;
  tokenFile: string;
  serviceAccountPrivateKey: string;
  serviceAccountPublicKey: string;
}

/** Names that fit the token file's CSV as written (no quotes or commas) and do not shadow the built-in users. */
const TOKEN_NAME = /^[A-Za-z0-9][A-Za-z0-9:._@-]*$/;

function checkExtraUsers(users: readonly ExtraTokenUser[]): void {
  const seen = new Set(['admin', ROLLOUTS_USER]);
  for (const user of users) {
    if (!TOKEN_NAME.test(user.name) || seen.has(user.name)) throw new ConfigError(`extra token user: invalid or duplicate name "${user.name}"`);
    const bad = user.groups.find((g) => !TOKEN_NAME.test(g));
    if (bad !== undefined) throw new ConfigError(`extra token user ${user.name}: invalid group "${bad}"`);
    seen.add(user.name);
  }
}

export function writeCredentials(pkiDir: string, extraUsers: readonly ExtraTokenUser[] = []): Credentials {
  checkExtraUsers(extraUsers);
  fs.mkdirSync(pkiDir, { recursive: true, mode: 0o700 });
  // ECDSA P-256: generated in microseconds (RSA-2048 takes tens of ms) and accepted by the
  // apiserver for signing service-account tokens (ES256).
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const serviceAccountPrivateKey = path.join(pkiDir, 'sa.key');
  const serviceAccountPublicKey = path.join(pkiDir, 'sa.pub');
  fs.writeFileSync(serviceAccountPrivateKey, privateKey.export({ type: 'sec1', format: 'pem' }), { mode: 0o600 });
  fs.writeFileSync(serviceAccountPublicKey, publicKey.export({ type: 'spki', format: 'pem' }));

  const adminToken = randomBytes(24).toString('hex');
  const rolloutsToken = randomBytes(24).toString('hex');
  const extraTokens = Object.fromEntries(extraUsers.map((user) => [user.name, randomBytes(24).toString('hex')]));
  const tokenFile = path.join(pkiDir, 'tokens.csv');
  // Format: token,user,uid,"group1,group2"
  fs.writeFileSync(
    tokenFile,
    [
      `${adminToken},admin,admin,"system:masters"`,
      `${rolloutsToken},${ROLLOUTS_USER},${ROLLOUTS_USER},"${ROLLOUTS_GROUP}"`,
      ...extraUsers.map((user) => `${extraTokens[user.name]},${user.name},${user.name},"${user.groups.join(',')}"`),
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  return { adminToken, rolloutsToken, extraTokens, tokenFile, serviceAccountPrivateKey, serviceAccountPublicKey };
}

/**
 * The credentials of an earlier start in `pkiDir`, when they are complete and cover the users asked
 * for: a restarted persistent control plane keeps its service-account keys (the tokens it signed
 * stay valid) and its bearer tokens (every kubeconfig handed out keeps working). Otherwise new ones.
 */
export function reuseOrWriteCredentials(pkiDir: string, extraUsers: readonly ExtraTokenUser[] = []): Credentials & { reused: boolean } {
  checkExtraUsers(extraUsers);
  const tokenFile = path.join(pkiDir, 'tokens.csv');
  const serviceAccountPrivateKey = path.join(pkiDir, 'sa.key');
  const serviceAccountPublicKey = path.join(pkiDir, 'sa.pub');
  if ([tokenFile, serviceAccountPrivateKey, serviceAccountPublicKey].every((f) => fs.existsSync(f))) {
    const tokens = new Map<string, string>();
    for (const line of fs.readFileSync(tokenFile, 'utf8').split('\n')) {
      const [token, user] = line.split(',');
      if (token && user) tokens.set(user, token);
    }
    const adminToken = tokens.get('admin');
    const rolloutsToken = tokens.get(ROLLOUTS_USER);
    if (adminToken && rolloutsToken && extraUsers.every((u) => tokens.has(u.name))) {
      const extraTokens = Object.fromEntries(extraUsers.map((u) => [u.name, tokens.get(u.name) as string]));
      return { adminToken, rolloutsToken, extraTokens, tokenFile, serviceAccountPrivateKey, serviceAccountPublicKey, reused: true };
    }
  }
  return { ...writeCredentials(pkiDir, extraUsers), reused: false };
}

/**
 * A kubeconfig with a bearer token. The apiserver serves a self-signed certificate it generated in
 * its cert dir, so clients skip verification: acceptable on loopback for a throwaway cluster.
 */
export function writeKubeconfig(file: string, server: string, user: KubeconfigUser, token: string): void {
  const name = `testplane-${user}`;
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'testplane', cluster: { server, 'insecure-skip-tls-verify': true } }],
    users: [{ name, user: { token } }],
    contexts: [{ name, context: { cluster: 'testplane', user: name } }],
    'current-context': name,
  };
  fs.writeFileSync(file, stringify(config), { mode: 0o600 });
}
