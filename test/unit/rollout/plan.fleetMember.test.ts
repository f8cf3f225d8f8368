// A fleet member (a Rollout whose spec names its fleet) never moves a pod for a new template before
// its fleet permits it: neither when the template changed outside us (a GitOps sync, kubectl) nor
// when the fleet's own permit carries the change. Permits and revokes are idempotent and recorded
// on STATE with what came of them, which is all the fleet reads.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EVENT } from '../../../shared/rollout/events.ts';
import { plan } from '../../../shared/rollout/plan.ts';
import { initialState } from '../../../shared/rollout/state.ts';
import type { Command, CommandBody } from '../../../shared/rollout/types.ts';
import { revisionOf } from '../../support/sim/workloadSim.ts';
import { command, rolloutSpec, setup, steps, type Driver } from '../../support/sim/scenario.ts';

const V1 = revisionOf('app:v1');
const V2 = revisionOf('app:v2');
const V3 = revisionOf('app:v3');
const FLEET = 'web';
const F1 = 'f1@2026-11-30T10:00:00.000Z';

const member = (overrides = {}) => rolloutSpec({ fleet: { name: FLEET, wave: 'rest' }, ...overrides });
const permit = (body: Partial<Extract<CommandBody, { type: 'permit' }>> = {}, id?: string): Command =>
  command({ type: 'permit', fleet: FLEET, fleetRelease: F1, ...body }, id);
const revoke = (fleetRelease = F1): Command => command({ type: 'revoke', fleet: FLEET, fleetRelease });

function held(d: Driver): void {
  assert.equal(d.sim.count(V2), 0, 'no pod on the new revision');
  assert.equal(d.sim.held, true, 'the workload stays held');
}

describe('plan: a fleet member holds a template its fleet has not permitted', () => {
  it('holds a template changed everywhere at once (GitOps) and names the fleet and the wave', () => {
    const d = setup(10, member());
    d.sim.setImage('app:v2');
    d.settle();
    d.advance(3600);
    d.settle();
    held(d);
    assert.equal(d.state.phase, 'Progressing');
    assert.equal(d.state.release?.targetRevision, V2);
    assert.equal(d.state.release?.permit, undefined);
    assert.match(d.state.message, /^held for fleet web \(wave rest\): revision rev-app:v2 waits for the fleet to permit it/);
    assert.deepEqual({ kind: d.state.cause?.kind, object: d.state.cause?.object }, { kind: 'Fleet', object: 'fleet/web' });
    assert.equal(d.eventTypes().filter((t) => t === EVENT.WaitingForFleet).length, 1, 'said once');
  });

  it('releases the held template batch by batch once permitted, without the hold counting against the deadline', () => {
    const d = setup(10, member({ progressDeadlineSeconds: 60 }));
    d.sim.setImage('app:v2');
    d.settle();
    d.advance(7200);
    d.settle([permit({ revision: V2 })]);
    assert.equal(d.state.phase, 'Progressing', 'not failed: holding is not failing to progress');
    assert.equal(d.sim.count(V2), 1, 'step 1 only');
    assert.equal(d.state.release?.stepState, 'StepPaused');
    assert.deepEqual(d.state.permit && { status: d.state.permit.status, releaseId: d.state.permit.releaseId }, { status: 'Bound', releaseId: d.state.release?.id });
    d.settle([command({ type: 'approve' })]);
    d.settle([command({ type: 'approve' })]);
    assert.equal(d.state.phase, 'Completed');
    assert.equal(d.state.lastRelease?.permit?.fleetRelease, F1, 'the completed release names the fleet release it ran under');
    assert.deepEqual(d.state.stableImages, { app: 'app:v2' });
  });

  it('ignores a permit for a revision it no longer holds, and records it as stale', () => {
    const d = setup(10, member());
    d.sim.setImage('app:v2');
    d.settle();
    d.sim.setImage('app:v3');
    d.settle();
    d.settle([permit({ revision: V2 })]);
    held(d);
    assert.equal(d.sim.count(V3), 0);
    assert.equal(d.state.permit?.status, 'Stale');
    assert.match(d.state.permit?.reason ?? '', /permit is for revision rev-app:v2 but revision rev-app:v3 is held now/);
    assert.ok(d.results.flatMap((x) => x.events).some((e) => e.type === EVENT.CommandIgnored));
  });

  it('spends a permit whose release a new template replaces in the very pass it binds', () => {
    const d = setup(10, member());
    d.sim.setImage('app:v2');
    d.settle();
    d.sim.setImage('app:v3');
    d.settle([permit({ revision: V2 })]);
    held(d);
    assert.equal(d.sim.count(V3), 0);
    assert.equal(d.state.permit?.status, 'Stale');
    assert.match(d.state.permit?.reason ?? '', /release r1 under it was replaced by revision rev-app:v3/);
  });

  it('ignores a permit or a revoke from another fleet', () => {
    const d = setup(10, member());
    d.sim.setImage('app:v2');
    d.settle();
    d.settle([command({ type: 'permit', fleet: 'other', fleetRelease: F1, revision: V2 }), command({ type: 'revoke', fleet: 'other', fleetRelease: F1 })]);
    held(d);
    const ignored = d.results.flatMap((r) => r.events).filter((e) => e.type === EVENT.CommandIgnored).map((e) => e.message);
    assert.equal(ignored.length, 2);
    assert.ok(ignored.every((m) => /not a member of fleet other/.test(m)));
  });

  it('holds a new template that arrives mid-release: the pods stay where they are until a new permit', () => {
    const d = setup(10, member());
    d.sim.setImage('app:v2');
    d.settle();
    d.settle([permit({ revision: V2 })]);
    assert.equal(d.sim.count(V2), 1);
    d.sim.setImage('app:v3');
    d.settle();
    d.settle([command({ type: 'approve' })]);
    assert.equal(d.sim.count(V3), 0, 'the new revision waits for its permit');
    assert.equal(d.sim.count(V2), 1, 'nothing moved back or forward');
    assert.equal(d.state.release?.targetRevision, V3);
    assert.match(d.state.message, /held for fleet web/);
  });

  it('refuses an undo: a member goes back through its fleet', () => {
    const d = setup(4, member({ steps: steps('100%') }));
    d.sim.setImage('app:v2');
    d.settle();
    d.settle([permit({ revision: V2 })]);
    assert.equal(d.state.phase, 'Completed');
    d.settle([command({ type: 'undo' })]);
    assert.equal(d.sim.template, V2);
    assert.match(d.results.flatMap((r) => r.events).find((e) => e.type === EVENT.CommandIgnored)?.message ?? '', /goes back with rollouts fleet abort, not undo/);
  });

  it('after losing its STATE mid-release, adopts the release as held: it never resumes without a permit', () => {
    const d = setup(10, member());
    d.sim.setImage('app:v2');
    d.settle();
    d.settle([permit({ revision: V2 })]);
    d.settle([command({ type: 'approve' })]);
    const moved = d.sim.count(V2);
    assert.ok(moved > 1);
    d.state = initialState();
    d.settle();
    d.advance(600);
    d.settle([command({ type: 'approve' })]);
    assert.equal(d.sim.count(V2), moved, 'no pod moved');
    assert.match(d.state.message, /held for fleet web/);
  });
});

