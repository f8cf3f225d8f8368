// The pure parts of KubeClusterClient: patch guarding, error mapping, the REST paths of the kinds
// and when a request is sent again. Requests against a real apiserver are in
// test/integration/kube-client.test.ts, and through a fault-injecting proxy in kube-client.faults.test.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
// Not re-exported by the package index; reached by path only to document its behaviour.
import { ObjectSerializer } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';
import { ConfigError, ConflictError, ForbiddenError, GoneError, KindNotServedError, NotFoundError, UnauthorizedError, ValidationError } from '../../../shared/errors.ts';
import { guardedPatchBody, PATCH_CONTENT_TYPE } from '../../../shared/adapters/kubernetes/patchBody.ts';
import { InvalidObjectError, KubeApiError, retryAfterSeconds, toKubeError } from '../../../shared/adapters/kubernetes/kubeErrors.ts';
import { declaredResources, KindTable, objectPath, resourcePath, UnsupportedKindError } from '../../../shared/adapters/kubernetes/kinds.ts';
import { withApiserverRetries } from '../../../shared/adapters/kubernetes/retrying.ts';
import { KubeHttpError, RequestDeadlineError } from '../../../shared/adapters/kubernetes/transport.ts';
import { WORKLOAD_RESOURCES } from '../../../shared/app/kubeResources.ts';
import { WORKLOAD_DRIVERS } from '../../../shared/workloads/registry.ts';

/** What the transport throws for an answer of 400 or more. */
function httpError(code: number, status: object, retryAfter?: string): KubeHttpError {
  return new KubeHttpError('PATCH /x', code, JSON.stringify({ kind: 'Status', apiVersion: 'v1', ...status }), retryAfter);
}

describe('guardedPatchBody', () => {
  test('puts the expected resourceVersion into a merge or strategic patch, keeping its metadata', () => {
    const patch = { metadata: { annotations: { a: 'b' } }, spec: { paused: true } };
    for (const type of ['merge', 'strategic'] as const) {
      assert.deepEqual(guardedPatchBody(type, patch, '42'), {
        metadata: { annotations: { a: 'b' }, resourceVersion: '42' },
        spec: { paused: true },
      });
    }
    assert.deepEqual(patch.metadata, { annotations: { a: 'b' } }, 'the caller’s patch is not mutated');
  });

  test('prepends setting the expected resourceVersion to a JSON patch, so a stale one fails with 409', () => {
    const ops = [{ op: 'replace', path: '/spec/replicas', value: 3 }];
    assert.deepEqual(guardedPatchBody('json', ops, '7'), [{ op: 'replace', path: '/metadata/resourceVersion', value: '7' }, ...ops]);
  });

  test('leaves an unguarded patch as it is', () => {
    const patch = { spec: { replicas: 1 } };
    assert.equal(guardedPatchBody('merge', patch), patch);
  });

  test('refuses a JSON patch that is not a list and a merge patch that is not an object', () => {
    assert.throws(() => guardedPatchBody('json', { spec: {} }), ValidationError);
    assert.throws(() => guardedPatchBody('merge', [{ op: 'add' }]), ValidationError);
  });

  test('names the three patch content types client-node would otherwise send as JSON patch', () => {
    assert.deepEqual(PATCH_CONTENT_TYPE, {
      merge: 'application/merge-patch+json',
      strategic: 'application/strategic-merge-patch+json',
      json: 'application/json-patch+json',
    });
  });
});

