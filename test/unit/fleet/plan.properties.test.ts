// Invariants of fleet releases under any sequence of what users, GitOps, clusters and time do:
// fleet commands, templates changed in any clusters, members that fail, clusters that go down,
// register and deregister, and time passing. Checked on every fleet pass and every member pass.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FLEET_EVENT } from '../../../shared/fleet/events.ts';
import { resolveConcurrency } from '../../../shared/fleet/placement.ts';
import { planFleet } from '../../../shared/fleet/plan.ts';
import type { FleetPlanResult, FleetRelease } from '../../../shared/fleet/types.ts';
import { isHeldForFleet } from '../../../shared/rollout/fleetGate.ts';
import { FleetSim, cluster, fleetCommand, fleetDocument } from '../../support/sim/fleetSim.ts';

type Action =
  | { a: 'release' } | { a: 'gitops'; who: number[] } | { a: 'approve' } | { a: 'pause' } | { a: 'resume' } | { a: 'abort' }
  | { a: 'skip'; who: number } | { a: 'fail'; who: number } | { a: 'down'; who: number } | { a: 'up'; who: number }
  | { a: 'register'; ring: boolean } | { a: 'deregister'; who: number } | { a: 'advance'; seconds: number } | { a: 'step' };

const who = fc.integer({ min: 0, max: 7 });
const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ a: 'release' } as const) },
  { weight: 2, arbitrary: fc.array(who, { minLength: 1, maxLength: 5 }).map((w) => ({ a: 'gitops', who: w }) as const) },
  { weight: 4, arbitrary: fc.constant({ a: 'approve' } as const) },
  { weight: 1, arbitrary: fc.constant({ a: 'pause' } as const) },
  { weight: 1, arbitrary: fc.constant({ a: 'resume' } as const) },
  { weight: 1, arbitrary: fc.constant({ a: 'abort' } as const) },
  { weight: 1, arbitrary: who.map((w) => ({ a: 'skip', who: w }) as const) },
  { weight: 1, arbitrary: who.map((w) => ({ a: 'fail', who: w }) as const) },
  { weight: 1, arbitrary: who.map((w) => ({ a: 'down', who: w }) as const) },
  { weight: 1, arbitrary: who.map((w) => ({ a: 'up', who: w }) as const) },
  { weight: 1, arbitrary: fc.boolean().map((ring) => ({ a: 'register', ring }) as const) },
  { weight: 1, arbitrary: who.map((w) => ({ a: 'deregister', who: w }) as const) },
  { weight: 2, arbitrary: fc.constantFrom(1, 61, 700, 3600).map((seconds) => ({ a: 'advance', seconds }) as const) },
  { weight: 16, arbitrary: fc.constant({ a: 'step' } as const) },
);

const waveArb = fc.record({
  pick: fc.constantFrom('canary', 'count', 'percent', 'rest'),
  maxConcurrency: fc.constantFrom<number | string>(1, 2, '50%'),
  approval: fc.boolean(),
  bake: fc.constantFrom(0, 60),
});

function fleetOf(waves: { pick: string; maxConcurrency: number | string; approval: boolean; bake: number }[], rollbackOnFailure: boolean, maxFailures: number): Record<string, unknown> {
  const docs = waves.map((w, i) => ({
    name: `w${i}`,
    ...(w.pick === 'canary' ? { selector: { matchLabels: { ring: 'canary' } } } : w.pick === 'count' ? { count: 1 } : w.pick === 'percent' ? { percent: 50 } : {}),
    maxConcurrency: w.maxConcurrency,
    after: { approval: w.approval, bake: w.bake },
  }));
  // At most one selector wave (two equal selectors are refused), and an all-remaining wave only last.
  const seen = new Set<string>();
  const waves2 = docs.filter((d, i) => {
    const key = 'selector' in d ? 'selector' : 'count' in d || 'percent' in d ? `${i}` : 'rest';
    if ((key === 'selector' || key === 'rest') && seen.has(key)) return false;
    seen.add(key);
    return key !== 'rest' || i === docs.length - 1;
  });
  return fleetDocument('web', { waves: waves2.length > 0 ? waves2 : [{ name: 'all' }], template: { progressDeadlineSeconds: 60 }, spec: { rollbackOnFailure, maxFailures } });
}

