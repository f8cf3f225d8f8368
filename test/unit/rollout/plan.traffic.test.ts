import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { stepTarget } from '../../../shared/rollout/arithmetic.ts';
import { plan } from '../../../shared/rollout/plan.ts';
import { initialState } from '../../../shared/rollout/state.ts';
import { trafficKey, type StepTraffic } from '../../../shared/rollout/trafficTypes.ts';
import type { Action, Command, PlanResult, RolloutSpec } from '../../../shared/rollout/types.ts';
import { command, Driver, rolloutSpec, steps } from '../../support/sim/scenario.ts';
import { RoutedSim, labelOf } from '../../support/sim/routedSim.ts';

const weight = (w: number): StepTraffic => ({ weight: w, matches: [], requestHeaderModifier: null });
const header: StepTraffic = { weight: null, matches: [{ headers: [{ type: 'Exact', name: 'x-canary', value: 'yes' }], queryParams: [] }], requestHeaderModifier: null };

/** `[replicas 1, traffic 10%] → [50%, 50%] → 100%` through an HTTPRoute, as the issue's acceptance asks. */
function routedSpec(grace = 3, traffic: (StepTraffic | undefined)[] = [weight(10), weight(50)], items = ['1', '50%', '100%']): RolloutSpec {
  const s = steps(...items).map((step, i) => (traffic[i] ? { ...step, traffic: traffic[i] } : step));
  return rolloutSpec({ steps: s, trafficRouting: { service: 'web', gracePeriodSeconds: grace, provider: { type: 'gateway', httpRouteName: 'web' } } });
}

const V1 = 'rev-app:v1';
const V2 = 'rev-app:v2';

/** A routing action, or a pod move, as one short word for the order assertions. */
function word(a: Action): string | null {
  if (a.type === 'set-services') return `set-services(${a.stable}${a.canary ? `,${a.canary}` : ''})`;
  if (a.type === 'set-traffic') return `set-traffic(${a.traffic === null ? 'null' : a.traffic.weight ?? 'matches'})`;
  if (a.type === 'restore-services') return 'restore-services';
  return null;
}

/** Runs passes, advancing one second after each, until `until` holds (bounded). */
function runUntil(d: Driver, until: () => boolean, commands: Command[] = [], max = 120): void {
  d.step(commands);
  for (let i = 0; i < max && !until(); i += 1) {
    d.sim.settle();
    d.advance(1);
    d.step();
  }
  assert.ok(until(), `did not get there in ${max} passes: ${d.state.message}`);
}

function routed(d: Driver): RoutedSim {
  return d.sim as RoutedSim;
}

