// A cluster leaving (rollouts clusters deregister): it never leaves a workload held. A fleet member
// at rest may go (it hands its workload back as any deleted Rollout does); one mid-release, or a
// Rollout no fleet owns, refuses the leave, named with the reason. The fleet asks a member it no
// longer wants to go only once nothing it permitted is in flight.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { inFlight, leaveIssues, mayDropMember, type StoredRolloutOfCluster } from '../../../shared/fleet/leave.ts';
import { initialState } from '../../../shared/rollout/state.ts';
import type { PermitRecord, Release, ReleaseState, RolloutSpec } from '../../../shared/rollout/types.ts';

function release(over: Partial<Release>): Release {
  return {
    id: 'r1', kind: 'release', stableRevision: 'v1', targetRevision: 'v2', stepIndex: 0, stepState: 'Upgrading', stepStartedAt: '', stepReadyAt: null,
    observedReplicas: 4, startedAt: '2026-11-30T10:00:00.000Z', notBefore: null, finalizing: false, failure: null, gated: false, endPhase: 'Completed',
    templateSet: true, strategy: 'Partition', ...over,
  };
}

const state = (over: Partial<ReleaseState> = {}): ReleaseState => ({ ...initialState(), stableRevision: 'v1', ...over });
const permit = { id: 'fleet/f1/c3/permit', fleet: 'web', fleetRelease: 'f1@2026-11-30T10:00:00.000Z' };
const record = (status: PermitRecord['status']): PermitRecord => ({ ...permit, status, releaseId: null, images: null, reason: null, at: '2026-11-30T10:00:00.000Z' });

function stored(name: string, s: ReleaseState, fleet: string | null): StoredRolloutOfCluster {
  const spec = { cluster: 'c3', namespace: 'default', name, ...(fleet ? { fleet: { name: fleet, wave: 'rest' } } : {}) } as unknown as RolloutSpec;
  return { key: { cluster: 'c3', namespace: 'default', name }, spec, state: s };
}

describe('inFlight: whether a member can hand its workload back now', () => {
  it('is null at rest: never released, completed, or holding only a permit not yet applied', () => {
    assert.equal(inFlight(state()), null);
    assert.equal(inFlight(state({ lastRelease: release({ permit }), permit: record('Bound') })), null);
    assert.equal(inFlight(state({ commands: [{ type: 'permit', id: 'p', at: '', by: 'fleet:web', fleet: 'web', fleetRelease: permit.fleetRelease }] })), null);
  });

  it('names a release or rollback in flight, with its phase and message', () => {
    assert.equal(inFlight(state({ phase: 'Progressing', message: 'step 1/2: upgrading', release: release({ permit }) })), 'a release of revision v2 is in flight (Progressing: step 1/2: upgrading)');
    assert.match(inFlight(state({ phase: 'Progressing', release: release({ kind: 'rollback', targetRevision: 'v1' }) })) ?? '', /^a rollback to revision v1 is in flight/);
    assert.match(inFlight(state({ release: release({}) })) ?? '', /a release of revision v2/, 'a template held without a permit (a GitOps sync) too: handed back, it would roll at once');
  });

  it('names a fleet change written to the workload and not yet seen', () => {
    assert.equal(inFlight(state({ permit: record('Applied') })), `its fleet's change (permit ${permit.id}) is written to the workload and not yet seen`);
  });

  it('is null once the rollout is being removed (it is handing back already)', () => {
    assert.equal(inFlight(state({ removing: true, release: release({ permit }) })), null);
  });
});

describe('leaveIssues: a deregistration refused while a workload would be left held', () => {
  it('lets a cluster whose members are at rest go', () => {
    assert.deepEqual(leaveIssues('c3', [stored('web', state(), 'web'), stored('api', state({ lastRelease: release({ permit }) }), 'api')]), []);
  });

  it('refuses while a member is mid-release, naming the fleet, the member and what it does', () => {
    const issues = leaveIssues('c3', [stored('web', state({ phase: 'Progressing', message: 'step 1/2', release: release({ permit }) }), 'web')]);
    assert.deepEqual(issues.map((i) => i.path), ['name']);
    assert.equal(issues[0]?.reason, "fleet web's member default/web in cluster c3 is mid-release: a release of revision v2 is in flight (Progressing: step 1/2); deregister once it has finished, or after rollouts fleet abort web has rolled it back");
  });

  it('refuses while a Rollout no fleet owns is there, saying how to hand it back', () => {
    const issues = leaveIssues('c3', [stored('mine', state(), null)]);
    assert.equal(issues[0]?.reason, 'cluster c3 has rollout default/mine, which no fleet owns: delete it first (rollouts delete mine -n default --cluster c3 hands its workload back)');
  });

  it('ignores a rollout half-deleted (no SPEC left): its removal is finishing', () => {
    assert.deepEqual(leaveIssues('c3', [{ ...stored('gone', state({ release: release({}) }), null), spec: null }]), []);
  });
});

describe('mayDropMember: the fleet asks a member it no longer wants to go', () => {
  it('at once when nothing it permitted is in flight (no state, at rest, a held template without a permit)', () => {
    assert.equal(mayDropMember(null), true);
    assert.equal(mayDropMember(state()), true);
    assert.equal(mayDropMember(state({ release: release({}) })), true);
  });

  it('only after a release under its permit, or its change written and unseen, has finished', () => {
    assert.equal(mayDropMember(state({ release: release({ permit }) })), false);
    assert.equal(mayDropMember(state({ permit: record('Applied') })), false);
    assert.equal(mayDropMember(state({ permit: record('Bound'), lastRelease: release({ permit }) })), true);
  });
});