/** Every permit a pass sends belongs to a running release, to a wave whose earlier waves all completed, within maxConcurrency. */
function checkPass(f: FleetSim, r: FleetPlanResult, reran: boolean): void {
  const rels = [r.nextState.release, r.nextState.lastRelease].filter((x): x is FleetRelease => x !== null);
  for (const { member, command } of r.memberCommands) {
    if (command.type !== 'permit' && command.type !== 'revoke') continue;
    const rel = rels.find((x) => x.ref === command.fleetRelease);
    assert.ok(rel, `${command.type} for a release the fleet knows`);
    if (command.type === 'revoke') {
      assert.ok(rel.state === 'RollingBack' || rel.state === 'RolledBack' || rel.state === 'Aborted', `revoke only while rolling back (${rel.state})`);
      continue;
    }
    assert.equal(rel.state === 'Progressing' || rel.state === 'Completed', true, `a permit only from a running release (${rel.state})`);
    const index = rel.waves.findIndex((w) => w.members.some((m) => m.cluster === member.cluster));
    const m = rel.waves[index]?.members.find((x) => x.cluster === member.cluster);
    if (m?.late) continue;
    for (const earlier of rel.waves.slice(0, index)) assert.equal(earlier.state, 'Completed', `wave ${index} opened before ${earlier.spec.name} completed`);
  }
  // A pass that starts a member of a wave leaves it within maxConcurrency (a wave that shrank, a
  // cluster deregistered under a percent, stops no member already releasing: it starts none more).
  const rel = r.nextState.release;
  const started = new Set(r.memberCommands.filter((c) => c.command.type === 'permit').map((c) => c.member.cluster));
  for (const w of rel?.waves ?? []) {
    const live = w.members.filter((m) => m.status !== 'Left' && !m.late);
    if (!live.some((m) => started.has(m.cluster))) continue;
    const moving = live.filter((m) => m.status === 'Permitted' || m.status === 'Releasing').length;
    assert.ok(moving <= resolveConcurrency(w.spec.maxConcurrency, live.length), `wave ${w.spec.name}: ${moving} members releasing at once`);
  }
  // A member the fleet counts as completed completed a release under this fleet release, and its
  // cluster runs it on every pod: no status left from before can pass for it.
  for (const e of r.events.filter((x) => x.type === FLEET_EVENT.MemberCompleted && /completed its release/.test(x.message))) {
    const d = f.member(e.cluster as string);
    const last = d.state.lastRelease;
    const ref = rels.find((x) => x.id === e.releaseId)?.ref;
    assert.deepEqual([last?.kind, last?.endPhase, last?.permit?.fleetRelease], ['release', 'Completed', ref], `member ${e.cluster} counted completed`);
    assert.equal(d.sim.count(last?.targetRevision ?? ''), d.sim.replicas, `member ${e.cluster}: every pod on the revision it completed`);
  }
  for (const e of r.events.filter((x) => x.type === FLEET_EVENT.Halted)) {
    assert.match(e.message, /failed/, 'a halt names a failure');
  }
  if (reran) {
    const observations = [...f.members].map(([c, d]) => ({ cluster: c, state: d.state }));
    const again = planFleet(f.spec, f.state, observations, f.clusters, f.now);
    assert.deepEqual(again.memberCommands, [], 'a second pass over the same STATEs asks nothing more');
    assert.deepEqual(again.events, [], 'and says nothing more');
  }
}

/** Members step; a release held for its fleet gets pods on its target only under a permit its fleet sent it. */
function membersStep(f: FleetSim): void {
  const before = new Map([...f.members].map(([c, d]) => [c, d.state.release && isHeldForFleet(d.spec, d.state.release) ? { target: d.state.release.targetRevision, count: d.sim.count(d.state.release.targetRevision) } : null]));
  f.membersStep();
  for (const [c, d] of f.members) {
    const held = before.get(c);
    if (!held || d.sim.count(held.target) <= held.count) continue;
    const permit = [d.state.release, d.state.lastRelease].find((r) => r?.targetRevision === held.target && r.permit)?.permit;
    assert.ok(permit, `member ${c} moved pods to ${held.target} with no permit`);
    assert.ok(f.sent.some((s) => s.cluster === c && s.command.id === permit.id), `member ${c} moved pods under permit ${permit.id}, which its fleet never sent`);
  }
}

