// The canary Service and the narrowed stable Service, as Kruise's traffic manager shapes them
// (pkg/trafficrouting/manager.go of openkruise/rollouts at 9dd6279: createCanaryService lines
// 431–477, PatchStableService 341–375, RestoreStableService 479–513), with the stable Service put
// back exactly: a selector that already named the revision label keeps its own value.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, KubeWrite } from '../../../shared/kube/types.ts';
import type { TrafficRouting } from '../../../shared/rollout/trafficTypes.ts';
import { ORIGINAL_SELECTOR_ANNOTATION, canaryServiceWrites, desiredCanaryService, narrowStableServiceWrites, removeCanaryServiceWrites, restoreStableServiceWrites } from '../../../shared/traffic/services.ts';
import { mergePatch } from '../../support/fakes/memoryCluster.ts';

const routing: TrafficRouting = { service: 'echoserver', gracePeriodSeconds: 3, provider: { type: 'gateway', httpRouteName: 'r' } };
const revisions = { label: 'pod-template-hash', stable: '5d9c8f', canary: '7b6d4c' };
const owner = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'echoserver', uid: 'd-1' };

/** Kruise's e2e Service (openkruise/rollouts:test/e2e/test_data/rollout/service.yaml) as the apiserver stores it. */
function stableService(selector: Record<string, string> = { app: 'echoserver' }): KubeObject {
  return {
    apiVersion: 'v1', kind: 'Service',
    metadata: {
      name: 'echoserver', namespace: 'shop', resourceVersion: '4', labels: { app: 'echoserver' },
      annotations: { team: 'web', 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
    },
    spec: {
      type: 'NodePort', clusterIP: '10.96.0.12', clusterIPs: ['10.96.0.12'], ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack',
      ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP', nodePort: 30080 }],
      selector,
    },
  };
}

function apply(obj: KubeObject, writes: KubeWrite[]): KubeObject {
  return writes.reduce((o, w) => (w.verb === 'patch' ? (mergePatch(o, w.patch) as KubeObject) : o), obj);
}

describe('canary and stable Services', () => {
  test('the canary Service is the stable one\'s copy selecting only the new revision, without its allocated fields', () => {
    assert.deepEqual(desiredCanaryService(stableService(), routing, revisions, owner), {
      apiVersion: 'v1', kind: 'Service',
      metadata: {
        name: 'echoserver-canary', namespace: 'shop',
        labels: { app: 'echoserver', 'app.kubernetes.io/managed-by': 'serverless-rollouts' },
        annotations: { team: 'web' },
        ownerReferences: [owner],
      },
      spec: { type: 'NodePort', ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }], selector: { app: 'echoserver', 'pod-template-hash': '7b6d4c' } },
    });
  });

  test('is created once, then moved to a new canary revision with one selector patch', () => {
    const [create] = canaryServiceWrites(stableService(), null, routing, revisions, owner);
    assert.equal(create?.verb, 'create');
    const created = (create as Extract<KubeWrite, { verb: 'create' }>).object;
    assert.deepEqual(canaryServiceWrites(stableService(), created, routing, revisions, owner), []);
    const moved = canaryServiceWrites(stableService(), { ...created, metadata: { ...created.metadata, resourceVersion: '9' } }, routing, { ...revisions, canary: 'aa11' }, owner);
    assert.deepEqual(moved.map((w) => w.verb === 'patch' && [w.patch, w.resourceVersion]), [[{ spec: { selector: { 'pod-template-hash': 'aa11' } } }, '9']]);
  });

  test('refuses a Service named <service>-canary that is not ours', () => {
    const foreign: KubeObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'echoserver-canary' }, spec: {} };
    assert.throws(() => canaryServiceWrites(stableService(), foreign, routing, revisions, owner), { name: 'TrafficObjectError', message: /echoserver-canary exists and is not ours/ });
  });

  test('the stable Service is narrowed to the stable revision, and put back exactly', () => {
    const original = stableService();
    const narrowed = apply(original, narrowStableServiceWrites(original, revisions));
    assert.deepEqual(narrowed.spec?.selector, { app: 'echoserver', 'pod-template-hash': '5d9c8f' });
    assert.equal(narrowed.metadata.annotations?.[ORIGINAL_SELECTOR_ANNOTATION], 'null');
    assert.deepEqual(narrowStableServiceWrites(narrowed, revisions), [], 'narrowed once');
    const restored = apply(narrowed, restoreStableServiceWrites(narrowed, revisions.label));
    assert.deepEqual(restored, original);
    assert.deepEqual(restoreStableServiceWrites(restored, revisions.label), []);
  });

  test('a stable Service that already selected on the revision label gets its own value back, where Kruise deletes the key', () => {
    const original = stableService({ app: 'echoserver', 'pod-template-hash': 'pinned' });
    const narrowed = apply(original, narrowStableServiceWrites(original, revisions));
    // A second narrowing (a crash and a new pass, or the next release) keeps the first record.
    const again = apply(narrowed, narrowStableServiceWrites(narrowed, { ...revisions, stable: '99' }));
    assert.equal(again.metadata.annotations?.[ORIGINAL_SELECTOR_ANNOTATION], '"pinned"');
    assert.deepEqual(apply(again, restoreStableServiceWrites(again, revisions.label)), original);
  });

  test('the canary Service is deleted only when it is ours', () => {
    const ours = desiredCanaryService(stableService(), routing, revisions, owner);
    assert.deepEqual(removeCanaryServiceWrites(ours).map((w) => w.verb), ['delete']);
    assert.deepEqual(removeCanaryServiceWrites({ ...ours, metadata: { ...ours.metadata, labels: {} } }), []);
    assert.deepEqual(removeCanaryServiceWrites(null), []);
  });
});
