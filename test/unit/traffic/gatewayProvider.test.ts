// The Gateway API provider: the exact HTTPRoute at each step, the same rules Kruise's gateway provider
// writes for the same steps (its own table test, pkg/trafficrouting/network/gateway/gateway_test.go
// of openkruise/rollouts at 9dd6279, TestBuildDesiredHTTPRoute, lines 130–956), the original route
// back exactly, and one pass over its own result writes nothing.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, KubeWrite } from '../../../shared/kube/types.ts';
import type { StepTraffic, TrafficRouting } from '../../../shared/rollout/trafficTypes.ts';
import { ORIGINAL_WEIGHTS_ANNOTATION, gatewayProvider, routePending } from '../../../shared/traffic/gateway/httpRoute.ts';
import { TrafficObjectError } from '../../../shared/traffic/provider.ts';
import { mergePatch } from '../../support/fakes/memoryCluster.ts';

const routing: TrafficRouting = { service: 'store-svc', gracePeriodSeconds: 3, provider: { type: 'gateway', httpRouteName: 'demo' } };

/** A backendRef as the apiserver stores it (the CRD defaults group, kind and weight). */
const ref = (name: string, weight = 1) => ({ group: '', kind: 'Service', name, port: 8080, weight });
const path = (value: string) => ({ type: 'PathPrefix', value });
const exact = (name: string, value: string) => ({ type: 'Exact' as const, name, value });
const regex = (name: string, value: string) => ({ type: 'RegularExpression' as const, name, value });

/** Kruise's routeDemo (gateway_test.go lines 30–127), as stored: four rules, two of them to store-svc. */
function routeDemoRules(): Record<string, unknown>[] {
  return [
    { matches: [{ path: path('/web') }], backendRefs: [ref('web-svc')] },
    { matches: [{ path: path('/store'), headers: [exact('version', 'v2')] }, { path: path('/v2/store') }], backendRefs: [ref('store-svc')] },
    { matches: [{ path: path('/list') }], backendRefs: [ref('list-svc')] },
    { matches: [{ path: path('/storage') }], backendRefs: [ref('store-svc')] },
  ];
}

function route(rules = routeDemoRules(), extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute',
    metadata: { name: 'demo', namespace: 'shop', resourceVersion: '7', generation: 1, ...extra },
    spec: { parentRefs: [{ name: 'gw' }], hostnames: ['shop.example'], rules },
  };
}

const weight = (w: number): StepTraffic => ({ weight: w, matches: [], requestHeaderModifier: null });

function plan(live: KubeObject, traffic: StepTraffic | null) {
  return gatewayProvider.plan({ objects: new Map([['demo', live]]), stableService: null }, routing, traffic);
}

/** The route after the plan's writes, as the apiserver would store them. */
function apply(live: KubeObject, writes: KubeWrite[]): KubeObject {
  return writes.reduce((obj, w) => {
    assert.equal(w.verb, 'patch');
    if (w.verb !== 'patch') return obj;
    assert.equal(w.resourceVersion, obj.metadata.resourceVersion, 'every write is guarded by the resourceVersion it was computed from');
    const next = mergePatch(obj, w.patch) as KubeObject;
    const metadata = { ...next.metadata, resourceVersion: String(Number(obj.metadata.resourceVersion) + 1) };
    // The apiserver omits an empty map (omitempty).
    if (Object.keys(metadata.annotations ?? {}).length === 0) delete metadata.annotations;
    return { ...next, metadata };
  }, live);
}

function step(live: KubeObject, traffic: StepTraffic | null): KubeObject {
  const next = apply(live, plan(live, traffic).writes);
  assert.deepEqual(plan(next, traffic).writes, [], 'a pass over its own result writes nothing');
  return next;
}

