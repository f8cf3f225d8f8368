import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createEksToken, EKS_TOKEN_PREFIX } from '../../../shared/adapters/kubernetes/eksToken.ts';

const WHITELIST = new Set([
  'Action',
  'Version',
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Date',
  'X-Amz-Expires',
  'X-Amz-Security-Token',
  'X-Amz-Signature',
  'X-Amz-SignedHeaders',
]);

function decode(token: string): URL {
  assert.ok(token.startsWith(EKS_TOKEN_PREFIX));
  const body = token.slice(EKS_TOKEN_PREFIX.length);
  // RawURLEncoding, as the authenticator decodes it: url-safe alphabet and no padding.
  assert.match(body, /^[A-Za-z0-9_-]+$/);
  return new URL(Buffer.from(body, 'base64url').toString('utf8'));
}

describe('createEksToken', () => {
  test('reproduces the checked aws-sdk-ruby vector byte for byte', async () => {
    const { token } = await createEksToken({
      clusterName: 'my-eks-cluster',
      region: 'us-west-2',
      stsHost: 'sts.amazonaws.com',
      credentials: { accessKeyId: 'akid', secretAccessKey: 'secret' },
      now: new Date('2018-08-05T00:00:00Z'),
      expiresInSeconds: 59,
    });
    const expectedUrl =
      'https://sts.amazonaws.com/?Action=GetCallerIdentity&Version=2011-06-15&X-Amz-Algorithm=AWS4-HMAC-SHA256' +
      '&X-Amz-Credential=akid%2F20180805%2Fus-west-2%2Fsts%2Faws4_request&X-Amz-Date=20180805T000000Z' +
      '&X-Amz-Expires=59&X-Amz-SignedHeaders=host%3Bx-k8s-aws-id' +
      '&X-Amz-Signature=d1f6551aafc0f5c57971fe161a12cbe0539fc1681698ea4a4c0fde5abc51e32e';
    assert.equal(Buffer.from(token.slice(EKS_TOKEN_PREFIX.length), 'base64url').toString('utf8'), expectedUrl);
    assert.equal(token, 'k8s-aws-v1.' + Buffer.from(expectedUrl).toString('base64url'));
  });

  test('signs a GetCallerIdentity URL for the regional STS host that the authenticator accepts', async () => {
    const { token } = await createEksToken({
      clusterName: 'prod-eu',
      region: 'eu-west-1',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'FwoGZXIvYXdz+/token==' },
      now: new Date('2026-09-01T10:00:00Z'),
    });
    assert.ok(token.length <= 4096);
    const url = decode(token);
    assert.equal(url.protocol, 'https:');
    assert.equal(url.host, 'sts.eu-west-1.amazonaws.com');
    assert.equal(url.pathname, '/');
    const keys = [...url.searchParams.keys()];
    assert.deepEqual(keys.filter((k) => !WHITELIST.has(k)), [], 'only whitelisted parameters');
    assert.equal(new Set(keys).size, keys.length, 'no repeated parameter');
    assert.equal(url.searchParams.get('Action'), 'GetCallerIdentity');
    assert.equal(url.searchParams.get('X-Amz-Expires'), '60');
    assert.equal(url.searchParams.get('X-Amz-Credential'), 'AKIDEXAMPLE/20260901/eu-west-1/sts/aws4_request');
    assert.equal(url.searchParams.get('X-Amz-Security-Token'), 'FwoGZXIvYXdz+/token==');
    assert.deepEqual(url.searchParams.get('X-Amz-SignedHeaders')?.split(';'), ['host', 'x-k8s-aws-id']);
    assert.equal(url.searchParams.has('x-k8s-aws-id'), false, 'the cluster name is a signed header, not a parameter');
    assert.match(url.searchParams.get('X-Amz-Signature') ?? '', /^[0-9a-f]{64}$/);
  });

  test('expires 14 minutes after signing, a minute before the server stops accepting it', async () => {
    const now = new Date('2026-09-01T10:00:00Z');
    const { expiresAt } = await createEksToken({
      clusterName: 'c',
      region: 'us-east-1',
      credentials: async () => ({ accessKeyId: 'a', secretAccessKey: 's' }),
      now,
    });
    assert.equal(expiresAt.toISOString(), '2026-09-01T10:14:00.000Z');
  });

  test('expires with the signing credentials when they run out sooner', async () => {
    const { expiresAt } = await createEksToken({
      clusterName: 'c',
      region: 'us-east-1',
      credentials: { accessKeyId: 'a', secretAccessKey: 's', expiration: new Date('2026-09-01T10:05:00Z') },
      now: new Date('2026-09-01T10:00:00Z'),
    });
    assert.equal(expiresAt.toISOString(), '2026-09-01T10:05:00.000Z');
  });

  test('changes with the cluster name, because the name is signed', async () => {
    const base = { region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 's' }, now: new Date(0) };
    const a = await createEksToken({ ...base, clusterName: 'a' });
    const b = await createEksToken({ ...base, clusterName: 'b' });
    assert.notEqual(decode(a.token).searchParams.get('X-Amz-Signature'), decode(b.token).searchParams.get('X-Amz-Signature'));
  });
});
