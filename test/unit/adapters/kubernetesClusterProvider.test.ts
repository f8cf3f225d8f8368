// RegisteredClusterProvider with AWS stand-ins (EKS `send`, credential providers) and an injected
// clock. No Kubernetes request is made: the provider only builds KubeConfigs here.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { DescribeClusterCommand, DescribeClusterCommandOutput } from '@aws-sdk/client-eks';
import { ConfigError, ForbiddenError, NotFoundError } from '../../../shared/errors.ts';
import type { ClusterRegistration } from '../../../shared/ports.ts';
import {
  RegisteredClusterProvider,
  type ClusterConnection,
  type RegisteredClusterProviderOptions,
} from '../../../shared/adapters/kubernetes/clusterProvider.ts';
import type { AwsCredentialsProvider } from '../../../shared/adapters/kubernetes/eksToken.ts';

const T0 = Date.parse('2026-09-01T10:00:00Z');

function harness(registrations: ClusterRegistration[], extra: Partial<RegisteredClusterProviderOptions> = {}) {
  const now = { ms: T0 };
  const described: { region: string; name: string | undefined; akid: Promise<string> }[] = [];
  const baseCalls = { n: 0 };
  const assumed: { roleArn: string; region: string }[] = [];
  const cache = new Map<string, ClusterConnection>();
  const registry = new Map(registrations.map((r) => [r.name, r]));
  const base: AwsCredentialsProvider = async () => {
    baseCalls.n += 1;
    return { accessKeyId: 'BASEAKID', secretAccessKey: 's', sessionToken: 'base-session' };
  };
  const opts: RegisteredClusterProviderOptions = {
    registry: { getCluster: async (name) => registry.get(name) ?? null },
    resources: [],
    credentials: base,
    clock: { now: () => new Date(now.ms) },
    eks: (region, credentials) => ({
      send: async (cmd: DescribeClusterCommand): Promise<DescribeClusterCommandOutput> => {
        described.push({ region, name: cmd.input.name, akid: credentials().then((c) => c.accessKeyId) });
        if (cmd.input.name === 'missing') throw Object.assign(new Error('No cluster found'), { name: 'ResourceNotFoundException' });
        return {
          $metadata: {},
          cluster: { endpoint: `https://${cmd.input.name}.gr7.${region}.eks.amazonaws.com`, certificateAuthority: { data: 'Q0FEQVRB' }, status: 'ACTIVE' },
        };
      },
    }),
    assumeRole: (roleArn, _base, region) => {
      assumed.push({ roleArn, region });
      return async () => ({ accessKeyId: 'ASSUMEDAKID', secretAccessKey: 's', sessionToken: 'role-session', expiration: new Date(T0 + 3_600_000) });
    },
    cache,
    ...extra,
  };
  return { provider: new RegisteredClusterProvider(opts), opts, now, described, baseCalls, assumed, cache, registry };
}

function tokenOf(cache: Map<string, ClusterConnection>, name: string): string {
  const token = cache.get(name)?.kc.getCurrentUser()?.token;
  assert.ok(token, `a token for ${name}`);
  return token;
}

function signingAkid(token: string): string {
  const url = new URL(Buffer.from(token.slice('k8s-aws-v1.'.length), 'base64url').toString('utf8'));
  return (url.searchParams.get('X-Amz-Credential') ?? '').split('/')[0] ?? '';
}

const eksProd: ClusterRegistration = { name: 'prod', eks: { clusterName: 'prod-eks', region: 'eu-west-1' } };