describe('gateway provider (HTTPRoute)', () => {
  test('a 20% step weights every stable backend 80/20, exactly as Kruise ("canary weight: 20", gateway_test.go lines 744–845)', () => {
    const next = step(route(), weight(20));
    const kruiseDesired = routeDemoRules();
    kruiseDesired[1]!.backendRefs = [ref('store-svc', 80), ref('store-svc-canary', 20)];
    kruiseDesired[3]!.backendRefs = [ref('store-svc', 80), ref('store-svc-canary', 20)];
    assert.deepEqual(next.spec?.rules, kruiseDesired);
    assert.deepEqual(next.metadata.annotations, { [ORIGINAL_WEIGHTS_ANNOTATION]: '{"1":1,"3":1}' }, 'the stable weights it replaced, once');
  });

  test('header matches add one canary rule per stable rule, each rule match AND each step match, exactly as Kruise ("test headers", lines 138–314)', () => {
    const traffic: StepTraffic = {
      weight: null,
      matches: [
        { headers: [regex('user_id', '123*'), exact('canary', 'true')], queryParams: [] },
        { headers: [regex('user_id', '234*'), exact('canary', 'true')], queryParams: [] },
      ],
      requestHeaderModifier: null,
    };
    const next = step(route(), traffic);
    // Kruise's expected rules, with the header type its Rollout CRD defaults ("Exact") written out.
    const kruiseDesired = [
      ...routeDemoRules(),
      {
        matches: [
          { path: path('/store'), headers: [exact('version', 'v2'), regex('user_id', '123*'), exact('canary', 'true')] },
          { path: path('/store'), headers: [exact('version', 'v2'), regex('user_id', '234*'), exact('canary', 'true')] },
          { path: path('/v2/store'), headers: [regex('user_id', '123*'), exact('canary', 'true')] },
          { path: path('/v2/store'), headers: [regex('user_id', '234*'), exact('canary', 'true')] },
        ],
        backendRefs: [ref('store-svc-canary')],
      },
      {
        matches: [
          { path: path('/storage'), headers: [regex('user_id', '123*'), exact('canary', 'true')] },
          { path: path('/storage'), headers: [regex('user_id', '234*'), exact('canary', 'true')] },
        ],
        backendRefs: [ref('store-svc-canary')],
      },
    ];
    assert.deepEqual(next.spec?.rules, kruiseDesired);
  });

  test('walks 10% → 50% → a header match → the original route, each step computed from the user\'s route', () => {
    const original = route();
    const s1 = step(original, weight(10));
    assert.deepEqual((s1.spec?.rules as any[])[1].backendRefs, [ref('store-svc', 90), ref('store-svc-canary', 10)]);
    const s2 = step(s1, weight(50));
    assert.deepEqual((s2.spec?.rules as any[])[3].backendRefs, [ref('store-svc', 50), ref('store-svc-canary', 50)]);
    const s3 = step(s2, { weight: null, matches: [{ headers: [exact('x-canary', 'yes')], queryParams: [] }], requestHeaderModifier: null });
    assert.deepEqual((s3.spec?.rules as any[]).slice(0, 4), routeDemoRules(), 'a match step takes the weights back out (matches take precedence)');
    assert.equal((s3.spec?.rules as any[]).length, 6);
    const restored = step(s3, null);
    assert.deepEqual({ ...restored, metadata: { ...restored.metadata, resourceVersion: '7' } }, original, 'the route is the user\'s again, annotation gone');
  });

  test('puts back a stable weight that was not 1, where Kruise\'s Finalise writes 1 ("canary weight: -1", lines 846–935)', () => {
    const rules = routeDemoRules();
    rules[1]!.backendRefs = [ref('store-svc', 5), ref('legacy-svc', 5)];
    const original = route(rules);
    const restored = step(step(original, weight(30)), null);
    assert.deepEqual((restored.spec?.rules as any[])[1].backendRefs, [ref('store-svc', 5), ref('legacy-svc', 5)]);
  });

  test('places path matches as their own matches, once, and the others combined with every stable rule', () => {
    const traffic: StepTraffic = {
      weight: null,
      matches: [{ path: { type: 'Exact', value: '/beta' }, headers: [], queryParams: [] }, { headers: [], queryParams: [exact('v', '2')] }],
      requestHeaderModifier: null,
    };
    const canaryRules = (step(route(), traffic).spec?.rules as any[]).slice(4);
    assert.deepEqual(canaryRules.map((r) => r.matches), [
      [{ path: { type: 'Exact', value: '/beta' } }, { path: path('/store'), headers: [exact('version', 'v2')], queryParams: [exact('v', '2')] }, { path: path('/v2/store'), queryParams: [exact('v', '2')] }],
      [{ path: path('/storage'), queryParams: [exact('v', '2')] }],
    ]);
  });

  test('gives the canary\'s match rules the step\'s requestHeaderModifier, and leaves the rule name out (names are unique in a route)', () => {
    const rules = [{ name: 'main', matches: [{ path: path('/') }], backendRefs: [ref('store-svc')] }];
    const next = step(route(rules), {
      weight: null,
      matches: [{ headers: [exact('x-canary', 'yes')], queryParams: [] }],
      requestHeaderModifier: { set: [{ name: 'x-release', value: 'canary' }], add: [], remove: ['x-debug'] },
    });
    assert.deepEqual((next.spec?.rules as any[])[1], {
      matches: [{ path: path('/'), headers: [exact('x-canary', 'yes')] }],
      filters: [{ type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'x-release', value: 'canary' }], remove: ['x-debug'] } }],
      backendRefs: [ref('store-svc-canary')],
    });
  });

  test('sends everything to the canary at 100%: stable weight 0', () => {
    const next = step(route([{ matches: [{ path: path('/') }], backendRefs: [ref('store-svc')] }]), weight(100));
    assert.deepEqual((next.spec?.rules as any[])[0].backendRefs, [ref('store-svc', 0), ref('store-svc-canary', 100)]);
  });

  test('refuses a route with no backend to the stable Service, and one that would exceed Gateway API\'s 16 rules', () => {
    assert.throws(() => plan(route([{ matches: [{ path: path('/') }], backendRefs: [ref('other')] }]), weight(10)), { name: 'TrafficObjectError', message: /no rule with a backendRef to Service store-svc/ });
    const many = Array.from({ length: 9 }, (_, i) => ({ matches: [{ path: path(`/p${i}`) }], backendRefs: [ref('store-svc')] }));
    assert.throws(() => plan(route(many), { weight: null, matches: [{ headers: [exact('a', 'b')], queryParams: [] }], requestHeaderModifier: null }), (err: unknown) => err instanceof TrafficObjectError && /18 rules.*16 rules/.test(err.message));
  });

  test('a missing route is an error for a step, and nothing to do for the original routing', () => {
    const observed = { objects: new Map<string, KubeObject | null>([['demo', null]]), stableService: null };
    assert.throws(() => gatewayProvider.plan(observed, routing, weight(10)), /HTTPRoute demo not found/);
    assert.deepEqual(gatewayProvider.plan(observed, routing, null), { writes: [], pending: null });
  });

  test('says the traffic is not live until every parent Gateway accepted the route\'s generation', () => {
    const accepted = (observedGeneration: number) => ({ parents: [{ parentRef: { name: 'gw' }, conditions: [{ type: 'Accepted', status: 'True', observedGeneration }] }] });
    assert.equal(routePending({ ...route(), metadata: { name: 'demo', generation: 3 }, status: accepted(2) }), 'HTTPRoute demo: Gateway gw has not accepted generation 3 yet');
    assert.equal(routePending({ ...route(), metadata: { name: 'demo', generation: 3 }, status: accepted(3) }), null);
    assert.equal(routePending(route()), 'HTTPRoute demo: no Gateway has accepted it yet');
  });

  test('refuses a requestHeaderModifier on a weight-only step, naming the field', () => {
    const issues = gatewayProvider.specIssues({
      steps: [{ replicas: 1, pause: { type: 'none' }, traffic: { weight: 10, matches: [], requestHeaderModifier: { set: [], add: [], remove: ['x'] } } }],
    } as never);
    assert.deepEqual(issues.map((i) => i.path), ['spec.strategy.canary.steps[0].requestHeaderModifier']);
  });
});
