// The AWS Load Balancer Controller provider: the exact Ingress at each step, compared with what
// Argo Rollouts' ALB router writes for the same steps (argoproj/argo-rollouts v1.9.1,
// rollout/trafficrouting/alb/alb.go: getForwardActionString lines 350–404,
// getTrafficForwardActionString 485–521, upsertCondition 523–538, getTrafficForwardConditionString
// 540–548; utils/ingress/ingress.go ALBAction/ALBCondition structs 36–76; utils/ingress/wrapper.go
// CreateAnnotationBasedPath 178–218; its test fixture alb_test.go actionTemplate and ingress(), 86–179),
// every annotation checked against the controller's schema, and the user's Ingress back exactly.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, KubeWrite } from '../../../shared/kube/types.ts';
import type { StepTraffic, TrafficRouting } from '../../../shared/rollout/trafficTypes.ts';
import { ORIGINAL_ANNOTATIONS, albProvider } from '../../../shared/traffic/alb/albIngress.ts';
import { albAnnotationProblem } from '../../../shared/traffic/alb/annotationSchema.ts';
import { mergePatch } from '../../support/fakes/memoryCluster.ts';

const routing: TrafficRouting = { service: 'stable-svc', gracePeriodSeconds: 20, provider: { type: 'ingress', classType: 'aws-alb', name: 'ingress' } };
const ACTION = 'alb.ingress.kubernetes.io/actions.stable-svc';
/** The user's own action before the release: everything to the stable Service, on port 443. */
const USER_ACTION = '{"type":"forward","forwardConfig":{"targetGroups":[{"serviceName":"stable-svc","servicePort":"443"}]}}';
const useAnnotation = (name: string, path = '/*', pathType = 'ImplementationSpecific') => ({ path, pathType, backend: { service: { name, port: { name: 'use-annotation' } } } });

function userIngress(): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1', kind: 'Ingress',
    metadata: { name: 'ingress', namespace: 'default', resourceVersion: '1', annotations: { 'kubernetes.io/ingress.class': 'alb', [ACTION]: USER_ACTION } },
    spec: { rules: [{ http: { paths: [useAnnotation('stable-svc')] } }] },
  };
}

function plan(live: KubeObject, traffic: StepTraffic | null, stableService: KubeObject | null = null) {
  return albProvider.plan({ objects: new Map([['ingress', live]]), stableService }, routing, traffic);
}

function apply(live: KubeObject, writes: KubeWrite[]): KubeObject {
  return writes.reduce((obj, w) => {
    assert.ok(w.verb === 'patch' && w.resourceVersion === obj.metadata.resourceVersion);
    const next = mergePatch(obj, w.verb === 'patch' ? w.patch : {}) as KubeObject;
    return { ...next, metadata: { ...next.metadata, resourceVersion: String(Number(obj.metadata.resourceVersion) + 1) } };
  }, live);
}

function step(live: KubeObject, traffic: StepTraffic | null): KubeObject {
  const next = apply(live, plan(live, traffic).writes);
  assert.deepEqual(plan(next, traffic).writes, [], 'a pass over its own result writes nothing');
  for (const [key, value] of Object.entries(next.metadata.annotations ?? {})) {
    if (key.startsWith('alb.ingress.kubernetes.io/actions.')) assert.equal(albAnnotationProblem('action', value), null, key);
    if (key.startsWith('alb.ingress.kubernetes.io/conditions.')) assert.equal(albAnnotationProblem('conditions', value), null, key);
  }
  return next;
}

const weight = (w: number): StepTraffic => ({ weight: w, matches: [], requestHeaderModifier: null });

