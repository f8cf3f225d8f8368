// The reconcile's half of traffic routing (shared/reconcile/traffic.ts) against the in-memory
// apiserver: what it reads into the planner's TrafficView, the writes of each routing action, and
// that the user's route and Service come back exactly. The real proxy: test/integration/traffic.release.test.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../shared/kube/types.ts';
import { canaryOwner, observeTraffic, splitActions, trafficView, trafficWrites } from '../../../shared/reconcile/traffic.ts';
import { trafficKey, type StepTraffic } from '../../../shared/rollout/trafficTypes.ts';
import type { Action } from '../../../shared/rollout/types.ts';
import { rolloutSpec, steps } from '../../support/sim/scenario.ts';
import { MemoryCluster } from '../../support/fakes/memoryCluster.ts';

const NS = 'default';
const ten: StepTraffic = { weight: 10, matches: [], requestHeaderModifier: null };
const spec = rolloutSpec({
  steps: steps('1', '100%').map((s, i) => (i === 0 ? { ...s, traffic: ten } : s)),
  trafficRouting: { service: 'web', gracePeriodSeconds: 3, provider: { type: 'gateway', httpRouteName: 'web' } },
});
const MEMBERS = [
  { id: 'rev-a', holder: { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web-aaa', labels: { 'pod-template-hash': 'aaa' } } }, pods: [] },
  { id: 'rev-b', holder: { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web-bbb', labels: { 'pod-template-hash': 'bbb' } } }, pods: [] },
];
const DEPLOYMENT: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: NS, uid: 'uid-web' } };

/** The route's status as a Gateway implementation writes it once it serves `generation`. */
function accepted(generation: number): Record<string, unknown> {
  return { parents: [{ parentRef: { name: 'gw' }, conditions: [{ type: 'Accepted', status: 'True', observedGeneration: generation }] }] };
}

/** What the apiserver and the Gateway do after a spec change of the route: a new generation, accepted or not yet. */
function routeChanged(c: MemoryCluster, acceptedGeneration: number): void {
  const route = c.object({ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', namespace: NS, name: 'web' })!;
  c.put({ ...route, metadata: { ...route.metadata, generation: 2 }, status: accepted(acceptedGeneration) });
}

function cluster(): MemoryCluster {
  const c = new MemoryCluster();
  c.put({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: NS }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }], clusterIP: '10.0.0.7' } });
  c.put({
    apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name: 'web', namespace: NS, generation: 1 },
    spec: { parentRefs: [{ name: 'gw' }], rules: [{ backendRefs: [{ group: '', kind: 'Service', name: 'web', port: 80, weight: 1 }] }] },
    status: accepted(1),
  });
  return c;
}

async function view(c: MemoryCluster) {
  const obs = (await observeTraffic(c, spec))!;
  return { obs, view: trafficView(spec, obs, MEMBERS, 'pod-template-hash') };
}

async function run(c: MemoryCluster, actions: Action[]): Promise<number> {
  const { obs } = await view(c);
  const writes = trafficWrites(obs, actions, 'pod-template-hash', canaryOwner(DEPLOYMENT));
  for (const w of writes) await c.write(w);
  return writes.length;
}

describe('the reconcile\'s traffic routing: read, write, hand back', () => {
  test('reads the user\'s routing as the original one, then the Services and the weight the actions write, then the user\'s again, exactly', async () => {
    const c = cluster();
    const userRoute = c.object({ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', namespace: NS, name: 'web' });
    const userService = c.object({ apiVersion: 'v1', kind: 'Service', namespace: NS, name: 'web' });
    let v = (await view(c)).view;
    assert.deepEqual(v, {
      router: 'httproute/web', revisionLabel: 'pod-template-hash', revisionValues: { 'rev-a': 'aaa', 'rev-b': 'bbb' },
      converged: [trafficKey(null)], pending: {}, stableNarrowedTo: null, canarySelects: null, problem: null,
    });

    assert.ok(await run(c, [{ type: 'set-services', label: 'pod-template-hash', stable: 'aaa', canary: 'bbb' }]) > 0);
    v = (await view(c)).view;
    assert.deepEqual([v.stableNarrowedTo, v.canarySelects], ['aaa', 'bbb']);
    const canary = c.object({ apiVersion: 'v1', kind: 'Service', namespace: NS, name: 'web-canary' });
    assert.deepEqual(canary?.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'uid-web' }]);
    assert.equal(await run(c, [{ type: 'set-services', label: 'pod-template-hash', stable: 'aaa', canary: 'bbb' }]), 0, 'converged: nothing more to write');

    assert.ok(await run(c, [{ type: 'set-traffic', traffic: ten, reason: 'step 1' }]) > 0);
    routeChanged(c, 1);
    v = (await view(c)).view;
    assert.deepEqual(v.converged, [trafficKey(ten)]);
    assert.deepEqual(v.pending, { [trafficKey(ten)]: 'HTTPRoute web: Gateway gw has not accepted generation 2 yet' }, 'written, not live yet: the view names the Gateway');
    routeChanged(c, 2);
    assert.deepEqual((await view(c)).view.pending, {});

    await run(c, [{ type: 'set-traffic', traffic: null, reason: 'abort' }]);
    await run(c, [{ type: 'restore-services' }]);
    v = (await view(c)).view;
    assert.deepEqual([v.converged, v.stableNarrowedTo, v.canarySelects], [[trafficKey(null)], null, null]);
    const route = c.object({ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', namespace: NS, name: 'web' });
    const service = c.object({ apiVersion: 'v1', kind: 'Service', namespace: NS, name: 'web' });
    // The apiserver omits an empty annotations map; the in-memory one keeps it: {} stands for none.
    assert.deepEqual([route?.spec, route?.metadata.annotations ?? {}], [userRoute?.spec, userRoute?.metadata.annotations ?? {}], 'the user\'s route, exactly');
    assert.deepEqual([service?.spec, service?.metadata.annotations ?? {}], [userService?.spec, userService?.metadata.annotations ?? {}], 'the user\'s Service, exactly');
    assert.equal(c.object({ apiVersion: 'v1', kind: 'Service', namespace: NS, name: 'web-canary' }), null);
  });

  test('names what cannot carry the routing: a canary Service that is not ours, a missing stable Service', async () => {
    const c = cluster();
    c.put({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web-canary', namespace: NS }, spec: { selector: { app: 'other' } } });
    assert.match((await view(c)).view.problem ?? '', /^service\/web-canary exists and is not ours/);
    const empty = new MemoryCluster();
    assert.match(trafficView(spec, (await observeTraffic(empty, spec))!, MEMBERS, 'pod-template-hash').problem ?? '', /^service\/web \(trafficRoutings\[0\]\.service\) not found/);
  });

  test('writes the routing actions the planner put before any pod move first, and the step\'s after the moves', () => {
    const unroute: Action = { type: 'set-traffic', traffic: null, reason: 'abort' };
    const distribute: Action = { type: 'distribute', target: 'rev-b', distribution: { 'rev-b': 1, 'rev-a': 9 }, strategy: null, final: false };
    const weight: Action = { type: 'set-traffic', traffic: ten, reason: 'step 1' };
    assert.deepEqual(splitActions([{ type: 'hold' }, unroute]), { before: [unroute], driver: [{ type: 'hold' }], after: [] });
    assert.deepEqual(splitActions([distribute, weight]), { before: [], driver: [distribute], after: [weight] });
  });
});
