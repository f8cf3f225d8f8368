// The pure parts of KubeClusterClient: patch guarding, error mapping, and the REST paths of the
// kinds. Requests against a real apiserver are in test/integration/kube-client.test.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiException } from '@kubernetes/client-node';
// Not re-exported by the package index; reached by path only to document its behaviour.
import { ObjectSerializer } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';
import { ConflictError, ForbiddenError, GoneError, NotFoundError, UnauthorizedError, ValidationError } from '../../../shared/errors.ts';
import { guardedPatchBody, PATCH_CONTENT_TYPE } from '../../../shared/adapters/kubernetes/patchBody.ts';
import { InvalidObjectError, KubeApiError, toKubeError } from '../../../shared/adapters/kubernetes/kubeErrors.ts';
import { kindInfo, objectPath, resourcePath, UnsupportedKindError } from '../../../shared/adapters/kubernetes/kinds.ts';

function apiException(code: number, status: object): ApiException<unknown> {
  return new ApiException(code, 'Unknown API Status Code!', JSON.stringify({ kind: 'Status', apiVersion: 'v1', ...status }), {});
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
      const original = apiException(code, { code, message: `status ${code}` });
      const mapped = toKubeError(original, 'get apps/v1/Deployment web/api');
      assert.ok(mapped instanceof cls, `${code} → ${cls.name}`);
      assert.equal(mapped.message, `get apps/v1/Deployment web/api: status ${code}`);
      assert.equal(mapped.cause, original);
    }
  });

  test('turns a 422 into a ValidationError carrying the apiserver message and field causes', () => {
    const mapped = toKubeError(
      apiException(422, {
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
    const throttled = toKubeError(apiException(429, { code: 429, reason: 'TooManyRequests', message: 'slow down' }), 'list');
    assert.ok(throttled instanceof KubeApiError);
    assert.equal(throttled.status, 429);
    assert.equal(throttled.reason, 'TooManyRequests');
    const refused = toKubeError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }), 'get');
    assert.ok(refused instanceof KubeApiError);
    assert.equal(refused.status, 0);
    assert.match(refused.message, /ECONNREFUSED/);
  });
});

describe('REST paths of the kinds', () => {
  test('core-group and named-group objects and collections, namespaced, with names encoded', () => {
    assert.equal(objectPath({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' }, kindInfo('apps/v1', 'Deployment', 'patch')), '/apis/apps/v1/namespaces/shop/deployments/web');
    assert.equal(resourcePath('v1', kindInfo('v1', 'Pod', 'list'), 'shop'), '/api/v1/namespaces/shop/pods');
    assert.equal(objectPath({ apiVersion: 'v1', kind: 'Pod', namespace: 'a b', name: 'x/y' }, kindInfo('v1', 'Pod', 'delete')), '/api/v1/namespaces/a%20b/pods/x%2Fy');
  });

  test('a cluster-scoped kind has no namespace in its path', () => {
    assert.equal(objectPath({ apiVersion: 'v1', kind: 'Namespace', namespace: '', name: 'shop' }, kindInfo('v1', 'Namespace', 'get')), '/api/v1/namespaces/shop');
  });

  test('an unknown kind, or a verb we never send a kind, is refused before any request', () => {
    assert.throws(() => kindInfo('apps.kruise.io/v1alpha1', 'CloneSet', 'get'), (err: unknown) => err instanceof UnsupportedKindError && /unsupported kind apps.kruise.io\/v1alpha1\/CloneSet/.test(String(err)));
    assert.throws(() => kindInfo('v1', 'Namespace', 'patch'), (err: unknown) => err instanceof UnsupportedKindError && /patch is not supported for v1\/Namespace/.test(String(err)));
  });
});

describe('why the client reads wire JSON instead of client-node models', () => {
  test('the models do not give back the apiserver timestamps', () => {
    const model = ObjectSerializer.deserialize({ metadata: { name: 'x', creationTimestamp: '2026-09-01T10:00:00Z' } }, 'V1Deployment', '');
    const back = ObjectSerializer.serialize(model, 'V1Deployment', '') as { metadata: { creationTimestamp: string } };
    assert.equal(back.metadata.creationTimestamp, '2026-09-01T10:00:00.000Z');
  });
});