describe('plan: a fleet member released by its fleet\'s own change', () => {
  it('writes the change only when permitted, then releases it under the permit', () => {
    const d = setup(10, member());
    const r = d.step([permit({ change: { type: 'images', images: { app: 'app:v2' } } })]);
    assert.deepEqual(r.actions.filter((a) => a.type === 'set-template'), [{ type: 'set-template', change: { type: 'images', images: { app: 'app:v2' } } }]);
    assert.equal(d.state.permit?.status, 'Applied');
    d.settle();
    assert.equal(d.state.release?.permit?.fleetRelease, F1);
    assert.equal(d.state.permit?.status, 'Bound');
    assert.equal(d.sim.count(V2), 1, 'step 1 at once: the permit is bound by the pass that sees the template');
  });

  it('records that there is nothing to release when the change leaves the template as it is', () => {
    const d = setup(10, member());
    d.settle([permit({ change: { type: 'images', images: { app: 'app:v1' } } })]);
    assert.equal(d.state.permit?.status, 'NoChange');
    assert.equal(d.state.release, null);
    assert.ok(d.eventTypes().includes(EVENT.NothingToRelease));
  });

  it('does not take a change its controller has not observed yet for no change', () => {
    const d = setup(10, member());
    d.step([permit({ change: { type: 'images', images: { app: 'app:v2' } } })]);
    // A StatefulSet reports its old update revision until its controller observes the new template.
    const live = d.sim.view.bind(d.sim);
    d.sim.view = () => ({ ...live(), templateRevision: V1, observed: false });
    const r = d.step();
    assert.equal(d.state.permit?.status, 'Applied', 'still waiting to see the template');
    assert.ok(r.requeueSeconds !== null, 'and it looks again soon');
    d.sim.view = live;
    d.settle();
    assert.equal(d.state.permit?.status, 'Bound');
  });

  it('does not bind its permit to a template someone else wrote before the change was seen', () => {
    const d = setup(10, member());
    d.step([permit({ change: { type: 'images', images: { app: 'app:v2' } } })]);
    d.sim.setImage('app:v3'); // a GitOps sync lands on top of the fleet's change
    d.settle();
    held(d);
    assert.equal(d.sim.count(V3), 0);
    assert.equal(d.state.permit?.status, 'Stale');
    assert.match(d.state.permit?.reason ?? '', /app runs app:v3, not app:v2/);
  });

  it('fails the request with the reason when the change names a container the workload lacks', () => {
    const d = setup(10, member());
    d.settle([permit({ change: { type: 'images', images: { sidecar: 'envoy:1' } } })]);
    assert.equal(d.state.permit?.status, 'Refused');
    assert.match(d.state.permit?.reason ?? '', /container sidecar not found/);
    assert.equal(d.sim.template, V1);
  });

  it('applies a permit delivered twice once', () => {
    const d = setup(10, member());
    const p = permit({ change: { type: 'images', images: { app: 'app:v2' } } }, 'fleet/f1/permit/1');
    d.settle([p]);
    const before = d.eventTypes().filter((t) => t === EVENT.ReleasePermitted).length;
    d.settle([p]);
    assert.equal(d.eventTypes().filter((t) => t === EVENT.ReleasePermitted).length, before);
    assert.equal(d.state.releaseSeq, 1);
  });
});

