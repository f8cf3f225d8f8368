// Blue-green releases through the planner (shared/rollout/blueGreen.ts) against BlueGreenSim: the new
// revision beside the old, the switch, scaleDownDelaySeconds, the abort; with and without a routing.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { plan } from '../../../shared/rollout/plan.ts';
import type { StepTraffic } from '../../../shared/rollout/trafficTypes.ts';
import type { Action, Command, RolloutSpec } from '../../../shared/rollout/types.ts';
import { command, Driver, rolloutSpec, steps } from '../../support/sim/scenario.ts';
import { BlueGreenSim } from '../../support/sim/blueGreenSim.ts';
import { labelOf } from '../../support/sim/routedSim.ts';

const V1 = 'rev-app:v1';
const V2 = 'rev-app:v2';
const N = 10;
const weight = (w: number): StepTraffic => ({ weight: w, matches: [], requestHeaderModifier: null });

function blueGreenSpec(opts: { delay?: number; routed?: boolean; items?: string[]; traffic?: (StepTraffic | undefined)[] } = {}): RolloutSpec {
  const items = opts.items ?? ['50%', '100%:approval', '100%'];
  const traffic = opts.traffic ?? [weight(0), weight(50), weight(100)];
  const s = steps(...items).map((step, i) => (opts.routed && traffic[i] ? { ...step, traffic: traffic[i] } : step));
  return rolloutSpec({
    steps: s, rollingStyle: 'BlueGreen', deploymentStrategy: 'MinReadySeconds', scaleDownDelaySeconds: opts.delay ?? 30,
    ...(opts.routed ? { trafficRouting: { service: 'web', gracePeriodSeconds: 3, provider: { type: 'gateway' as const, httpRouteName: 'web' } } } : {}),
  });
}

function started(spec: RolloutSpec): { d: Driver; sim: BlueGreenSim } {
  const sim = new BlueGreenSim(N);
  const d = new Driver(sim, spec);
  d.settle();
  sim.setImage('app:v2');
  return { d, sim };
}

/** Passes one second apart, pods settling between them, until `until` holds (bounded); `each` sees every pass. */
function runUntil(d: Driver, until: () => boolean, commands: Command[] = [], each: () => void = () => {}, max = 200): void {
  d.step(commands);
  each();
  for (let i = 0; i < max && !until(); i += 1) {
    d.sim.settle();
    d.advance(1);
    d.step();
    each();
  }
  assert.ok(until(), `did not get there in ${max} passes: ${d.state.message}`);
}

const desired = (sim: BlueGreenSim, id: string): number => sim.count(id);

function word(a: Action): string | null {
  if (a.type === 'set-services') return `set-services(${a.stable}${a.canary ? `,${a.canary}` : ''})`;
  if (a.type === 'set-traffic') return `set-traffic(${a.traffic === null ? 'null' : a.traffic.weight})`;
  if (a.type === 'restore-services') return 'restore-services';
  if (a.type === 'distribute' && a.final) return 'hand-back';
  return null;
}