describe('plan with traffic routing: the order of Services, weights and pod moves', () => {
  it('narrows the stable Service before any pod moves, sets each weight once its batch is Available, and restores routing before the last moves', () => {
    const d = new Driver(new RoutedSim(10), routedSpec());
    d.settle();
    d.sim.setImage('app:v2');
    runUntil(d, () => d.state.release?.stepState === 'StepPaused');
    runUntil(d, () => d.state.release?.stepIndex === 1 && d.state.release.stepState === 'StepPaused', [command({ type: 'approve' })]);
    runUntil(d, () => d.state.release === null, [command({ type: 'approve' })]);

    const order = d.results.flatMap((r) => r.actions.map(word)).filter((w) => w !== null);
    const [s1, s2] = [labelOf(V1), labelOf(V2)];
    assert.deepEqual([...new Set(order)], [`set-services(${s1})`, `set-services(${s1},${s2})`, 'set-traffic(10)', 'set-traffic(50)', 'set-traffic(null)', 'restore-services']);
    // The first pass narrows the Service and moves nothing; the first move comes after it.
    const first = d.results.findIndex((r) => r.actions.some((a) => a.type === 'distribute'));
    const narrowed = d.results.findIndex((r) => r.actions.some((a) => a.type === 'set-services'));
    assert.ok(narrowed < first, 'the stable Service is narrowed before the first new pod');
    assert.equal(d.state.phase, 'Completed');
    assert.deepEqual([routed(d).traffic, routed(d).stableNarrowedTo, routed(d).canarySelects], [null, null, null], 'the user\'s routing, exactly');
    assert.ok(d.eventTypes().includes('Traffic Shifted') && d.eventTypes().includes('Traffic Restored'));
  });

  it('waits gracePeriodSeconds after each change before the next: the Services before the weight, the original routing before the Services', () => {
    const d = new Driver(new RoutedSim(10), routedSpec(20));
    d.settle();
    d.sim.setImage('app:v2');
    const times: [string, number][] = [];
    const original = d.step.bind(d);
    d.step = (cmds: Command[] = []): PlanResult => {
      const r = original(cmds);
      for (const a of r.actions) if (word(a) && a.type !== 'distribute') times.push([word(a) as string, d.now.getTime()]);
      return r;
    };
    runUntil(d, () => d.state.release?.stepState === 'StepPaused');
    runUntil(d, () => d.state.release === null, [command({ type: 'abort' })]);
    const at = (w: string): number => times.find(([x]) => x === w)?.[1] ?? Number.NaN;
    assert.ok(at('set-traffic(10)') - at(`set-services(${labelOf(V1)},${labelOf(V2)})`) >= 20_000, 'the weight waits for the canary Service\'s endpoints');
    assert.ok(at('restore-services') - at('set-traffic(null)') >= 20_000, 'the Services wait for the original routing to reach the proxy');
    // The timed pause and gates count from the traffic being live: the step was paused only then.
    assert.equal(d.state.phase, 'Aborted');
  });

  it('on abort, sends no request to a canary pod that goes: the original routing and the grace period come before any canary pod is removed, the Services once they are gone', () => {
    const d = new Driver(new RoutedSim(10), routedSpec());
    d.settle();
    d.sim.setImage('app:v2');
    runUntil(d, () => d.state.release?.stepState === 'StepPaused');
    runUntil(d, () => d.state.release?.stepIndex === 1 && d.state.release.stepState === 'StepPaused', [command({ type: 'approve' })]);
    const from = d.results.length;
    const abortAt = d.now.getTime();
    const canaryPods: number[] = [];
    const times: number[] = [];
    const original = d.step.bind(d);
    d.step = (cmds: Command[] = []): PlanResult => {
      canaryPods.push(d.sim.count(V2));
      times.push(d.now.getTime());
      return original(cmds);
    };
    runUntil(d, () => d.state.release === null, [command({ type: 'abort' })]);
    const passes = d.results.slice(from);
    const firstShrink = passes.findIndex((r) => r.actions.some((a) => a.type === 'distribute' && (a.distribution[V2] ?? 0) < 5) || r.actions.some((a) => a.type === 'restore-template'));
    const restored = passes.findIndex((r) => r.actions.some((a) => a.type === 'restore-services'));
    const unrouted = passes.findIndex((r) => r.actions.some((a) => a.type === 'set-traffic' && a.traffic === null));
    assert.equal(unrouted, 0, 'the abort\'s first pass takes the canary out of the route, and moves no pod');
    assert.ok(unrouted < firstShrink && firstShrink < restored, `set-traffic(null) ${unrouted} < first canary pod removed ${firstShrink} < restore-services ${restored}`);
    assert.ok(passes[0]!.actions.every((a) => a.type !== 'distribute' && a.type !== 'restore-template'));
    assert.ok((times[firstShrink] ?? 0) - abortAt >= 3000, 'the grace period (3 s) passes before the first canary pod goes');
    assert.equal(canaryPods[restored], 0, 'the stable Service takes its selector back once no canary pod is left');
    assert.equal(d.state.phase, 'Aborted');
    assert.deepEqual([routed(d).traffic, routed(d).stableNarrowedTo, routed(d).canarySelects], [null, null, null]);
  });

  it('a header-match step sends the matches; a deleted rollout hands back the route and the Services before the workload', () => {
    const d = new Driver(new RoutedSim(4), routedSpec(0, [header], ['1', '100%']));
    d.settle();
    d.sim.setImage('app:v2');
    runUntil(d, () => d.state.release?.stepState === 'StepPaused');
    assert.deepEqual(routed(d).traffic, header);
    const from = d.results.length;
    d.step([command({ type: 'delete' })]);
    for (let i = 0; i < 20 && !d.results.at(-1)?.removed; i += 1) {
      d.sim.settle();
      d.step();
    }
    const passes = d.results.slice(from);
    assert.equal(passes.at(-1)?.removed, true);
    const words = passes.flatMap((r) => r.actions.map((a) => word(a) ?? a.type));
    assert.deepEqual(words.filter((w) => w !== 'hold').slice(0, 3), ['set-traffic(null)', 'restore-services', 'release-hold']);
    assert.deepEqual([routed(d).traffic, routed(d).stableNarrowedTo, routed(d).canarySelects], [null, null, null]);
  });

  it('puts the user\'s routing back when it finds ours with no release running (a lost STATE)', () => {
    const sim = new RoutedSim(4);
    Object.assign(sim, { traffic: weight(10), stableNarrowedTo: labelOf(V1), canarySelects: labelOf('rev-app:v0') });
    const spec = routedSpec(0);
    const state = { ...initialState(), stableRevision: V1 };
    const r = plan(spec, state, sim.view(), new Date('2026-11-30T10:00:00Z'));
    assert.deepEqual(r.actions.map((a) => word(a) ?? a.type).filter((w) => w !== 'hold'), ['set-traffic(null)']);
  });

  it('holds the rollout Degraded, writing nothing, when the router cannot carry the routing', () => {
    const sim = new RoutedSim(4);
    const view = { ...sim.view() };
    view.traffic = { ...view.traffic!, problem: 'HTTPRoute web not found' };
    const r = plan(routedSpec(), { ...initialState(), stableRevision: V1 }, view, new Date('2026-11-30T10:00:00Z'));
    assert.equal(r.nextState.phase, 'Degraded');
    assert.match(r.nextState.message, /HTTPRoute web not found/);
    assert.deepEqual(r.actions, []);
  });
});

