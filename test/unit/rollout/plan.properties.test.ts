import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { plan } from '../../../shared/rollout/plan.ts';
import { resolveRollingBudget } from '../../../shared/rollout/arithmetic.ts';
import type { Command, PlanResult, ReleaseState, WorkloadView } from '../../../shared/rollout/types.ts';
import { command, Driver, rolloutSpec, steps } from '../../support/sim/scenario.ts';
import { WorkloadSim } from '../../support/sim/workloadSim.ts';

type Op =
  | { op: 'settle' } | { op: 'plan' } | { op: 'tick'; seconds: number } | { op: 'approve' } | { op: 'approve-dup' }
  | { op: 'pause' } | { op: 'resume' } | { op: 'scale'; replicas: number } | { op: 'image' } | { op: 'abort' } | { op: 'retry' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ op: 'settle' } as Op) },
  { weight: 3, arbitrary: fc.constant({ op: 'plan' } as Op) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 400 }).map((seconds) => ({ op: 'tick', seconds }) as Op) },
  { weight: 4, arbitrary: fc.constant({ op: 'approve' } as Op) },
  { weight: 1, arbitrary: fc.constant({ op: 'approve-dup' } as Op) },
  { weight: 1, arbitrary: fc.constant({ op: 'pause' } as Op) },
  { weight: 1, arbitrary: fc.constant({ op: 'resume' } as Op) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 30 }).map((replicas) => ({ op: 'scale', replicas }) as Op) },
  { weight: 2, arbitrary: fc.constant({ op: 'image' } as Op) },
  { weight: 1, arbitrary: fc.constant({ op: 'abort' } as Op) },
  { weight: 1, arbitrary: fc.constant({ op: 'retry' } as Op) },
);

/** Non-decreasing steps of one type (as validation requires), pauses of every kind. */
const stepsArb = fc
  .tuple(fc.boolean(), fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 5 }), fc.array(fc.constantFrom('', ':none', ':30s', ':approval'), { minLength: 5, maxLength: 5 }), fc.boolean())
  .map(([percent, raw, pauses, full]) => {
    const sorted = [...raw].sort((a, b) => a - b);
    const items = sorted.map((v, i) => `${percent ? `${v}%` : v}${pauses[i]}`);
    if (full) items.push('100%');
    return items;
  });

const scenarioArb = fc.record({
  replicas: fc.integer({ min: 1, max: 25 }),
  steps: stepsArb,
  ops: fc.array(opArb, { minLength: 1, maxLength: 40 }),
  deadline: fc.option(fc.integer({ min: 30, max: 300 }), { nil: null }),
});

function isPaused(s: ReleaseState): boolean {
  return s.userPaused;
}

describe('plan: invariants over random steps, replica counts and event orders', () => {
  it('holds every invariant after every reconcile', () => {
    fc.assert(
      fc.property(scenarioArb, ({ replicas, steps: items, ops, deadline }) => {
        const spec = rolloutSpec({ steps: steps(...items), progressDeadlineSeconds: deadline });
        const d = new Driver(new WorkloadSim(replicas), spec);
        d.settle();
        let images = 1;
        let lastApprove: Command | null = null;
        const run = (cmds: Command[], settle: boolean) => {
          const before = d.state;
          const view = d.sim.view();
          const result = settle ? d.settle(cmds) : d.step(cmds);
          if (!settle) checkStep(before, view, cmds, result, (i) => spec.steps[i]?.pause.type ?? 'none', spec.steps.length);
          checkFixedPoint(d);
        };
        for (const o of ops) {
          switch (o.op) {
            case 'settle': run([], true); break;
            case 'plan': run([], false); break;
            case 'tick': d.advance(o.seconds); break;
            case 'approve': lastApprove = command({ type: 'approve' }); run([lastApprove], false); break;
            case 'approve-dup': if (lastApprove) run([lastApprove], false); break;
            case 'pause': run([command({ type: 'pause' })], false); break;
            case 'resume': run([command({ type: 'resume' })], false); break;
            case 'scale': d.sim.replicas = o.replicas; break;
            case 'image': images += 1; d.sim.setImage(`app:v${images}`); break;
            case 'abort': run([command({ type: 'abort' })], false); break;
            case 'retry': run([command({ type: 'retry' })], false); break;
          }
        }
        // Liveness: resumed, approved and given time, every release ends with all pods on one revision.
        run([command({ type: 'resume' })], true);
        for (let i = 0; i < 12 && d.state.release; i += 1) {
          if (d.state.release.failure) run([command({ type: 'abort' })], true);
          d.advance(400);
          run([command({ type: 'approve' })], true);
        }
        assert.equal(d.state.release, null, `release did not finish: ${JSON.stringify(d.state)}`);
        const active = d.sim.view().revisions.filter((r) => r.desired > 0);
        assert.equal(active.length, 1);
        assert.equal(active[0]!.desired, d.sim.replicas);
        assert.equal(active[0]!.id, d.sim.template);
      }),
      { numRuns: 300 },
    );
  });

  it('never lets availability fall below N − maxUnavailable while pods move', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 25 }), stepsArb,
        fc.constantFrom<[string | number, string | number]>(['25%', '25%'], [0, 1], [1, 0], ['50%', 0], [2, 3], [0, '30%']),
        (N, items, [surge, unavailable]) => {
          const d = new Driver(new WorkloadSim(N), rolloutSpec({ steps: steps(...items) }));
          d.sim.maxSurge = surge as never;
          d.sim.maxUnavailable = unavailable as never;
          d.settle();
          d.sim.minAvailableSeen = Number.POSITIVE_INFINITY;
          d.sim.setImage('app:v2');
          for (let i = 0; i < 10 && (d.state.release || i === 0); i += 1) {
            d.advance(60);
            d.settle([command({ type: 'approve' })]);
          }
          const { maxUnavailable } = resolveRollingBudget(N, surge as never, unavailable as never);
          assert.ok(d.sim.minAvailableSeen >= N - maxUnavailable, `availability ${d.sim.minAvailableSeen} < ${N - maxUnavailable}`);
          assert.equal(d.state.phase, 'Completed');
        },
      ),
      { numRuns: 200 },
    );
  });
});