describe('plan of a blue-green release', () => {
  it('brings each step\'s new pods up beside the old revision, which keeps every pod until the release ends', () => {
    const { d, sim } = started(blueGreenSpec());
    runUntil(d, () => d.state.release?.stepState === 'StepPaused');
    assert.deepEqual([desired(sim, V2), desired(sim, V1)], [5, N], 'step 1: 50% of the new revision beside all of the old');
    const moves = d.results.flatMap((r) => r.actions).filter((a) => a.type === 'distribute');
    assert.ok(moves.length > 0 && moves.every((a) => a.type === 'distribute' && a.rollingStyle === 'BlueGreen'), 'every move is marked blue-green for the driver');
    runUntil(d, () => d.state.release?.stepIndex === 1 && d.state.release.stepState === 'StepPaused', [command({ type: 'approve' })]);
    assert.deepEqual([desired(sim, V2), desired(sim, V1)], [N, N], 'step 2: the new revision at full size, the old one still whole');
    assert.ok(sim.oldDesiredSeen.every((n) => n === N), 'no blue-green move asked the old revision for fewer pods');
  });

  it('scales the old revision down only scaleDownDelaySeconds after the new one is at full size and Available, then completes', () => {
    const { d, sim } = started(blueGreenSpec({ delay: 30, items: ['50%:none', '100%'] }));
    let fullAt: number | null = null;
    let handBackAt: number | null = null;
    runUntil(d, () => d.state.phase === 'Completed', [], () => {
      const v2 = sim.revisions.find((r) => r.id === V2);
      if (fullAt === null && v2?.ready === N && v2.desired === N) fullAt = d.now.getTime();
      if (handBackAt === null && d.results.at(-1)?.actions.some((a) => a.type === 'distribute' && a.final)) handBackAt = d.now.getTime();
    });
    assert.ok(fullAt !== null && handBackAt !== null);
    assert.ok(handBackAt - fullAt >= 30_000, `old scaled down ${(handBackAt - fullAt) / 1000}s after the new revision was whole`);
    assert.ok(handBackAt - fullAt <= 33_000, 'and not much later: the planner wakes at the instant');
    assert.deepEqual([desired(sim, V2), desired(sim, V1)], [N, 0]);
    assert.equal(d.state.stableRevision, V2);
  });

  it('while the delay runs, names it and the instant, wakes then, and asks nothing of the old revision', () => {
    const { d, sim } = started(blueGreenSpec({ delay: 600, items: ['100%'] }));
    runUntil(d, () => (d.state.release?.scaleDownAt ?? null) !== null);
    const at = d.state.release?.scaleDownAt as string;
    d.advance(5);
    const r = d.step();
    assert.match(d.state.message, new RegExp(`old revision is scaled down at ${at.replace(/[.]/g, '\\.')} \\(scaleDownDelaySeconds 600\\)`));
    assert.equal(r.wakeAt, at);
    assert.equal(desired(sim, V1), N);
    assert.ok(!r.actions.some((a) => a.type === 'distribute' && a.final));
  });

  it('with scaleDownDelaySeconds 0 hands back in the pass that finds the new revision whole', () => {
    const { d, sim } = started(blueGreenSpec({ delay: 0, items: ['100%'] }));
    runUntil(d, () => d.results.at(-1)?.actions.some((a) => a.type === 'distribute' && a.final) === true);
    const last = d.results.at(-1)?.actions.filter((a) => a.type === 'distribute') ?? [];
    assert.equal(last.length, 1, 'the full-size move is replaced by the final one');
    runUntil(d, () => d.state.phase === 'Completed');
    assert.equal(desired(sim, V1), 0);
  });

  it('plans the same actions when a pass runs twice (crash before its STATE write)', () => {
    const { d, sim } = started(blueGreenSpec({ routed: true, items: ['50%:none', '100%'] }));
    let compared = 0;
    runUntil(d, () => d.state.phase === 'Completed', [], () => {
      const view = sim.view();
      const again = plan(d.spec, d.state, view, d.now);
      const twice = plan(d.spec, d.state, view, d.now);
      assert.deepEqual(twice.actions, again.actions);
      assert.deepEqual(twice.nextState, again.nextState);
      compared += 1;
    });
    assert.ok(compared > 5);
  });
});