describe('AWS Load Balancer Controller provider (Ingress actions)', () => {
  test('a 10% step writes the weighted forward action byte for byte as Argo\'s getForwardActionString, canary first', () => {
    const next = step(userIngress(), weight(10));
    // Argo's actionTemplate with canary "stable-svc-canary", port 443, weight 10, as json.Marshal writes it.
    const argo = '{"Type":"forward","ForwardConfig":{"TargetGroups":[{"ServiceName":"stable-svc-canary","ServicePort":"443","Weight":10},{"ServiceName":"stable-svc","ServicePort":"443","Weight":90}]}}';
    assert.equal(next.metadata.annotations?.[ACTION], argo);
    assert.deepEqual(next.metadata.annotations, {
      'kubernetes.io/ingress.class': 'alb',
      [ACTION]: argo,
      // Where Argo writes rollouts.argoproj.io/managed-alb-annotations, we record the value we replaced.
      [ORIGINAL_ANNOTATIONS]: JSON.stringify({ [ACTION]: USER_ACTION }),
    });
    assert.deepEqual(next.spec, userIngress().spec, 'a weight changes no path');
  });

  test('marshals weight 0 (Argo\'s TestGetForwardActionStringMarshalsZeroCorrectly) and keeps the user\'s stickiness in Argo\'s shape', () => {
    const sticky = userIngress();
    sticky.metadata.annotations![ACTION] = '{"type":"forward","forwardConfig":{"targetGroups":[{"serviceName":"stable-svc","servicePort":443}],"targetGroupStickinessConfig":{"enabled":true,"durationSeconds":300}}}';
    const next = step(sticky, weight(0));
    assert.equal(next.metadata.annotations?.[ACTION],
      '{"Type":"forward","ForwardConfig":{"TargetGroups":[{"ServiceName":"stable-svc-canary","ServicePort":"443","Weight":0},{"ServiceName":"stable-svc","ServicePort":"443","Weight":100}],"TargetGroupStickinessConfig":{"Enabled":true,"DurationSeconds":300}}}');
  });

  test('a header match adds Argo\'s header route: an all-canary action, http-header conditions, and a use-annotation path in front', () => {
    const next = step(userIngress(), {
      weight: null,
      matches: [{ headers: [{ type: 'Exact', name: 'origin', value: 'https://www.fake-origin1.com' }, { type: 'Exact', name: 'Agent', value: 'Chrome' }], queryParams: [] }],
      requestHeaderModifier: null,
    });
    // Argo's SetHeaderRoute("header-route", [origin exact, Agent exact]) (alb_test.go TestSetHeaderRouteWithDifferentHeaderNames), our action named stable-svc-canary-m0.
    assert.equal(next.metadata.annotations?.['alb.ingress.kubernetes.io/actions.stable-svc-canary-m0'],
      '{"Type":"forward","ForwardConfig":{"TargetGroups":[{"ServiceName":"stable-svc-canary","ServicePort":"443","Weight":100}]}}');
    assert.equal(next.metadata.annotations?.['alb.ingress.kubernetes.io/conditions.stable-svc-canary-m0'],
      '[{"field":"http-header","httpHeaderConfig":{"httpHeaderName":"origin","values":["https://www.fake-origin1.com"]}},{"field":"http-header","httpHeaderConfig":{"httpHeaderName":"Agent","values":["Chrome"]}}]');
    assert.equal(next.metadata.annotations?.[ACTION], USER_ACTION, 'matches take precedence: the stable action stays the user\'s');
    // CreateAnnotationBasedPath: path "/*", ImplementationSpecific, backend <route>/use-annotation, first in the rule.
    assert.deepEqual(next.spec?.rules, [{ http: { paths: [useAnnotation('stable-svc-canary-m0'), useAnnotation('stable-svc')] } }]);
  });

  test('turns query and path matches into query-string and path-pattern conditions, a PathPrefix as two patterns', () => {
    const next = step(userIngress(), {
      weight: null,
      matches: [{ path: { type: 'PathPrefix', value: '/beta/' }, headers: [], queryParams: [{ type: 'Exact', name: 'v', value: '2' }] }],
      requestHeaderModifier: null,
    });
    assert.equal(next.metadata.annotations?.['alb.ingress.kubernetes.io/conditions.stable-svc-canary-m0'],
      '[{"field":"query-string","queryStringConfig":{"values":[{"key":"v","value":"2"}]}},{"field":"path-pattern","pathPatternConfig":{"values":["/beta","/beta/*"]}}]');
  });

  test('walks 10% → 50% → a match → the user\'s Ingress again, exactly', () => {
    const original = userIngress();
    const s2 = step(step(original, weight(10)), weight(50));
    assert.match(s2.metadata.annotations?.[ACTION] ?? '', /"Weight":50\},\{"ServiceName":"stable-svc","ServicePort":"443","Weight":50\}/);
    const s3 = step(s2, { weight: null, matches: [{ headers: [{ type: 'Exact', name: 'x-canary', value: 'yes' }], queryParams: [] }], requestHeaderModifier: null });
    const restored = step(s3, null);
    assert.deepEqual({ ...restored, metadata: { ...restored.metadata, resourceVersion: '1' } }, original);
  });

  test('finds the port on the stable Service when the user\'s action names none', () => {
    const bare = userIngress();
    delete bare.metadata.annotations![ACTION];
    const service: KubeObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'stable-svc' }, spec: { ports: [{ port: 8080 }] } };
    const next = apply(bare, plan(bare, weight(5), service).writes);
    assert.match(next.metadata.annotations?.[ACTION] ?? '', /"ServicePort":"8080","Weight":5/);
    const restored = apply(next, plan(next, null, service).writes);
    assert.equal(restored.metadata.annotations?.[ACTION], undefined, 'absent before, absent after');
    assert.throws(() => plan(bare, weight(5), { ...service, spec: { ports: [{ port: 80 }, { port: 443 }] } }), /give the Service exactly one port \(it has 2\)/);
  });

  test('refuses an Ingress that does not route to the stable Service through use-annotation, as Argo does', () => {
    const direct = userIngress();
    direct.spec = { rules: [{ http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'stable-svc', port: { number: 443 } } } }] } }] };
    assert.throws(() => plan(direct, weight(10)), { name: 'TrafficObjectError', message: /no path whose backend is Service stable-svc with port name use-annotation/ });
  });

  test('names what an ALB rule cannot express', () => {
    const traffic = (t: Partial<StepTraffic>): StepTraffic => ({ weight: null, matches: [], requestHeaderModifier: null, ...t });
    const issues = albProvider.specIssues({
      trafficRouting: routing,
      steps: [
        { replicas: 1, pause: { type: 'none' }, traffic: traffic({ matches: [{ headers: [{ type: 'RegularExpression', name: 'a', value: 'b.*' }], queryParams: [] }] }) },
        { replicas: 1, pause: { type: 'none' }, traffic: traffic({ matches: [{ headers: [{ type: 'Exact', name: 'a', value: 'b*' }], queryParams: [] }] }) },
        { replicas: 1, pause: { type: 'none' }, traffic: traffic({ matches: [{ path: { type: 'PathPrefix', value: '/x' }, headers: ['a', 'b', 'c', 'd'].map((n) => ({ type: 'Exact' as const, name: n, value: '1' })), queryParams: [] }] }) },
        { replicas: 1, pause: { type: 'none' }, traffic: traffic({ weight: 5, requestHeaderModifier: { set: [], add: [], remove: ['x'] } }) },
      ],
    } as never);
    assert.deepEqual(issues.map((i) => i.path), [
      'spec.strategy.canary.steps[0].matches[0].headers[0].type',
      'spec.strategy.canary.steps[1].matches[0].headers[0].value',
      'spec.strategy.canary.steps[2].matches[0]',
      'spec.strategy.canary.steps[3].requestHeaderModifier',
    ]);
  });
});