describe('toKubeError', () => {
  test('maps apiserver statuses to named errors that keep the original as cause', () => {
    const cases: [number, new (...args: never[]) => Error][] = [
      [401, UnauthorizedError],
      [403, ForbiddenError],
      [404, NotFoundError],
      [409, ConflictError],
      [410, GoneError],
    ];
    for (const [code, cls] of cases) {
      const original = httpError(code, { code, message: `status ${code}` });
      const mapped = toKubeError(original, 'get apps/v1/Deployment web/api');
      assert.ok(mapped instanceof cls, `${code} → ${cls.name}`);
      assert.equal(mapped.message, `get apps/v1/Deployment web/api: status ${code}`);
      assert.equal(mapped.cause, original);
    }
  });

  test('tells a kind the cluster does not serve (its CRD not installed) from a missing object of it', () => {
    const unserved = toKubeError(httpError(404, { code: 404, reason: 'NotFound', message: 'the server could not find the requested resource', details: {} }), 'get apps.kruise.io/v1alpha1/CloneSet web/api');
    assert.ok(unserved instanceof KindNotServedError && !(unserved instanceof NotFoundError));
    assert.match(unserved.message, /^get apps\.kruise\.io\/v1alpha1\/CloneSet web\/api: the cluster does not serve this resource .*the CRD that defines it is not installed/);
    const missing = toKubeError(httpError(404, { code: 404, reason: 'NotFound', message: 'clonesets.apps.kruise.io "api" not found', details: { name: 'api', group: 'apps.kruise.io', kind: 'clonesets' } }), 'get');
    assert.ok(missing instanceof NotFoundError);
  });

  test('turns a 422 into a ValidationError carrying the apiserver message and field causes', () => {
    const mapped = toKubeError(
      httpError(422, {
        code: 422,
        reason: 'Invalid',
        message: 'ReplicaSet.apps "x" is invalid: spec.template.metadata.labels: Invalid value: selector does not match',
        details: { causes: [{ reason: 'FieldValueInvalid', field: 'spec.template.metadata.labels', message: 'Invalid value: selector does not match' }] },
      }),
      'create apps/v1/ReplicaSet web/x',
    );
    assert.ok(mapped instanceof InvalidObjectError && mapped instanceof ValidationError);
    assert.match(mapped.message, /^create apps\/v1\/ReplicaSet web\/x: ReplicaSet\.apps "x" is invalid/);
    assert.deepEqual(mapped.issues, [{ path: 'spec.template.metadata.labels', reason: 'Invalid value: selector does not match' }]);
  });

  test('reads a Status object from a watch ERROR event (410 Expired → GoneError)', () => {
    const mapped = toKubeError({ kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 1 (200)' }, 'watch /x');
    assert.ok(mapped instanceof GoneError);
    assert.equal(mapped.message, 'watch /x: too old resource version: 1 (200)');
  });

  test('reads the HTTP status of an error thrown by client-node Watch', () => {
    assert.ok(toKubeError(Object.assign(new Error('Forbidden'), { statusCode: 403 }), 'watch /x') instanceof ForbiddenError);
  });

  test('keeps other failures as KubeApiError with the status, and connection errors with status 0', () => {
    const throttled = toKubeError(httpError(429, { code: 429, reason: 'TooManyRequests', message: 'slow down' }), 'list');
    assert.ok(throttled instanceof KubeApiError);
    assert.equal(throttled.status, 429);
    assert.equal(throttled.reason, 'TooManyRequests');
    const refused = toKubeError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }), 'get');
    assert.ok(refused instanceof KubeApiError);
    assert.equal(refused.status, 0);
    assert.match(refused.message, /ECONNREFUSED/);
  });

  test('makes a request that got no answer within its deadline a transient failure without status', () => {
    const mapped = toKubeError(new RequestDeadlineError('GET /api/v1/namespaces/a/pods', 10_000), 'list v1/Pod in a');
    assert.ok(mapped instanceof KubeApiError);
    assert.equal(mapped.status, 0);
    assert.match(mapped.message, /^list v1\/Pod in a: GET \/api\/v1\/namespaces\/a\/pods: no complete answer within 10000 ms$/);
  });

  test('reads Retry-After as delta-seconds or an HTTP date', () => {
    const now = new Date('2026-12-01T10:00:00Z');
    assert.equal(retryAfterSeconds('3', now), 3);
    assert.equal(retryAfterSeconds('Tue, 01 Dec 2026 10:00:05 GMT', now), 5);
    assert.equal(retryAfterSeconds(undefined, now), null);
    assert.equal(retryAfterSeconds('soon', now), null);
  });
});