describe('RegisteredClusterProvider', () => {
  test('describes an EKS cluster once and points the KubeConfig at its endpoint and CA with a token', async () => {
    const h = harness([eksProd]);
    await h.provider.client('prod');
    await h.provider.client('prod');
    assert.deepEqual(h.described.map((d) => [d.region, d.name]), [['eu-west-1', 'prod-eks']]);
    const kc = h.cache.get('prod')?.kc;
    assert.equal(kc?.getCurrentCluster()?.server, 'https://prod-eks.gr7.eu-west-1.eks.amazonaws.com');
    assert.equal(kc?.getCurrentCluster()?.caData, 'Q0FEQVRB');
    assert.equal(kc?.getCurrentCluster()?.skipTLSVerify, false);
    assert.match(tokenOf(h.cache, 'prod'), /^k8s-aws-v1\./);
  });

  test('reuses the cached connection in a later warm invocation (a new provider, same process cache)', async () => {
    const h = harness([eksProd]);
    await h.provider.client('prod');
    const warm = new RegisteredClusterProvider(h.opts);
    await warm.client('prod');
    assert.equal(h.described.length, 1);
  });

  test('keeps the token until one minute before its 14 minutes are up, then re-signs in the same KubeConfig', async () => {
    const h = harness([eksProd], { registrationTtlMs: Number.POSITIVE_INFINITY });
    await h.provider.client('prod');
    const kc = h.cache.get('prod')?.kc;
    const first = tokenOf(h.cache, 'prod');

    h.now.ms = T0 + 13 * 60_000 - 1;
    await h.provider.client('prod');
    assert.equal(tokenOf(h.cache, 'prod'), first);

    h.now.ms = T0 + 13 * 60_000;
    await h.provider.client('prod');
    const second = tokenOf(h.cache, 'prod');
    assert.notEqual(second, first);
    assert.equal(h.cache.get('prod')?.kc, kc, 'endpoint and CA are reused, only the user changes');
    assert.equal(h.described.length, 1, 'a token refresh does not describe the cluster again');
  });

  test('signs with the base identity when the registration has no role', async () => {
    const h = harness([eksProd]);
    await h.provider.client('prod');
    assert.deepEqual(h.assumed, []);
    assert.equal(signingAkid(tokenOf(h.cache, 'prod')), 'BASEAKID');
    assert.equal(await h.described[0]?.akid, 'BASEAKID');
  });

  test('assumes the registered role for both DescribeCluster and the token (cross-account)', async () => {
    const roleArn = 'arn:aws:iam::222222222222:role/rollouts';
    const h = harness([{ name: 'other', eks: { clusterName: 'x', region: 'us-east-2', roleArn } }]);
    await h.provider.client('other');
    assert.deepEqual(h.assumed, [{ roleArn, region: 'us-east-2' }]);
    assert.equal(signingAkid(tokenOf(h.cache, 'other')), 'ASSUMEDAKID');
    assert.equal(await h.described[0]?.akid, 'ASSUMEDAKID');
  });

  test('rejects an unknown cluster with NotFoundError naming it', async () => {
    const h = harness([]);
    await assert.rejects(h.provider.client('nope'), (err: Error) => err instanceof NotFoundError && /"nope"/.test(err.message));
  });

  test('reports an EKS cluster that does not exist as NotFoundError', async () => {
    const h = harness([{ name: 'gone', eks: { clusterName: 'missing', region: 'us-east-1' } }]);
    await assert.rejects(h.provider.client('gone'), (err: Error) => err instanceof NotFoundError && /missing/.test(err.message));
  });

  test('builds a static-endpoint client from the registration and the configured token', async () => {
    const h = harness([{ name: 'lab', endpoint: { server: 'https://127.0.0.1:6443', caData: 'Q0E=', insecureSkipTlsVerify: true } }], {
      staticTokens: { lab: 'lab-token' },
    });
    await h.provider.client('lab');
    const kc = h.cache.get('lab')?.kc;
    assert.equal(kc?.getCurrentCluster()?.server, 'https://127.0.0.1:6443');
    assert.equal(kc?.getCurrentCluster()?.skipTLSVerify, true);
    assert.equal(kc?.getCurrentUser()?.token, 'lab-token');
    assert.equal(h.described.length, 0);
  });

  test('refuses an endpoint without a token as a configuration error naming tokenSecretArn', async () => {
    const h = harness([{ name: 'lab', endpoint: { server: 'https://127.0.0.1:6443' } }]);
    await assert.rejects(h.provider.client('lab'), (err: Error) => err instanceof ConfigError && /"lab".*tokenSecretArn/.test(err.message));
  });

  describe('endpoint registrations with the token in Secrets Manager', () => {
    const SECRET = 'arn:aws:secretsmanager:eu-central-1:111111111111:secret:rollouts/lab-token-AbCdEf';
    function withSecrets(registration: ClusterRegistration, secretString: string | Error, extra: Partial<RegisteredClusterProviderOptions> = {}) {
      const reads: { region: string; secretId: string | undefined; akid: Promise<string> }[] = [];
      const h = harness([registration], {
        secrets: (region, credentials) => ({
          send: async (cmd) => {
            reads.push({ region, secretId: cmd.input.SecretId, akid: credentials().then((c) => c.accessKeyId) });
            if (secretString instanceof Error) throw secretString;
            return { SecretString: secretString };
          },
        }),
        ...extra,
      });
      return { ...h, reads };
    }

    test('reads the token from the secret, in its region, with the base identity', async () => {
      const h = withSecrets({ name: 'lab', endpoint: { server: 'https://10.0.0.1:6443', tokenSecretArn: SECRET } }, ' lab-token\n');
      await h.provider.client('lab');
      assert.equal(tokenOf(h.cache, 'lab'), 'lab-token');
      assert.deepEqual(h.reads.map((r) => [r.region, r.secretId]), [['eu-central-1', SECRET]]);
      assert.equal(await h.reads[0]?.akid, 'BASEAKID');
      assert.deepEqual(h.assumed, []);
    });

    test("reads it with the registration's role (the cluster's account), and takes JSON with a token field", async () => {
      const roleArn = 'arn:aws:iam::111111111111:role/rollouts-lab';
      const h = withSecrets({ name: 'lab', endpoint: { server: 'https://10.0.0.1:6443', tokenSecretArn: SECRET, roleArn } }, '{"token":"json-token"}');
      await h.provider.client('lab');
      assert.equal(tokenOf(h.cache, 'lab'), 'json-token');
      assert.deepEqual(h.assumed, [{ roleArn, region: 'eu-central-1' }]);
      assert.equal(await h.reads[0]?.akid, 'ASSUMEDAKID');
    });

    test('the secret wins over a configured token, and is read again after a 401 (rotation)', async () => {
      const h = withSecrets({ name: 'lab', endpoint: { server: 'https://10.0.0.1:6443', tokenSecretArn: SECRET } }, 'from-secret', { staticTokens: { lab: 'configured' } });
      await h.provider.client('lab');
      assert.equal(tokenOf(h.cache, 'lab'), 'from-secret');
      h.provider.invalidate('lab');
      await h.provider.client('lab');
      assert.equal(h.reads.length, 2);
    });

    test('a missing secret is NotFoundError, an empty one a ConfigError, both naming cluster and secret', async () => {
      const missing = withSecrets({ name: 'lab', endpoint: { server: 'https://10.0.0.1:6443', tokenSecretArn: SECRET } }, Object.assign(new Error('no such secret'), { name: 'ResourceNotFoundException' }));
      await assert.rejects(missing.provider.client('lab'), (err: Error) => err instanceof NotFoundError && err.message.includes('"lab"') && err.message.includes(SECRET));
      const empty = withSecrets({ name: 'lab', endpoint: { server: 'https://10.0.0.1:6443', tokenSecretArn: SECRET } }, '{"user":"x"}');
      await assert.rejects(empty.provider.client('lab'), (err: Error) => err instanceof ConfigError && err.message.includes(SECRET));
    });

    test('a secret scheduled for deletion is a ConfigError and one its KMS key refuses a ForbiddenError (neither retried); a throttle stays retryable', async () => {
      const reg = { name: 'lab', endpoint: { server: 'https://10.0.0.1:6443', tokenSecretArn: SECRET } };
      const deleting = withSecrets(reg, Object.assign(new Error('You can\'t perform this operation on the secret because it was marked for deletion.'), { name: 'InvalidRequestException' }));
      await assert.rejects(deleting.provider.client('lab'), (err: Error) => err instanceof ConfigError && /"lab".*marked for deletion/.test(err.message));
      const kms = withSecrets(reg, Object.assign(new Error('Access to KMS is not allowed'), { name: 'DecryptionFailure' }));
      await assert.rejects(kms.provider.client('lab'), (err: Error) => err instanceof ForbiddenError && /KMS key/.test(err.message));
      const throttled = withSecrets(reg, Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));
      await assert.rejects(throttled.provider.client('lab'), (err: Error) => !(err instanceof ConfigError) && !(err instanceof ForbiddenError) && err.name === 'ThrottlingException');
    });
  });

  test('refuses a registration with neither eks nor endpoint', async () => {
    const h = harness([{ name: 'empty' }]);
    await assert.rejects(h.provider.client('empty'), ConfigError);
  });

  test('notices an edited registration after the registration TTL and reconnects', async () => {
    const h = harness([eksProd], { registrationTtlMs: 60_000 });
    await h.provider.client('prod');
    h.now.ms = T0 + 60_000;
    await h.provider.client('prod');
    assert.equal(h.described.length, 1, 'unchanged registration: same connection');

    h.registry.set('prod', { name: 'prod', eks: { clusterName: 'prod-eks-2', region: 'eu-west-1' } });
    h.now.ms = T0 + 120_000;
    await h.provider.client('prod');
    assert.deepEqual(h.described.map((d) => d.name), ['prod-eks', 'prod-eks-2']);
  });

  test('describes again after invalidate (what a 401 triggers)', async () => {
    const h = harness([eksProd]);
    await h.provider.client('prod');
    h.provider.invalidate('prod');
    await h.provider.client('prod');
    assert.equal(h.described.length, 2);
  });

  test('shares one DescribeCluster between concurrent cold calls', async () => {
    const h = harness([eksProd]);
    await Promise.all([h.provider.client('prod'), h.provider.client('prod'), h.provider.client('prod')]);
    assert.equal(h.described.length, 1);
  });

  test('assumes the role once per credential lifetime, not once per token', async () => {
    let calls = 0;
    const h = harness([{ name: 'other', eks: { clusterName: 'x', region: 'us-east-2', roleArn: 'arn:aws:iam::2:role/r' } }], {
      registrationTtlMs: Number.POSITIVE_INFINITY,
      assumeRole: () => async () => {
        calls += 1;
        return { accessKeyId: 'A', secretAccessKey: 's', expiration: new Date(T0 + 3_600_000) };
      },
    });
    await h.provider.client('other');
    h.now.ms = T0 + 13 * 60_000; // token refresh
    await h.provider.client('other');
    assert.equal(calls, 1);
  });
});