describe('the AWS Load Balancer Controller\'s annotation schema (pkg/ingress/config_types.go)', () => {
  test('reads Argo\'s capitalised keys as Go does, case-insensitively', () => {
    assert.equal(albAnnotationProblem('action', '{"Type":"forward","ForwardConfig":{"TargetGroups":[{"ServiceName":"a","ServicePort":"80","Weight":10},{"ServiceName":"b","ServicePort":"80","Weight":90}]}}'), null);
    assert.equal(albAnnotationProblem('action', '{"type":"fixed-response","fixedResponseConfig":{"statusCode":"503"}}'), null);
    assert.equal(albAnnotationProblem('conditions', '[{"field":"source-ip","sourceIPConfig":{"values":["10.0.0.0/8"]}}]'), null);
  });

  const refused: [string, 'action' | 'conditions', string, RegExp][] = [
    ['two target groups without weights', 'action', '{"type":"forward","forwardConfig":{"targetGroups":[{"serviceName":"a","servicePort":80},{"serviceName":"b","servicePort":80}]}}', /weight must be set when route to multiple target groups/],
    ['a service without its port', 'action', '{"type":"forward","forwardConfig":{"targetGroups":[{"serviceName":"a"}]}}', /missing servicePort/],
    ['a target group by ARN and by service', 'action', '{"type":"forward","forwardConfig":{"targetGroups":[{"serviceName":"a","servicePort":80,"targetGroupARN":"arn:x"}]}}', /either serviceName or targetGroupARN/],
    ['a weight over ELBv2\'s 999', 'action', '{"type":"forward","forwardConfig":{"targetGroups":[{"serviceName":"a","servicePort":80,"weight":1000}]}}', /0 to 999/],
    ['an unknown action type', 'action', '{"type":"rewrite"}', /unknown action type/],
    ['a forward with nothing to forward to', 'action', '{"type":"forward"}', /missing ForwardConfig or TargetGroupARN/],
    ['a redirect without its status code', 'action', '{"type":"redirect","redirectConfig":{"host":"x"}}', /statusCode is required/],
    ['a key that is no field (a typo)', 'action', '{"type":"forward","forwardConfig":{"targetGroup":[]}}', /Unrecognized key/],
    ['a header condition without values', 'conditions', '[{"field":"http-header","httpHeaderConfig":{"httpHeaderName":"x"}}]', /values or regexValues must be specified/],
    ['values and regexValues together', 'conditions', '[{"field":"path-pattern","pathPatternConfig":{"values":["/a"],"regexValues":["/b"]}}]', /precisely one of values and regexValues/],
    ['a condition without its config', 'conditions', '[{"field":"query-string"}]', /missing queryStringConfig/],
    ['not JSON', 'action', '{type: forward}', /not JSON/],
  ];
  for (const [name, kind, value, reason] of refused) {
    test(`refuses ${name}`, () => assert.match(albAnnotationProblem(kind, value) ?? '', reason));
  }
});