describe('REST paths of the kinds', () => {
  const kinds = new KindTable();

  test('core-group and named-group objects and collections, namespaced, with names encoded', () => {
    assert.equal(objectPath({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' }, kinds.info('apps/v1', 'Deployment')), '/apis/apps/v1/namespaces/shop/deployments/web');
    assert.equal(resourcePath('v1', kinds.info('v1', 'Pod'), 'shop'), '/api/v1/namespaces/shop/pods');
    assert.equal(objectPath({ apiVersion: 'v1', kind: 'Pod', namespace: 'a b', name: 'x/y' }, kinds.info('v1', 'Pod')), '/api/v1/namespaces/a%20b/pods/x%2Fy');
  });

  test('a custom kind nobody declared is refused before any request', () => {
    assert.throws(() => kinds.info('apps.kruise.io/v1alpha1', 'CloneSet'), (err: unknown) => err instanceof UnsupportedKindError && /unsupported kind apps.kruise.io\/v1alpha1\/CloneSet/.test(String(err)));
  });

  test('serves every resource a driver declares at the path of that resource, the Kruise workloads included', () => {
    const declared = new KindTable(WORKLOAD_RESOURCES);
    for (const driver of Object.values(WORKLOAD_DRIVERS)) {
      for (const r of [driver.workload, ...driver.watches]) {
        const group = r.apiVersion.includes('/') ? `/apis/${r.apiVersion}` : `/api/${r.apiVersion}`;
        assert.equal(objectPath({ apiVersion: r.apiVersion, kind: r.kind, namespace: 'shop', name: 'web' }, declared.info(r.apiVersion, r.kind)), `${group}/namespaces/shop/${r.resource}/web`);
      }
    }
    assert.equal(resourcePath('apps.kruise.io/v1alpha1', declared.info('apps.kruise.io/v1alpha1', 'CloneSet'), 'shop'), '/apis/apps.kruise.io/v1alpha1/namespaces/shop/clonesets');
    assert.equal(objectPath({ apiVersion: 'apps.kruise.io/v1beta1', kind: 'StatefulSet', namespace: 'shop', name: 'db' }, declared.info('apps.kruise.io/v1beta1', 'StatefulSet')), '/apis/apps.kruise.io/v1beta1/namespaces/shop/statefulsets/db');
  });

  test('lists each declared resource once, and refuses a declaration that contradicts Kubernetes', () => {
    const twice = declaredResources([{ workload: { apiVersion: 'x.io/v1', kind: 'Thing', resource: 'things' }, watches: [{ apiVersion: 'x.io/v1', kind: 'Thing', resource: 'things' }] }]);
    assert.deepEqual(twice, [{ apiVersion: 'x.io/v1', kind: 'Thing', resource: 'things' }]);
    assert.throws(() => new KindTable([{ apiVersion: 'apps/v1', kind: 'Deployment', resource: 'deploys' }]), (err: unknown) => err instanceof ConfigError && /Kubernetes serves it as "deployments"/.test(String(err)));
    assert.throws(() => new KindTable([{ apiVersion: 'x.io/v1', kind: 'Thing', resource: 'Things/../x' }]), ConfigError);
  });
});

describe('when a request is sent again (retrying.ts, as client-go)', () => {
  const throttled = (seconds: number | null) => new KubeApiError('throttled', 429, 'TooManyRequests', { retryAfterSeconds: seconds });
  const noAnswer = () => new KubeApiError('reset', 0, undefined);

  async function attempts(isRead: boolean, failures: Error[], maxWaitMs?: number): Promise<{ calls: number; slept: number[]; result: unknown }> {
    let calls = 0;
    const slept: number[] = [];
    const result = await withApiserverRetries(isRead, async () => {
      const failure = failures[calls];
      calls += 1;
      if (failure) throw failure;
      return 'ok';
    }, { sleep: async (ms) => void slept.push(ms), ...(maxWaitMs === undefined ? {} : { maxWaitMs }) }).catch((err: unknown) => err);
    return { calls, slept, result };
  }

  test('waits the Retry-After the server names, for a write as for a read, at most three attempts in all', async () => {
    assert.deepEqual(await attempts(false, [throttled(1)]), { calls: 2, slept: [1000], result: 'ok' });
    const given = await attempts(true, [throttled(2), throttled(1), throttled(1)]);
    assert.equal(given.calls, 3);
    assert.deepEqual(given.slept, [2000, 1000]);
    assert.ok(given.result instanceof KubeApiError);
  });

  test('leaves a longer Retry-After than the pass may wait to the next pass', async () => {
    const r = await attempts(true, [throttled(9)], 5_000);
    assert.equal(r.calls, 1);
    assert.ok(r.result instanceof KubeApiError);
  });

  test('sends a read that got no answer once more, never a write (it may have been applied)', async () => {
    assert.deepEqual(await attempts(true, [noAnswer()]), { calls: 2, slept: [], result: 'ok' });
    const twice = await attempts(true, [noAnswer(), noAnswer()]);
    assert.equal(twice.calls, 2);
    assert.ok(twice.result instanceof KubeApiError);
    const write = await attempts(false, [noAnswer()]);
    assert.equal(write.calls, 1);
    assert.ok(write.result instanceof KubeApiError);
  });

  test('does not repeat what the server refused (a conflict, a 5xx without Retry-After for a write)', async () => {
    assert.equal((await attempts(true, [new ConflictError('409')])).calls, 1);
    assert.equal((await attempts(false, [new KubeApiError('500', 500, 'InternalError')])).calls, 1);
  });
});

describe('why the client reads wire JSON instead of client-node models', () => {
  test('the models do not give back the apiserver timestamps', () => {
    const model = ObjectSerializer.deserialize({ metadata: { name: 'x', creationTimestamp: '2026-09-01T10:00:00Z' } }, 'V1Deployment', '');
    const back = ObjectSerializer.serialize(model, 'V1Deployment', '') as { metadata: { creationTimestamp: string } };
    assert.equal(back.metadata.creationTimestamp, '2026-09-01T10:00:00.000Z');
  });
});