describe('plan of a blue-green release with traffic routing', () => {
  it('switches every request to the new pods before any old pod goes, and restores the Services only once they are gone', () => {
    const { d, sim } = started(blueGreenSpec({ routed: true, delay: 30 }));
    const [s1, s2] = [labelOf(V1), labelOf(V2)];
    const unsafe: string[] = [];
    const each = () => {
      // An old pod asked to go, and still there, while something may still route to it.
      const old = sim.revisions.find((r) => r.id === V1);
      if (old !== undefined && old.desired < N && old.current > 0 && (sim.stableNarrowedTo === s1 || sim.canarySelects === s1 || sim.stableNarrowedTo === null)) unsafe.push(`${d.now.toISOString()} ${d.state.message}`);
    };
    runUntil(d, () => d.state.release?.stepState === 'StepPaused', [], each);
    runUntil(d, () => d.state.release?.stepIndex === 1 && d.state.release.stepState === 'StepPaused', [command({ type: 'approve' })], each);
    runUntil(d, () => d.state.phase === 'Completed', [command({ type: 'approve' })], each);
    assert.deepEqual(unsafe, []);
    const order = [...new Set(d.results.flatMap((r) => r.actions.map(word)).filter((w) => w !== null))];
    assert.deepEqual(order, [
      `set-services(${s1})`, `set-services(${s1},${s2})`, 'set-traffic(0)', 'set-traffic(50)',
      // The switch: the stable Service onto the new pods, the router back on it, then the delay and the hand-back.
      `set-services(${s2},${s2})`, 'set-traffic(null)', 'hand-back', 'restore-services',
    ]);
    assert.deepEqual([sim.traffic, sim.stableNarrowedTo, sim.canarySelects], [null, null, null], 'the user\'s routing, exactly');
    assert.deepEqual([desired(sim, V2), desired(sim, V1)], [N, 0]);
  });

  it('counts scaleDownDelaySeconds from the switch, not from the new revision being whole', () => {
    const { d, sim } = started(blueGreenSpec({ routed: true, delay: 10, items: ['100%'], traffic: [weight(0)] }));
    let switchedAt: number | null = null;
    let handBackAt: number | null = null;
    runUntil(d, () => d.state.phase === 'Completed', [], () => {
      const acts = d.results.at(-1)?.actions ?? [];
      if (handBackAt === null && acts.some((a) => a.type === 'set-services' || a.type === 'set-traffic')) switchedAt = d.now.getTime();
      if (handBackAt === null && acts.some((a) => a.type === 'distribute' && a.final)) handBackAt = d.now.getTime();
    });
    assert.ok(switchedAt !== null && handBackAt !== null);
    // The last routing change, its grace period (3 s), then the delay (10 s).
    assert.ok(handBackAt - switchedAt >= 13_000, `hand-back ${(handBackAt - switchedAt) / 1000}s after the switch`);
    assert.equal(desired(sim, V1), 0);
  });

  it('during the delay, switches again a stable Service someone put back, and hands back only once it is switched', () => {
    const { d, sim } = started(blueGreenSpec({ routed: true, delay: 60, items: ['100%'], traffic: [weight(100)] }));
    runUntil(d, () => (d.state.release?.scaleDownAt ?? null) !== null);
    const s2 = labelOf(V2);
    sim.stableNarrowedTo = null; // a GitOps sync re-applies Service web as the user wrote it
    const r = d.step();
    assert.ok(r.actions.some((a) => a.type === 'set-services' && a.stable === s2), 'narrowed to the new pods again');
    d.advance(61);
    sim.stableNarrowedTo = null;
    const late = d.step();
    assert.ok(!late.actions.some((a) => a.type === 'distribute' && a.final), 'no hand-back while the stable Service selects the old pods');
    runUntil(d, () => d.state.phase === 'Completed');
    assert.equal(desired(sim, V1), 0);
  });

  it('on abort after the switch, narrows the stable Service back to the old pods and puts the routing back before the new pods go', () => {
    const { d, sim } = started(blueGreenSpec({ routed: true, delay: 600, items: ['100%'], traffic: [weight(100)] }));
    runUntil(d, () => (d.state.release?.scaleDownAt ?? null) !== null);
    const [s1, s2] = [labelOf(V1), labelOf(V2)];
    assert.equal(sim.stableNarrowedTo, s2, 'switched: the stable Service selects the new pods');
    const unsafe: string[] = [];
    const from = d.results.length;
    runUntil(d, () => d.state.phase === 'Aborted', [command({ type: 'abort' })], () => {
      const fresh = sim.revisions.find((r) => r.id === V2);
      if (fresh !== undefined && fresh.desired < N && fresh.current > 0 && (sim.stableNarrowedTo === s2 || sim.traffic !== null)) unsafe.push(d.state.message);
    });
    assert.deepEqual(unsafe, [], 'no new pod goes while a Service or the router may send it requests');
    const order = [...new Set(d.results.slice(from).flatMap((r) => r.actions.map(word)).filter((w) => w !== null))];
    // The router already is on the user's routing (the switch put it there): the Service first, the new pods after, the Services last.
    assert.deepEqual(order, [`set-services(${s1})`, 'hand-back', 'restore-services']);
    assert.deepEqual([sim.traffic, sim.stableNarrowedTo, sim.canarySelects], [null, null, null]);
    assert.deepEqual([desired(sim, V1), desired(sim, V2)], [N, 0]);
  });
});
