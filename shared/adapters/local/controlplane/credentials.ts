// Credentials for a throwaway control plane: a service-account signing key pair, a static token file
// with an admin (system:masters) and the least-privilege product user, and one kubeconfig per user.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';

/** The user and group the product's RBAC (infra/k8s/rollouts-rbac.yaml) binds. */
export const ROLLOUTS_USER = 'serverless-rollouts';
export const ROLLOUTS_GROUP = 'serverless-rollouts';

export type KubeconfigUser = 'admin' | 'rollouts';

export interface Credentials {
  adminToken: string;
  rolloutsToken: string;
  tokenFile: string;
  serviceAccountPrivateKey: string;
  serviceAccountPublicKey: string;
}

export function writeCredentials(pkiDir: string): Credentials {
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
  const tokenFile = path.join(pkiDir, 'tokens.csv');
  // Format: token,user,uid,"group1,group2"
  fs.writeFileSync(
    tokenFile,
    [`${adminToken},admin,admin,"system:masters"`, `${rolloutsToken},${ROLLOUTS_USER},${ROLLOUTS_USER},"${ROLLOUTS_GROUP}"`, ''].join('\n'),
    { mode: 0o600 },
  );
  return { adminToken, rolloutsToken, tokenFile, serviceAccountPrivateKey, serviceAccountPublicKey };
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