type Op = { op: 'settle' } | { op: 'plan' } | { op: 'tick'; seconds: number } | { op: 'approve' } | { op: 'abort' } | { op: 'image' } | { op: 'pause' } | { op: 'resume' } | { op: 'delete' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ op: 'settle' } as Op) },
  { weight: 3, arbitrary: fc.constant({ op: 'plan' } as Op) },
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 30 }).map((seconds) => ({ op: 'tick', seconds }) as Op) },
  { weight: 4, arbitrary: fc.constant({ op: 'approve' } as Op) },
  { weight: 1, arbitrary: fc.constant({ op: 'abort' } as Op) },
  { weight: 2, arbitrary: fc.constant({ op: 'image' } as Op) },
  { weight: 1, arbitrary: fc.constant({ op: 'pause' } as Op) },
  { weight: 1, arbitrary: fc.constant({ op: 'resume' } as Op) },
  { weight: 1, arbitrary: fc.constant({ op: 'delete' } as Op) },
);

/** Steps of up to 50 % with traffic (Kruise's limit in place), some without, then maybe 100 %. */
const stepsArb = fc.tuple(
  fc.array(fc.tuple(fc.integer({ min: 1, max: 50 }), fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }), fc.boolean()), { minLength: 1, maxLength: 4 }),
  fc.boolean(),
).map(([raw, full]) => {
  const sorted = [...raw].sort((a, b) => a[0] - b[0]);
  const items = sorted.map(([p]) => `${p}%`);
  const traffic = sorted.map(([, w, byHeader]) => (w === undefined ? undefined : byHeader ? header : weight(w)));
  if (full) items.push('100%');
  return { items, traffic };
});

