// Kruise v1beta1's traffic fields and rolling styles: what parseRollout accepts (normalised), what it
// refuses (one clear issue naming the field), and how the API and the planner refuse what no release
// can run yet (shared/rollout/notYetRunnable.ts).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRollout } from '../../../shared/rollout/spec.ts';
import { plan } from '../../../shared/rollout/plan.ts';
import { notYetRunnable } from '../../../shared/rollout/notYetRunnable.ts';
import { initialState } from '../../../shared/rollout/state.ts';
import type { WorkloadView } from '../../../shared/rollout/types.ts';
import type { Doc } from './specFixtures.ts';
import { edited, issuesOf, kruiseDoc, ourDoc } from './specFixtures.ts';

const ctx = { cluster: 'c' };
const STEP0 = 'spec.strategy.canary.steps[0]';
const gatewayRouting = { service: 'web', gateway: { httpRouteName: 'web-route' } };
const nginxRouting = { service: 'web', ingress: { name: 'web' } };

/** The Kruise base document with these steps and (by default) a Gateway API route. */
function routed(steps: Record<string, unknown>[], routing: Record<string, unknown> = gatewayRouting, over: Record<string, unknown> = {}): () => Doc {
  return () => edited(kruiseDoc, (d) => Object.assign(d.spec.strategy.canary, { steps, trafficRoutings: [routing], ...over }));
}

function blueGreen(steps: Record<string, unknown>[], kind = 'Deployment', apiVersion = 'apps/v1'): Doc {
  return edited(kruiseDoc, (d) => {
    d.spec.strategy = { blueGreen: { steps, trafficRoutings: [nginxRouting] } } as never;
    Object.assign(d.spec.workloadRef, { kind, apiVersion });
  });
}

