// The ingress-nginx provider: the exact canary Ingress at each step, the same annotations and paths
// Kruise's ingress provider writes for the same steps (its table test,
// pkg/trafficrouting/network/ingress/ingress_test.go of openkruise/rollouts at 9dd6279: demoIngress
// lines 195–268, TestEnsureRoutes "ensure routes test2" lines 403–437 and "test3" lines 438–485, run
// through lua_configuration/trafficrouting_ingress/nginx.lua), and the original routing = no canary Ingress.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, KubeWrite } from '../../../shared/kube/types.ts';
import type { StepTraffic, TrafficRouting } from '../../../shared/rollout/trafficTypes.ts';
import { CANARY, CANARY_BY_COOKIE, CANARY_BY_HEADER, CANARY_BY_HEADER_PATTERN, CANARY_BY_HEADER_VALUE, CANARY_WEIGHT, nginxProvider } from '../../../shared/traffic/nginx/canaryIngress.ts';
import { mergePatch } from '../../support/fakes/memoryCluster.ts';

const routing: TrafficRouting = { service: 'echoserver', gracePeriodSeconds: 3, provider: { type: 'ingress', classType: 'nginx', name: 'echoserver' } };
const backend = (name: string, number: number) => ({ service: { name, port: { number } } });

/** Kruise's demoIngress (ingress_test.go lines 195–268), with the uid the apiserver gives it. */
function demoIngress(): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1', kind: 'Ingress',
    metadata: { name: 'echoserver', namespace: 'shop', uid: 'u-1', resourceVersion: '3', annotations: { 'kubernetes.io/ingress.class': 'nginx' } },
    spec: {
      ingressClassName: 'nginx',
      tls: [{ hosts: ['echoserver.example.com'], secretName: 'echoserver-name' }, { hosts: ['log.example.com'], secretName: 'log-name' }],
      rules: [
        { host: 'echoserver.example.com', http: { paths: [{ path: '/apis/echo', backend: backend('echoserver', 80) }, { path: '/apis/other', backend: backend('other', 80) }] } },
        { host: 'log.example.com', http: { paths: [{ path: '/apis/logs', backend: backend('echoserver', 8899) }] } },
      ],
    },
  };
}

/** Kruise's expected canary Ingress spec (each test's expectIngress: the echoserver paths, to echoserver-canary). */
const KRUISE_CANARY_SPEC = {
  ingressClassName: 'nginx',
  tls: [{ hosts: ['echoserver.example.com'], secretName: 'echoserver-name' }, { hosts: ['log.example.com'], secretName: 'log-name' }],
  rules: [
    { host: 'echoserver.example.com', http: { paths: [{ path: '/apis/echo', backend: backend('echoserver-canary', 80) }] } },
    { host: 'log.example.com', http: { paths: [{ path: '/apis/logs', backend: backend('echoserver-canary', 8899) }] } },
  ],
};

class Cluster {
  readonly objects = new Map<string, KubeObject>();
  private rv = 10;
  constructor(...objects: KubeObject[]) {
    for (const o of objects) this.objects.set(o.metadata.name, o);
  }
  plan(traffic: StepTraffic | null) {
    const get = (name: string) => this.objects.get(name) ?? null;
    return nginxProvider.plan({ objects: new Map([['echoserver', get('echoserver')], ['echoserver-canary', get('echoserver-canary')]]), stableService: null }, routing, traffic);
  }
  apply(writes: KubeWrite[]): void {
    for (const w of writes) {
      if (w.verb === 'create') this.objects.set(w.object.metadata.name, { ...w.object, metadata: { ...w.object.metadata, resourceVersion: String(++this.rv) } });
      else if (w.verb === 'delete') this.objects.delete(w.ref.name);
      else {
        const current = this.objects.get(w.ref.name) as KubeObject;
        assert.equal(w.resourceVersion, current.metadata.resourceVersion);
        const next = mergePatch(current, w.patch) as KubeObject;
        this.objects.set(w.ref.name, { ...next, metadata: { ...next.metadata, resourceVersion: String(++this.rv) } });
      }
    }
  }
  /** Runs the step to convergence (creation first, as Kruise), and checks it then writes nothing. */
  step(traffic: StepTraffic | null): KubeObject | undefined {
    for (let pass = 0; pass < 3; pass++) this.apply(this.plan(traffic).writes);
    assert.deepEqual(this.plan(traffic).writes, []);
    return this.objects.get('echoserver-canary');
  }
}

const weight = (w: number): StepTraffic => ({ weight: w, matches: [], requestHeaderModifier: null });