describe('plan with traffic routing: invariants over random steps and event orders (the planner against RoutedSim)', () => {
  it('never removes a pod the router may still send requests to, and never routes to a batch before it is Available', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), stepsArb, fc.constantFrom(0, 3), fc.array(opArb, { minLength: 1, maxLength: 40 }), (replicas, { items, traffic }, grace, ops) => {
        const spec = routedSpec(grace, traffic, items);
        const sim = new RoutedSim(replicas);
        const d = new Driver(sim, spec);
        let lastUnrouteAt: number | null = null;
        const original = d.step.bind(d);
        d.step = (cmds: Command[] = []): PlanResult => {
          const before = sim.view();
          const state = d.state;
          const r = original(cmds);
          const routedNow = before.traffic?.converged[0] !== trafficKey(null);
          const canary = sim.revisions.find((x) => before.traffic?.canarySelects === labelOf(x.id))?.id ?? null;
          for (const a of r.actions) {
            // Pods of the revision the canary Service selects go only once the router no longer sends it requests.
            if (a.type === 'distribute' && canary !== null && routedNow) {
              const had = before.revisions.find((x) => x.id === canary)?.desired ?? 0;
              assert.ok((a.distribution[canary] ?? 0) >= had, `a move removes canary pods (${had} → ${a.distribution[canary] ?? 0}) while the router sends them requests`);
            }
            if (a.type === 'restore-template' || a.type === 'release-hold') assert.ok(!routedNow || canary === null, `${a.type} while the router sends requests to the canary`);
            if (a.type === 'set-traffic' && a.traffic !== null) {
              const rel = state.release;
              assert.ok(rel !== null, 'a weight only within a release');
              const target = before.revisions.find((x) => x.id === rel.targetRevision);
              const batch = stepTarget(spec, rel.stepIndex, before.replicas);
              assert.ok((target?.available ?? 0) >= batch, `weight set with ${target?.available ?? 0} of ${batch} pods of the batch Available`);
              assert.equal(before.traffic?.canarySelects, labelOf(rel.targetRevision), 'the canary Service selects the batch before the weight');
            }
            if (a.type === 'set-traffic' && a.traffic === null) lastUnrouteAt ??= d.now.getTime();
            if (a.type === 'restore-services' && lastUnrouteAt !== null) {
              assert.ok(d.now.getTime() - lastUnrouteAt >= grace * 1000, 'the Services wait the grace period after the original routing');
              lastUnrouteAt = null;
            }
          }
          return r;
        };
        d.settle();
        let images = 1;
        for (const o of ops) {
          if (d.results.at(-1)?.removed) break;
          switch (o.op) {
            case 'settle': d.settle(); break;
            case 'plan': d.step(); break;
            case 'tick': d.advance(o.seconds); break;
            case 'approve': d.step([command({ type: 'approve' })]); break;
            case 'abort': d.step([command({ type: 'abort' })]); break;
            case 'image': images += 1; sim.setImage(`app:v${images}`); break;
            case 'pause': d.step([command({ type: 'pause' })]); break;
            case 'resume': d.step([command({ type: 'resume' })]); break;
            case 'delete': d.step([command({ type: 'delete' })]); break;
          }
        }
        for (let i = 0; i < 40 && d.state.removing && !d.results.at(-1)?.removed; i += 1) {
          sim.settle();
          d.advance(1);
          d.step();
        }
        if (d.state.removing) {
          assert.equal(d.results.at(-1)?.removed, true, `the deleted rollout was not removed: ${d.state.message}`);
          assert.deepEqual([sim.traffic, sim.stableNarrowedTo, sim.canarySelects], [null, null, null], 'the deleted rollout handed back the user\'s routing');
          return;
        }
        // Liveness: resumed, approved and given time, every release ends, the user's routing back.
        d.settle([command({ type: 'resume' })]);
        for (let i = 0; i < 40 && (d.state.release || sim.traffic !== null || sim.canarySelects !== null); i += 1) {
          d.advance(5);
          d.settle([command({ type: 'approve' })]);
        }
        assert.equal(d.state.release, null, `release did not finish: ${d.state.message}`);
        assert.deepEqual([sim.traffic, sim.stableNarrowedTo, sim.canarySelects], [null, null, null], 'the user\'s routing, exactly, after the release');
      }),
      { numRuns: 300 },
    );
  });
});
