// Per-cluster/namespace authorization of the API and the four-eyes rule: an allowed principal goes
// through; one outside its scope gets 403 and the store is exactly as before.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { handleApiRequest } from '../../../shared/api/handleApiRequest.ts';
import { parseAuthorization, type AuthorizationPolicy } from '../../../shared/api/authorization.ts';
import { loadConfig } from '../../../shared/app/config.ts';
import { ConfigError } from '../../../shared/errors.ts';
import { api, awaitingApproval, PATH, release, rolloutDoc, seedRollout, seedState, type Api } from './apiFixtures.ts';

const DEPLOYER = 'arn:aws:sts::123456789012:assumed-role/Deployer/ci-42';
const APPROVER = 'arn:aws:sts::123456789012:assumed-role/Approver/alice';
const STRANGER = 'arn:aws:iam::123456789012:user/mallory';

function policy(fourEyes = false): AuthorizationPolicy {
  const parsed = parseAuthorization(JSON.stringify({
    fourEyes,
    rules: [
      { principals: ['arn:aws:sts::123456789012:assumed-role/Deployer/*'], verbs: ['read', 'apply', 'release', 'approve', 'abort'], clusters: ['prod'], namespaces: ['shop', 'web-*'] },
      { principals: ['arn:aws:sts::123456789012:assumed-role/Approver/*'], verbs: ['read', 'approve'], clusters: ['prod'] },
    ],
  }));
  if (!('policy' in parsed)) throw new Error(parsed.problems.join('; '));
  return parsed.policy;
}

async function as(a: Api, principal: string, method: string, path: string, body?: unknown) {
  const res = await handleApiRequest({ method, path, query: {}, headers: {}, body: body === undefined ? undefined : JSON.stringify(body), principal }, a.deps);
  return { status: res.status, json: JSON.parse(res.body) as { error?: { message: string } } };
}

async function snapshot(a: Api) {
  const loaded = await a.store.load({ cluster: 'prod', namespace: 'shop', name: 'web' });
  return JSON.stringify({ loaded, queued: a.queue.keys() });
}

describe('API authorization', () => {
  test('an allowed principal applies and releases in its scope', async () => {
    const a = api({ authorization: policy() });
    assert.equal((await as(a, DEPLOYER, 'PUT', PATH, rolloutDoc())).status, 201);
    assert.equal((await as(a, DEPLOYER, 'POST', `${PATH}/release`, { images: { app: 'nginx:1.28' } })).status, 202);
  });

  test('a principal outside its scope gets 403 naming the principal, the verb and the scope, and nothing changes', async () => {
    const a = api({ authorization: policy() });
    await seedRollout(a);
    await seedState(a, awaitingApproval());
    const before = await snapshot(a);
    for (const [who, method, path, body] of [
      [STRANGER, 'POST', `${PATH}/approve`, {}],
      [STRANGER, 'GET', `${PATH}/status`, undefined],
      [APPROVER, 'POST', `${PATH}/abort`, {}],
      [APPROVER, 'PUT', PATH, rolloutDoc()],
      [DEPLOYER, 'PUT', '/v1/rollouts/staging/shop/web', rolloutDoc()],
      [DEPLOYER, 'POST', '/v1/rollouts/prod/payments/web/release', { images: { app: 'nginx:1.28' } }],
      [DEPLOYER, 'PUT', '/v1/clusters/prod', { eks: { clusterName: 'prod', region: 'eu-west-1' } }],
    ] as const) {
      const res = await as(a, who, method, path, body);
      assert.equal(res.status, 403, `${who} ${method} ${path}: ${JSON.stringify(res.json)}`);
      assert.match(res.json.error?.message ?? '', new RegExp(`${who.replace(/[/.]/g, '\\$&')} may not \\w+`));
    }
    assert.equal(await snapshot(a), before, 'nothing stored, nothing queued');
  });

  test('a list shows only what the caller may read', async () => {
    const a = api({ authorization: policy() });
    await seedRollout(a);
    const mine = await as(a, DEPLOYER, 'GET', '/v1/rollouts');
    assert.equal((mine.json as unknown as { rollouts: unknown[] }).rollouts.length, 1);
    const none = await as(a, STRANGER, 'GET', '/v1/rollouts');
    assert.equal(none.status, 403);
  });

  test('four-eyes: the principal that requested the release cannot approve it; another can', async () => {
    const a = api({ authorization: policy(true) });
    await seedRollout(a);
    await seedState(a, awaitingApproval({ release: release({ requestedBy: DEPLOYER }) }));
    const before = await snapshot(a);
    const own = await as(a, DEPLOYER, 'POST', `${PATH}/approve`, {});
    assert.equal(own.status, 403);
    assert.match(own.json.error?.message ?? '', /four-eyes/);
    assert.equal(await snapshot(a), before);
    assert.equal((await as(a, APPROVER, 'POST', `${PATH}/approve`, {})).status, 202);
  });

  test('without four-eyes the releaser may approve its own release', async () => {
    const a = api({ authorization: policy(false) });
    await seedRollout(a);
    await seedState(a, awaitingApproval({ release: release({ requestedBy: DEPLOYER }) }));
    assert.equal((await as(a, DEPLOYER, 'POST', `${PATH}/approve`, {})).status, 202);
  });

  test('the policy is validated once at start-up, naming the bad field', () => {
    const env = { ROLLOUTS_TABLE_NAME: 'rollouts', ROLLOUTS_QUEUE_URL: 'https://sqs.x/q.fifo', ROLLOUTS_TRIGGER_QUEUE_URL: 'https://sqs.x/t', ROLLOUTS_EVENT_BUS_NAME: 'bus' };
    assert.equal(loadConfig({ ...env, ROLLOUTS_API_AUTHORIZATION: JSON.stringify({ rules: [{ principals: ['arn:aws:iam::123456789012:role/x'], verbs: ['read'] }] }) }).apiAuthorization?.rules[0]?.clusters[0], '*');
    assert.throws(() => loadConfig({ ...env, ROLLOUTS_API_AUTHORIZATION: JSON.stringify({ rules: [{ principals: ['bob'], verbs: ['launch'] }] }) }),
      (err: unknown) => err instanceof ConfigError && /ROLLOUTS_API_AUTHORIZATION: invalid authorization policy: rules\.0\.principals\.0/.test(err.message) && /rules\.0\.verbs\.0/.test(err.message));
    assert.throws(() => loadConfig({ ...env, ROLLOUTS_API_AUTHORIZATION: '{not json' }), /not JSON/);
  });
});