describe('ingress-nginx provider (canary Ingress)', () => {
  test('creates the canary Ingress at weight 0 first, owned by the stable one, as Kruise does before the step\'s weight', () => {
    const cluster = new Cluster(demoIngress());
    const { writes } = cluster.plan(weight(40));
    assert.equal(writes.length, 1);
    assert.deepEqual(writes[0], {
      verb: 'create',
      reason: 'create Ingress echoserver-canary (ingress-nginx canary, weight 0)',
      object: {
        apiVersion: 'networking.k8s.io/v1', kind: 'Ingress',
        metadata: {
          name: 'echoserver-canary', namespace: 'shop',
          labels: { 'app.kubernetes.io/managed-by': 'serverless-rollouts' },
          annotations: { 'kubernetes.io/ingress.class': 'nginx', [CANARY]: 'true', [CANARY_WEIGHT]: '0' },
          ownerReferences: [{ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', name: 'echoserver', uid: 'u-1' }],
        },
        spec: KRUISE_CANARY_SPEC,
      },
    });
  });

  test('a 40% step: canary and canary-weight "40", exactly Kruise\'s "ensure routes test2"', () => {
    const canary = new Cluster(demoIngress()).step(weight(40));
    assert.deepEqual(canary?.metadata.annotations, { 'kubernetes.io/ingress.class': 'nginx', [CANARY]: 'true', [CANARY_WEIGHT]: '40' });
    assert.deepEqual(canary?.spec, KRUISE_CANARY_SPEC);
  });

  test('a regular-expression header match: canary-by-header and canary-by-header-pattern, no weight, exactly Kruise\'s "ensure routes test3"', () => {
    const cluster = new Cluster(demoIngress());
    cluster.step(weight(40));
    const canary = cluster.step({ weight: null, matches: [{ headers: [{ type: 'RegularExpression', name: 'user_id', value: '123*' }], queryParams: [] }], requestHeaderModifier: null });
    assert.deepEqual(canary?.metadata.annotations, { 'kubernetes.io/ingress.class': 'nginx', [CANARY]: 'true', [CANARY_BY_HEADER]: 'user_id', [CANARY_BY_HEADER_PATTERN]: '123*' });
  });

  test('an exact header and a cookie in one step, beside a weight (nginx.lua sets all three)', () => {
    const canary = new Cluster(demoIngress()).step({
      weight: 10,
      matches: [{ headers: [{ type: 'Exact', name: 'x-canary', value: 'yes' }], queryParams: [] }, { headers: [{ type: 'Exact', name: 'canary-by-cookie', value: 'beta' }], queryParams: [] }],
      requestHeaderModifier: null,
    });
    assert.deepEqual(canary?.metadata.annotations, {
      'kubernetes.io/ingress.class': 'nginx', [CANARY]: 'true', [CANARY_WEIGHT]: '10', [CANARY_BY_HEADER]: 'x-canary', [CANARY_BY_HEADER_VALUE]: 'yes', [CANARY_BY_COOKIE]: 'beta',
    });
  });

  test('the original routing deletes the canary Ingress and leaves the stable one as it was', () => {
    const cluster = new Cluster(demoIngress());
    cluster.step(weight(40));
    assert.equal(cluster.step(null), undefined);
    assert.deepEqual(cluster.objects.get('echoserver'), demoIngress());
  });

  test('refuses a canary Ingress name taken by an Ingress that is not ours', () => {
    const foreign: KubeObject = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'echoserver-canary', namespace: 'shop' } };
    assert.throws(() => new Cluster(demoIngress(), foreign).plan(weight(10)), { name: 'TrafficObjectError', message: /echoserver-canary exists and is not ours/ });
  });

  test('names what ingress-nginx cannot match, which Kruise\'s Lua would drop', () => {
    const step = (traffic: StepTraffic) => ({ replicas: 1, pause: { type: 'none' }, traffic });
    const issues = nginxProvider.specIssues({
      steps: [
        step({ weight: null, matches: [{ path: { type: 'PathPrefix', value: '/v2' }, headers: [], queryParams: [] }], requestHeaderModifier: null }),
        step({ weight: null, matches: [{ headers: [{ type: 'Exact', name: 'a', value: '1' }, { type: 'Exact', name: 'b', value: '2' }], queryParams: [] }], requestHeaderModifier: null }),
        step({ weight: null, matches: [{ headers: [{ type: 'Exact', name: 'a', value: '1' }], queryParams: [] }, { headers: [{ type: 'Exact', name: 'b', value: '1' }], queryParams: [] }], requestHeaderModifier: null }),
        step({ weight: 5, matches: [], requestHeaderModifier: { set: [{ name: 'x', value: 'y' }], add: [], remove: [] } }),
      ],
    } as never);
    assert.deepEqual(issues.map((i) => i.path), [
      'spec.strategy.canary.steps[0].matches[0]',
      'spec.strategy.canary.steps[1].matches[0].headers',
      'spec.strategy.canary.steps[2].matches',
      'spec.strategy.canary.steps[3].requestHeaderModifier',
    ]);
  });
});
