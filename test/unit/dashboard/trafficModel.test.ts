// The rollout page's traffic panel and step lines (shared/dashboard/ui/trafficModel.ts): the weight is
// the one the router carries as the API read it (never the step's own guess), the waiting reason is the
// stored cause, and the grace period left counts from the last change asked of the router. The page in
// a real browser: test/integration/dashboard.browser.test.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { WorkloadTraffic } from '../../../shared/api/workloadRoutes.ts';
import { stepTrafficText, trafficPanel } from '../../../shared/dashboard/ui/trafficModel.ts';
import { trafficKey, type StepTraffic, type TrafficView } from '../../../shared/rollout/trafficTypes.ts';
import type { RolloutSpec } from '../../../shared/rollout/types.ts';
import { rolloutSpec, steps } from '../../support/sim/scenario.ts';
import { awaitingApproval, healthy, release } from '../api/apiFixtures.ts';

const NOW = new Date('2030-01-01T00:02:00.000Z');
const twenty: StepTraffic = { weight: 20, matches: [], requestHeaderModifier: null };
const fifty: StepTraffic = { weight: 50, matches: [], requestHeaderModifier: null };
const header: StepTraffic = { weight: null, matches: [{ headers: [{ type: 'Exact', name: 'x-canary', value: 'yes' }], queryParams: [] }], requestHeaderModifier: null };

function routed(provider: NonNullable<RolloutSpec['trafficRouting']>['provider'] = { type: 'gateway', httpRouteName: 'web' }): RolloutSpec {
  const [a, b, c] = steps('1', '50%', '100%');
  return rolloutSpec({
    steps: [{ ...a!, traffic: twenty }, { ...b!, traffic: fifty }, c!],
    trafficRouting: { service: 'web', gracePeriodSeconds: 20, provider },
  });
}

function read(view: Partial<TrafficView>): WorkloadTraffic {
  return {
    view: { router: 'httproute/web', revisionLabel: 'pod-template-hash', revisionValues: {}, converged: [], pending: {}, stableNarrowedTo: null, canarySelects: null, problem: null, ...view },
    error: null,
  };
}

describe('the dashboard\'s traffic panel', () => {
  test('a Rollout without trafficRoutings has none', () => {
    assert.equal(trafficPanel(rolloutSpec(), healthy(), undefined, NOW), null);
  });

  test('names the router, its provider and both Services from the spec', () => {
    const gateway = trafficPanel(routed(), healthy(), read({ converged: [trafficKey(null)] }), NOW)!;
    assert.deepEqual([gateway.router, gateway.provider, gateway.services], ['httproute/web', 'Gateway API', 'service/web, canary service/web-canary']);
    const nginx = trafficPanel(routed({ type: 'ingress', classType: 'nginx', name: 'shop' }), healthy(), null, NOW)!;
    assert.deepEqual([nginx.router, nginx.provider], ['ingress/shop', 'ingress-nginx']);
    const alb = trafficPanel(routed({ type: 'ingress', classType: 'aws-alb', name: 'shop' }), healthy(), null, NOW)!;
    assert.equal(alb.provider, 'AWS Load Balancer Controller');
  });

  test('shows the routing the router carries: the user\'s own at rest, a step\'s weight with the steps that ask for it', () => {
    const atRest = trafficPanel(routed(), healthy(), read({ converged: [trafficKey(null)] }), NOW)!;
    assert.deepEqual(atRest.now, { text: 'the original routing (nothing to the canary)', weight: 0, steps: [], pending: null });
    const atStep1 = trafficPanel(routed(), awaitingApproval(), read({ converged: [trafficKey(twenty)] }), NOW)!;
    assert.deepEqual(atStep1.now, { text: '20% to the canary', weight: 20, steps: [1], pending: null });
  });

  test('a routing written but not accepted yet says so in the provider\'s words', () => {
    const p = trafficPanel(routed(), awaitingApproval(), read({ converged: [trafficKey(twenty)], pending: { [trafficKey(twenty)]: 'Gateway gw has not accepted generation 2' } }), NOW)!;
    assert.equal(p.now.pending, 'Gateway gw has not accepted generation 2');
  });

  test('the weight shown is the router\'s, not the current step\'s: step 2 before its weight is written still shows step 1\'s', () => {
    const state = awaitingApproval({ release: release({ stepIndex: 1, stepState: 'TrafficRouting' }) });
    assert.equal(trafficPanel(routed(), state, read({ converged: [trafficKey(twenty)] }), NOW)!.now.text, '20% to the canary');
  });

  test('a router carrying none of the spec\'s routings, a router that could not be read, and no workload are said as such, with no weight', () => {
    assert.deepEqual(trafficPanel(routed(), healthy(), read({ converged: [] }), NOW)!.now, {
      text: 'none of the spec\'s routings: a change is being written, or someone else changed the router', weight: null, steps: [], pending: null,
    });
    const refused = trafficPanel(routed(), healthy(), { view: null, error: 'reading the router of trafficRoutings[0] failed: forbidden' }, NOW)!;
    assert.equal(refused.now.text, 'not known: reading the router of trafficRoutings[0] failed: forbidden');
    assert.equal(trafficPanel(routed(), healthy(), null, NOW)!.now.text, 'not known: the workload could not be read');
    const problem = trafficPanel(routed(), healthy(), read({ problem: 'service/web-canary exists and is not ours' }), NOW)!;
    assert.deepEqual([problem.problem, problem.now.weight], ['service/web-canary exists and is not ours', null]);
  });

  test('a step waiting on its router: the stored cause, and the grace period left since the last change asked', () => {
    const detail = 'httproute/web: waiting 20s (gracePeriodSeconds) for the change to reach the proxy';
    const state = awaitingApproval({
      release: release({ stepState: 'TrafficRouting' }),
      cause: { kind: 'Traffic', object: 'httproute/web', field: null, detail, since: null, until: null },
      traffic: { key: trafficKey(twenty), since: '2030-01-01T00:01:52.000Z' },
    });
    assert.deepEqual(trafficPanel(routed(), state, read({ converged: [trafficKey(twenty)] }), NOW)!.waiting, { text: detail, graceLeftSeconds: 12 });
    const later = new Date('2030-01-01T00:02:30.000Z');
    assert.deepEqual(trafficPanel(routed(), state, read({ converged: [trafficKey(twenty)] }), later)!.waiting, { text: detail, graceLeftSeconds: null });
  });

  test('a step not waiting on its router shows no waiting line', () => {
    assert.equal(trafficPanel(routed(), awaitingApproval({ traffic: { key: trafficKey(twenty), since: '2030-01-01T00:01:59.000Z' } }), read({ converged: [trafficKey(twenty)] }), NOW)!.waiting, null);
  });

  test('each step\'s routing in `rollouts get`\'s words', () => {
    const [a] = steps('1');
    assert.deepEqual([{ ...a!, traffic: twenty }, { ...a!, traffic: header }, a!].map(stepTrafficText), ['20%', 'matches x-canary=yes', 'original']);
  });
});