/** Invariants of one plan call against the state and observation it started from. */
function checkStep(before: ReleaseState, view: WorkloadView, cmds: Command[], result: PlanResult, pauseType: (i: number) => string, stepsCount: number): void {
  const replicas = view.replicas;
  const after = result.nextState;
  const approved = cmds.some((c) => c.type === 'approve' && !before.appliedCommandIds.includes(c.id));
  const resumed = cmds.some((c) => c.type === 'resume' || c.type === 'abort');
  for (const a of result.actions) {
    if (a.type !== 'distribute') continue;
    const values = Object.values(a.distribution);
    assert.ok(values.every((v) => v >= 0), 'no negative pod counts');
    assert.equal(values.reduce((x, y) => x + y, 0), replicas, 'a distribution always accounts for every replica');
  }
  if (isPaused(before) && !resumed) {
    // Paused, nothing advances: the only move follows a scale by the user (ReplicaSets asking for
    // other than N), and never gives the new revision more pods than it has.
    const asked = view.revisions.reduce((x, r) => x + r.desired, 0);
    for (const a of result.actions.filter((x) => x.type !== 'hold')) {
      assert.ok(a.type === 'distribute' && !a.final && asked !== replicas, `no object changes while paused but following a scale: ${a.type}`);
      const has = view.revisions.find((r) => r.id === a.target)?.desired ?? 0;
      assert.ok((a.distribution[a.target] ?? 0) <= has, 'the new revision gets no pod while paused');
    }
  }
  const b = before.release;
  const n = after.release;
  if (b && n && b.id === n.id && b.kind === 'release' && n.kind === 'release' && b.targetRevision === n.targetRevision) {
    assert.ok(n.stepIndex >= b.stepIndex, 'steps never go backwards within a release');
    // No approval step is passed over without an approval: every step completed in this plan that
    // pauses for approval must be the one that was waiting and was approved (or already approved).
    const last = n.finalizing && !b.finalizing ? Number.MAX_SAFE_INTEGER : n.stepIndex - 1;
    for (let j = b.stepIndex; j <= Math.min(last, 1000); j += 1) {
      if (pauseType(j) !== 'approval') continue;
      if (j >= stepsCount) break;
      const wasApproved = j === b.stepIndex && (b.stepState === 'StepReady' || (b.stepState === 'StepPaused' && approved));
      assert.ok(wasApproved, `step ${j + 1} needs an approval but was passed over`);
    }
  }
}

/**
 * Planning again with the same observation and time leaves the state unchanged, and emits events
 * only alongside actions still to be done (e.g. re-holding a workload the stale view shows unheld).
 * With no actions left, a reconcile therefore writes nothing anywhere.
 */
function checkFixedPoint(d: Driver): void {
  const again = plan(d.spec, d.state, d.lastView!, d.now);
  assert.deepEqual(again.nextState, d.state, 'second plan changed the state');
  if (again.actions.length === 0) assert.deepEqual(again.events, [], 'second plan emitted events with nothing to do');
}