describe('plan: a fleet member rolled back by its fleet', () => {
  it('aborts a release running under the revoked fleet release, keeping the permit on the rollback', () => {
    const d = setup(10, member());
    d.sim.setImage('app:v2');
    d.settle();
    d.settle([permit({ revision: V2 })]);
    d.settle([revoke()]);
    assert.equal(d.sim.template, V1);
    assert.equal(d.sim.count(V1), 10);
    assert.equal(d.state.phase, 'Aborted');
    assert.deepEqual({ kind: d.state.lastRelease?.kind, fleetRelease: d.state.lastRelease?.permit?.fleetRelease }, { kind: 'rollback', fleetRelease: F1 });
  });

  it('rolls a completed release back to the revision it replaced', () => {
    const d = setup(4, member({ steps: steps('50%:none', '100%') }));
    d.sim.setImage('app:v2');
    d.settle();
    d.settle([permit({ revision: V2 })]);
    assert.equal(d.state.phase, 'Completed');
    d.settle([revoke()]);
    assert.equal(d.state.phase, 'Aborted');
    assert.equal(d.state.stableRevision, V1);
    assert.equal(d.sim.count(V1), 4);
    assert.equal(d.state.lastRelease?.permit?.fleetRelease, F1);
  });

  it('puts back a template held for a permit, so nothing of the fleet release is left', () => {
    const d = setup(10, member());
    d.sim.setImage('app:v2');
    d.settle();
    d.settle([revoke()]);
    assert.equal(d.sim.template, V1);
    assert.equal(d.state.release, null);
  });

  it('puts back a change its permit wrote that no pass has seen yet', () => {
    const d = setup(10, member());
    d.step([permit({ change: { type: 'images', images: { app: 'app:v2' } } })]);
    d.settle([revoke()]);
    assert.equal(d.sim.template, V1);
    assert.equal(d.sim.count(V2), 0);
    assert.equal(d.state.permit?.status, 'Revoked');
    assert.equal(d.state.lastRelease?.permit?.fleetRelease, F1);
  });

  it('leaves a release of another fleet release alone', () => {
    const d = setup(10, member());
    d.sim.setImage('app:v2');
    d.settle();
    d.settle([permit({ revision: V2 })]);
    d.settle([revoke('f0@2026-11-29T10:00:00.000Z')]);
    assert.equal(d.sim.count(V2), 1);
    assert.match(d.results.flatMap((r) => r.events).filter((e) => e.type === EVENT.CommandIgnored).at(-1)?.message ?? '', /runs under fleet release f1@/);
  });

  it('keeps the permit on its own automatic rollback after a failure', () => {
    const d = setup(4, member({ progressDeadlineSeconds: 60, rollbackOnFailure: true }));
    d.sim.neverReady.add(V2);
    d.sim.setImage('app:v2');
    d.settle();
    d.settle([permit({ revision: V2 })]);
    d.advance(61);
    d.settle();
    assert.equal(d.state.phase, 'Failed');
    assert.equal(d.sim.count(V1), 4);
    assert.deepEqual({ kind: d.state.lastRelease?.kind, endPhase: d.state.lastRelease?.endPhase, fleetRelease: d.state.lastRelease?.permit?.fleetRelease }, { kind: 'rollback', endPhase: 'Failed', fleetRelease: F1 });
  });
});

describe('plan: an ordinary Rollout is not gated', () => {
  it('starts a release of a new template at once, and carries no fleet fields', () => {
    const d = setup(10);
    d.sim.setImage('app:v2');
    d.settle();
    assert.equal(d.sim.count(V2), 1);
    assert.equal(d.state.release?.images, undefined);
    assert.equal(d.state.stableImages, undefined);
    assert.match(plan(d.spec, d.state, d.sim.view(), d.now, [permit({ revision: V2 })]).events.find((e) => e.type === EVENT.CommandIgnored)?.message ?? '', /not a member of fleet web/);
  });
});