describe('parseRollout: Kruise traffic fields', () => {
  test('normalises a partition-style release with a Gateway API route: weights per step, none where a step routes nothing', () => {
    const spec = parseRollout(routed([{ replicas: 1, traffic: '10%' }, { replicas: '50%', traffic: '50%' }, { replicas: '100%' }])(), ctx);
    assert.equal(spec.rollingStyle, undefined, 'in place is the default style and is left out');
    assert.deepEqual(spec.trafficRouting, { service: 'web', gracePeriodSeconds: 3, provider: { type: 'gateway', httpRouteName: 'web-route' } });
    assert.deepEqual(spec.steps.map((s) => s.traffic), [
      { weight: 10, matches: [], requestHeaderModifier: null },
      { weight: 50, matches: [], requestHeaderModifier: null },
      undefined,
    ]);
  });

  test('normalises header, query and path matches with the Gateway API defaults (Exact, PathPrefix, "/")', () => {
    const spec = parseRollout(routed([{
      replicas: 1,
      matches: [{ headers: [{ name: 'x-canary', value: 'yes' }] }, { queryParams: [{ name: 'v', value: '2', type: 'Exact' }] }, { path: {} }],
      requestHeaderModifier: { set: [{ name: 'x-from', value: 'canary' }] },
    }, { replicas: '50%' }])(), ctx);
    assert.deepEqual(spec.steps[0]?.traffic, {
      weight: null,
      matches: [
        { headers: [{ type: 'Exact', name: 'x-canary', value: 'yes' }], queryParams: [] },
        { headers: [], queryParams: [{ type: 'Exact', name: 'v', value: '2' }] },
        { path: { type: 'PathPrefix', value: '/' }, headers: [], queryParams: [] },
      ],
      requestHeaderModifier: { set: [{ name: 'x-from', value: 'canary' }], add: [], remove: [] },
    });
  });

  test('takes an ingress classType nginx by default and aws-alb when named, with the grace period given', () => {
    const nginx = parseRollout(routed([{ replicas: 1, traffic: '5%' }], nginxRouting)(), ctx);
    assert.deepEqual(nginx.trafficRouting?.provider, { type: 'ingress', classType: 'nginx', name: 'web' });
    const alb = parseRollout(routed([{ replicas: 1, traffic: '5%' }], { service: 'web', gracePeriodSeconds: 20, ingress: { classType: 'aws-alb', name: 'web' } })(), ctx);
    assert.deepEqual(alb.trafficRouting, { service: 'web', gracePeriodSeconds: 20, provider: { type: 'ingress', classType: 'aws-alb', name: 'web' } });
  });

  test('enableExtraWorkloadForCanary makes a Deployment\'s release a canary workload, with its pod metadata patch', () => {
    const spec = parseRollout(routed([{ replicas: 1, traffic: '20%' }, { replicas: '100%', traffic: '100%' }], nginxRouting, {
      enableExtraWorkloadForCanary: true, patchPodTemplateMetadata: { labels: { track: 'canary' } },
    })(), ctx);
    assert.equal(spec.rollingStyle, 'CanaryWorkload');
    assert.deepEqual(spec.patchPodTemplateMetadata, { labels: { track: 'canary' }, annotations: {} });
  });

  test('enableExtraWorkloadForCanary on a CloneSet updates it in place, as Kruise does (IsRealPartition)', () => {
    const doc = edited(kruiseDoc, (d) => {
      d.spec.strategy.canary.enableExtraWorkloadForCanary = true;
      Object.assign(d.spec.workloadRef, { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet' });
    });
    assert.equal(parseRollout(doc, ctx).rollingStyle, undefined);
  });

  test('blueGreen takes Deployments and CloneSets, with "0%" traffic steps', () => {
    const steps = [{ replicas: '100%', traffic: '0%', pause: {} }, { replicas: '100%', traffic: '100%' }];
    const spec = parseRollout(blueGreen(steps, 'CloneSet', 'apps.kruise.io/v1alpha1'), ctx);
    assert.equal(spec.rollingStyle, 'BlueGreen');
    assert.deepEqual(spec.steps.map((s) => s.traffic?.weight), [0, 100]);
  });

  test('blueGreen.scaleDownDelaySeconds: 30 s by default in our apiVersion (Argo\'s), as written when set, 0 for a Kruise document (Kruise has no delay)', () => {
    const ours = (over: Record<string, unknown>): Doc => {
      const doc = blueGreen([{ replicas: '100%' }]);
      doc.apiVersion = ourDoc().apiVersion;
      Object.assign((doc.spec.strategy as unknown as { blueGreen: Record<string, unknown> }).blueGreen, over);
      return doc;
    };
    assert.equal(parseRollout(ours({}), ctx).scaleDownDelaySeconds, 30);
    assert.equal(parseRollout(ours({ scaleDownDelaySeconds: 0 }), ctx).scaleDownDelaySeconds, 0);
    assert.equal(parseRollout(ours({ scaleDownDelaySeconds: 120 }), ctx).scaleDownDelaySeconds, 120);
    assert.equal(parseRollout(blueGreen([{ replicas: '100%' }]), ctx).scaleDownDelaySeconds, 0);
    assert.equal(parseRollout(routed([{ replicas: 1, traffic: '10%' }])(), ctx).scaleDownDelaySeconds, undefined, 'a canary has none');
    for (const [value, reason] of [[-1, /must be >= 0 seconds/], [1.5, /must be an integer/], ['30s', /number/], [2 ** 31, /must be <= 2147483647 seconds/]] as const) {
      assert.deepEqual(issuesOf(ours({ scaleDownDelaySeconds: value })).map((i) => i.path), ['spec.strategy.blueGreen.scaleDownDelaySeconds'], String(value));
      assert.match(issuesOf(ours({ scaleDownDelaySeconds: value }))[0]?.reason ?? '', reason);
    }
    const kruise = issuesOf(edited(() => blueGreen([{ replicas: '100%' }]), (d) => Object.assign((d.spec.strategy as unknown as { blueGreen: Record<string, unknown> }).blueGreen, { scaleDownDelaySeconds: 5 })));
    assert.match(kruise[0]?.reason ?? '', /serverless-rollouts extension, use apiVersion/);
    const canary = edited(ourDoc, (d) => Object.assign(d.spec.strategy.canary, { scaleDownDelaySeconds: 5 }));
    assert.deepEqual(issuesOf(canary).map((i) => `${i.path}: ${i.reason}`), ['spec.strategy.canary.scaleDownDelaySeconds: only blue-green releases scale the old revision down after a delay: it belongs under spec.strategy.blueGreen']);
  });

  test('accepts the v1alpha1-era annotation rolling-style: canary beside enableExtraWorkloadForCanary: true', () => {
    const doc = routed([{ replicas: 1, traffic: '20%' }], nginxRouting, { enableExtraWorkloadForCanary: true })();
    doc.metadata.annotations = { 'rollouts.kruise.io/rolling-style': 'canary' };
    assert.equal(parseRollout(doc, ctx).rollingStyle, 'CanaryWorkload');
  });

  test('our apiVersion takes gates in blueGreen steps', () => {
    const doc = blueGreen([{ replicas: '100%', traffic: '0%', gates: [{ name: 'ok', http: { url: 'http://checks.invalid/ok' } }] }]);
    doc.apiVersion = ourDoc().apiVersion;
    assert.equal(parseRollout(doc, ctx).steps[0]?.gates?.length, 1);
  });
});

/** [case, document, path of the single expected issue, reason pattern] */
const rejects: [string, Doc, string, RegExp][] = [
  ['traffic "0%" in a canary step', routed([{ replicas: 1, traffic: '0%' }])(), `${STEP0}.traffic`, /from "1%" to "100%" \("0%" only in blueGreen steps\)/],
  ['traffic over 100%', routed([{ replicas: 1, traffic: '101%' }])(), `${STEP0}.traffic`, /from "1%" to "100%"/],
  ['traffic without "%"', routed([{ replicas: 1, traffic: '10' }])(), `${STEP0}.traffic`, /must be a percent string such as "50%" \(a string needs "%"\)/],
  ['traffic as a number', routed([{ replicas: 1, traffic: 10 }])(), `${STEP0}.traffic`, /must be a string, not number 10/],
  ['traffic over 100% in a blueGreen step', blueGreen([{ replicas: '100%', traffic: '120%' }]), 'spec.strategy.blueGreen.steps[0].traffic', /from "0%" to "100%"/],
  ['a traffic step over 50% of the pods in place', routed([{ replicas: '60%', traffic: '20%' }])(), `${STEP0}.replicas`, /at most 50% in a step that routes traffic.*partition limit/],
  ['a matches step over 50% of the pods in place', routed([{ replicas: '51%', matches: [{ headers: [{ name: 'x', value: 'y' }] }] }])(), `${STEP0}.replicas`, /at most 50%/],
  ['traffic without trafficRoutings', edited(kruiseDoc, (d) => (d.spec.strategy.canary.steps = [{ replicas: 1, traffic: '10%' }])), `${STEP0}.traffic`, /no effect without spec\.strategy\.canary\.trafficRoutings/],
  ['matches without trafficRoutings', edited(kruiseDoc, (d) => (d.spec.strategy.canary.steps = [{ replicas: 1, matches: [{ path: { value: '/v2' } }] }])), `${STEP0}.matches`, /no effect without/],
  ['requestHeaderModifier on a step that routes nothing', routed([{ replicas: 1, requestHeaderModifier: { remove: ['x'] } }])(), `${STEP0}.requestHeaderModifier`, /give the step traffic or matches/],
  ['an empty match', routed([{ replicas: 1, matches: [{}] }])(), `${STEP0}.matches[0]`, /would send every request to the canary/],
  ['a header name with a space', routed([{ replicas: 1, matches: [{ headers: [{ name: 'x canary', value: 'y' }] }] }])(), `${STEP0}.matches[0].headers[0].name`, /HTTP header name/],
  ['a header listed twice (names are case-insensitive)', routed([{ replicas: 1, matches: [{ headers: [{ name: 'X-A', value: '1' }, { name: 'x-a', value: '2' }] }] }])(), `${STEP0}.matches[0].headers[1].name`, /listed twice/],
  ['a header match type Kruise does not know', routed([{ replicas: 1, matches: [{ headers: [{ name: 'x', value: 'y', type: 'Prefix' }] }] }])(), `${STEP0}.matches[0].headers[0].type`, /must be one of "Exact", "RegularExpression"/],
  ['a relative PathPrefix', routed([{ replicas: 1, matches: [{ path: { value: 'v2' } }] }])(), `${STEP0}.matches[0].path.value`, /absolute path starting with "\/"/],
  ['a path with "/../"', routed([{ replicas: 1, matches: [{ path: { type: 'Exact', value: '/a/../b' } }] }])(), `${STEP0}.matches[0].path.value`, /must not contain/],
  ['17 matches', routed([{ replicas: 1, matches: Array.from({ length: 17 }, (_, i) => ({ path: { value: `/p${i}` } })) }])(), `${STEP0}.matches`, /at most 16 matches/],
  ['two trafficRoutings', edited(kruiseDoc, (d) => (d.spec.strategy.canary.trafficRoutings = [gatewayRouting, nginxRouting])), 'spec.strategy.canary.trafficRoutings', /single trafficRouting/],
  ['a trafficRouting with neither ingress nor gateway', routed([{ replicas: 1 }], { service: 'web' })(), 'spec.strategy.canary.trafficRoutings[0]', /must set ingress or gateway/],
  ['a trafficRouting with both ingress and gateway', routed([{ replicas: 1 }], { ...gatewayRouting, ingress: { name: 'web' } })(), 'spec.strategy.canary.trafficRoutings[0].gateway', /not both/],
  ['a Service name too long for its -canary twin', routed([{ replicas: 1 }], { service: 's'.repeat(57), gateway: { httpRouteName: 'r' } })(), 'spec.strategy.canary.trafficRoutings[0].service', /at most 56 characters/],
  ['a negative grace period', routed([{ replicas: 1 }], { ...gatewayRouting, gracePeriodSeconds: -1 })(), 'spec.strategy.canary.trafficRoutings[0].gracePeriodSeconds', /must not be negative/],
  ['an ingress classType of another cloud', routed([{ replicas: 1 }], { service: 'web', ingress: { classType: 'aliyun-alb', name: 'web' } })(), 'spec.strategy.canary.trafficRoutings[0].ingress.classType', /"aliyun-alb" is not supported by serverless-rollouts; use one of "nginx", "aws-alb"/],
  ['a gateway without httpRouteName', routed([{ replicas: 1 }], { service: 'web', gateway: {} })(), 'spec.strategy.canary.trafficRoutings[0].gateway.httpRouteName', /^required$/],
  ['patchPodTemplateMetadata in place', routed([{ replicas: 1 }], gatewayRouting, { patchPodTemplateMetadata: { labels: { a: 'b' } } })(), 'spec.strategy.canary.patchPodTemplateMetadata', /canary Deployment only/],
  ['blueGreen of a StatefulSet', blueGreen([{ replicas: '100%' }], 'StatefulSet'), 'spec.workloadRef.kind', /Deployment and CloneSet workloads only/],
  ['canary and blueGreen both', edited(kruiseDoc, (d) => ((d.spec.strategy as Record<string, unknown>).blueGreen = { steps: [{ replicas: '100%' }] })), 'spec.strategy.blueGreen', /not both/],
  ['decreasing blueGreen steps', blueGreen([{ replicas: '100%' }, { replicas: '50%' }]), 'spec.strategy.blueGreen.steps[1].replicas', /never go backwards/],
  ['rolling-style partition beside enableExtraWorkloadForCanary', edited(kruiseDoc, (d) => {
    d.spec.strategy.canary.enableExtraWorkloadForCanary = true;
    d.metadata.annotations = { 'rollouts.kruise.io/rolling-style': 'partition' };
  }), 'metadata.annotations["rollouts.kruise.io/rolling-style"]', /keep one/],
  ['deploymentStrategy with a canary workload', edited(ourDoc, (d) => {
    d.spec.strategy.canary.enableExtraWorkloadForCanary = true;
    d.spec.deploymentStrategy = 'Partition';
  }), 'spec.deploymentStrategy', /canary-Deployment release does not update it in place/],
];

describe('parseRollout refuses bad traffic fields', () => {
  for (const [name, doc, path, reason] of rejects) {
    test(`${name}, naming ${path}`, () => {
      const issues = issuesOf(doc);
      assert.equal(issues.length, 1, JSON.stringify(issues));
      assert.equal(issues[0]?.path, path);
      assert.match(issues[0]?.reason ?? '', reason);
    });
  }
});

describe('features no release can run yet', () => {
  const deploymentSpec = parseRollout(routed([{ replicas: 1, traffic: '10%' }])(), ctx);
  // Traffic routing runs in place on a Deployment (plan.traffic.test.ts); not yet for the other kinds.
  const routedSpec = { ...deploymentSpec, workloadRef: { apiVersion: 'apps/v1', kind: 'StatefulSet' as const, name: 'web' } };

  test('are named, field by field, for the API to refuse when the Rollout is applied', () => {
    const canaryWorkload = parseRollout(routed([{ replicas: 1, traffic: '10%' }], nginxRouting, { enableExtraWorkloadForCanary: true, patchPodTemplateMetadata: { annotations: { a: 'b' } } })(), ctx);
    // The canary Deployment and its pod metadata run (canaryWrites.ts); routing beside it does not yet.
    assert.deepEqual(notYetRunnable(canaryWorkload).map((i) => i.path), ['spec.strategy.canary.trafficRoutings']);
    assert.match(notYetRunnable(canaryWorkload)[0]?.reason ?? '', /cannot run it yet.*in a CanaryWorkload release/);
    const unrouted = parseRollout(edited(kruiseDoc, (d) => Object.assign(d.spec.strategy.canary, { enableExtraWorkloadForCanary: true, patchPodTemplateMetadata: { labels: { track: 'canary' } } })), ctx);
    assert.equal(unrouted.deploymentStrategy, 'CanaryWorkload', 'the release runs with the canary Deployment strategy');
    assert.deepEqual(notYetRunnable(unrouted), [], 'a canary Deployment release without routing runs');
    assert.deepEqual(notYetRunnable({ ...unrouted, podUpdateTimeoutSeconds: 60 }).map((i) => i.path), ['spec.podUpdateTimeout']);
    assert.match(notYetRunnable(routedSpec)[0]?.reason ?? '', /cannot run it yet.*traffic routing through HTTPRoute web-route for a StatefulSet/);
    assert.deepEqual(notYetRunnable(deploymentSpec), [], 'a Deployment\'s release routes traffic in place');
    assert.deepEqual(notYetRunnable(parseRollout(blueGreen([{ replicas: '100%', traffic: '0%' }]), ctx)), [], 'a Deployment\'s blue-green release runs, routed');
    const cloneSet = notYetRunnable(parseRollout(blueGreen([{ replicas: '100%', traffic: '0%' }], 'CloneSet', 'apps.kruise.io/v1alpha1'), ctx));
    assert.deepEqual(cloneSet.map((i) => i.path), ['spec.strategy.blueGreen', 'spec.strategy.blueGreen.trafficRoutings']);
    assert.match(cloneSet[0]?.reason ?? '', /cannot run it yet.*blue-green releases of a CloneSet \(a Deployment's can\)/);
    assert.deepEqual(notYetRunnable(parseRollout(kruiseDoc(), ctx)), [], 'the partition subset runs as before');
  });

  test('hold a stored Rollout Degraded, naming the field, with no action on the workload', () => {
    const view: WorkloadView = {
      kind: 'StatefulSet', exists: true, replicas: 3, templateRevision: 'r1',
      revisions: [{ id: 'r1', number: 1, images: { app: 'app:v1' }, desired: 3, current: 3, ready: 3, available: 3 }],
      held: false, observed: true, nativeComplete: true, maxSurge: 1, maxUnavailable: 0, problems: [], strategy: null,
      nextAvailableAt: null, toReplace: [], blocked: null,
    };
    const result = plan(routedSpec, initialState(), view, new Date('2026-12-01T10:00:00Z'));
    assert.equal(result.nextState.phase, 'Degraded');
    assert.match(result.nextState.message, /^spec\.strategy\.canary\.trafficRoutings is valid, but serverless-rollouts cannot run it yet/);
    assert.deepEqual(result.actions, []);
  });
});