function run(f: FleetSim, actions: Action[], names: string[]): void {
  let image = 2;
  let registered = 0;
  const pick = (i: number) => f.clusters[i % Math.max(1, f.clusters.length)]?.name;
  for (const act of actions) {
    const cmds = [];
    switch (act.a) {
      case 'release': cmds.push(fleetCommand({ type: 'release', change: { type: 'images', images: { app: `app:v${image++}` } } })); break;
      case 'gitops': { const img = `app:v${image++}`; f.syncImage(img, [...new Set(act.who.map((w) => names[w % names.length] as string))].filter((c) => f.members.has(c) && !f.down.has(c))); break; }
      case 'approve': case 'pause': case 'resume': case 'abort': cmds.push(fleetCommand({ type: act.a })); break;
      case 'skip': { const c = pick(act.who); if (c) cmds.push(fleetCommand({ type: 'skip', cluster: c })); break; }
      case 'fail': { const c = pick(act.who); const d = c ? f.members.get(c) : undefined; if (d) d.sim.neverReady.add(d.sim.template); break; }
      case 'down': { const c = pick(act.who); if (c) f.down.add(c); break; }
      case 'up': { const c = pick(act.who); if (c) f.down.delete(c); break; }
      case 'register': { const name = `new-${registered++}`; f.clusters.push(cluster(name, act.ring ? { ring: 'canary' } : {})); names.push(name); break; }
      case 'deregister': { const c = pick(act.who); if (c && f.clusters.length > 1) f.clusters = f.clusters.filter((x) => x.name !== c); break; }
      case 'advance': f.advance(act.seconds); break;
      case 'step': membersStep(f); break;
    }
    checkPass(f, f.fleetStep(cmds), act.a === 'step');
  }
}

describe('planFleet: invariants under any sequence of events (property)', () => {
  it('opens waves in order, within maxConcurrency, never moves a held member, and sends nothing twice', () => {
    fc.assert(fc.property(
      fc.integer({ min: 2, max: 5 }), fc.array(waveArb, { minLength: 1, maxLength: 3 }), fc.boolean(), fc.integer({ min: 0, max: 1 }), fc.array(action, { minLength: 10, maxLength: 80, size: 'max' }),
      (n, waves, rollbackOnFailure, maxFailures, actions) => {
        const clusters = Array.from({ length: n }, (_, i) => cluster(`c${i}`, i === 0 ? { ring: 'canary' } : {}));
        let f: FleetSim;
        try {
          f = FleetSim.of(fleetOf(waves, rollbackOnFailure, maxFailures), clusters);
        } catch {
          return; // a spec the parser refuses is not a fleet to run
        }
        run(f, actions, clusters.map((c) => c.name));
      },
    ), { numRuns: 120 });
  });

  it('completes every release when nothing fails: each member that stays runs the new image', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 6 }), fc.array(waveArb, { minLength: 1, maxLength: 3 }), fc.boolean(), (n, waves, gitops) => {
      const clusters = Array.from({ length: n }, (_, i) => cluster(`c${i}`, i === 0 ? { ring: 'canary' } : {}));
      let f: FleetSim;
      try {
        f = FleetSim.of(fleetOf(waves, false, 0), clusters);
      } catch {
        return;
      }
      if (gitops) f.syncImage('app:v2');
      f.settle(gitops ? [] : [fleetCommand({ type: 'release', change: { type: 'images', images: { app: 'app:v2' } } })]);
      for (let i = 0; i < 10 && f.state.phase !== 'Completed'; i += 1) {
        f.advance(61);
        f.settle([fleetCommand({ type: 'approve' })]);
      }
      assert.equal(f.state.phase, 'Completed', f.state.message);
      for (const [c, d] of f.members) assert.equal(d.sim.count('rev-app:v2'), 4, `cluster ${c}`);
    }), { numRuns: 60 });
  });
});
