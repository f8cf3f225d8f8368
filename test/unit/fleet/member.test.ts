// A member Rollout as the fleet applies it, and what the fleet reads in a member's STATE: only a
// release that ran under a permit of the running fleet release counts, so no stale state passes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { memberKey, memberSpec, viewMember } from '../../../shared/fleet/member.ts';
import { parseFleetRollout } from '../../../shared/fleet/parse.ts';
import { initialState } from '../../../shared/rollout/state.ts';
import type { Release, ReleaseState } from '../../../shared/rollout/types.ts';
import { cluster, fleetDocument } from '../../support/sim/fleetSim.ts';

const F = 'f2@2026-11-30T10:00:00.000Z';
const OLDER = 'f1@2026-11-29T10:00:00.000Z';

function release(over: Partial<Release>): Release {
  return {
    id: 'r1', kind: 'release', stableRevision: 'v1', targetRevision: 'v2', stepIndex: 0, stepState: 'Upgrading', stepStartedAt: '', stepReadyAt: null,
    observedReplicas: 4, startedAt: '2026-11-30T10:00:00.000Z', notBefore: null, finalizing: false, failure: null, gated: false, endPhase: 'Completed',
    templateSet: true, strategy: 'Partition', ...over,
  };
}

function state(over: Partial<ReleaseState>): ReleaseState {
  return { ...initialState(), stableRevision: 'v1', ...over };
}

const permit = (fleetRelease: string) => ({ id: 'p', fleet: 'web', fleetRelease });

describe('memberSpec', () => {
  it('is the fleet\'s policy for the workload in the cluster, under the fleet\'s name, reading its windows in the cluster\'s zone', () => {
    const spec = parseFleetRollout(fleetDocument('web', { template: { releaseWindows: [{ days: ['Mon'], start: '09:00', end: '16:00' }, { days: ['Tue'], start: '09:00', end: '12:00', timeZone: 'UTC' }] } }));
    const tokyo = memberSpec(spec, cluster('jp', {}, 'Asia/Tokyo'), 'rest');
    assert.deepEqual(memberKey(spec, 'jp'), { cluster: 'jp', namespace: 'default', name: 'web' });
    assert.deepEqual({ cluster: tokyo.cluster, namespace: tokyo.namespace, name: tokyo.name, fleet: tokyo.fleet, workload: tokyo.workloadRef.name }, { cluster: 'jp', namespace: 'default', name: 'web', fleet: { name: 'web', wave: 'rest' }, workload: 'web' });
    assert.deepEqual(tokyo.windows.map((w) => w.timeZone), ['Asia/Tokyo', 'UTC']);
    assert.deepEqual(memberSpec(spec, cluster('nowhere'), null).windows.map((w) => w.timeZone), ['UTC', 'UTC'], 'a cluster registered without a zone reads them in UTC');
  });
});

describe('viewMember: what counts as done under a fleet release', () => {
  it('counts a release completed under the running fleet release', () => {
    const s = state({ stableRevision: 'v2', lastRelease: release({ permit: permit(F), endPhase: 'Completed', targetRevision: 'v2' }) });
    assert.equal(viewMember(s, F).progress, 'completed');
  });

  it('never counts a release completed under an earlier fleet release, or outside any (a stale state)', () => {
    assert.equal(viewMember(state({ stableRevision: 'v2', lastRelease: release({ permit: permit(OLDER), targetRevision: 'v2' }) }), F).progress, 'none');
    assert.equal(viewMember(state({ stableRevision: 'v2', lastRelease: release({ targetRevision: 'v2' }) }), F).progress, 'none');
    assert.equal(viewMember(state({ phase: 'Completed', stableRevision: 'v2', lastRelease: release({ permit: { ...permit(F), fleetRelease: 'f2@2026-11-01T00:00:00.000Z' }, targetRevision: 'v2' }) }), F).progress, 'none', 'the same f2 of an earlier incarnation of the fleet');
  });

  it('tells releasing, failed, rolling back and rolled back apart', () => {
    assert.equal(viewMember(state({ release: release({ permit: permit(F) }) }), F).progress, 'releasing');
    assert.equal(viewMember(state({ release: release({ permit: permit(F), failure: 'step 1 did not become ready' }) }), F).progress, 'failed');
    assert.equal(viewMember(state({ release: release({ permit: permit(F), kind: 'rollback', endPhase: 'Failed' }) }), F).progress, 'failed');
    assert.equal(viewMember(state({ release: release({ permit: permit(F), kind: 'rollback', endPhase: 'Aborted' }) }), F).progress, 'rolling-back');
    assert.equal(viewMember(state({ lastRelease: release({ permit: permit(F), kind: 'rollback', endPhase: 'Aborted' }) }), F).progress, 'rolled-back');
    assert.equal(viewMember(state({ lastRelease: release({ permit: permit(F), kind: 'rollback', endPhase: 'Failed' }) }), F).progress, 'failed');
  });

  it('reads a permit not yet bound, or spent, from its record', () => {
    const record = (status: 'Applied' | 'NoChange' | 'Refused' | 'Stale') => state({ permit: { ...permit(F), status, releaseId: null, images: null, reason: null, at: '' } });
    assert.deepEqual((['Applied', 'NoChange', 'Refused', 'Stale'] as const).map((s) => viewMember(record(s), F).progress), ['permitted', 'no-change', 'refused', 'stale']);
  });

  it('reports the template it holds, its reachability and whether it can take a permit', () => {
    const held = viewMember(state({ release: release({ images: { app: 'app:v2' } }) }), F);
    assert.deepEqual(held.held, { revision: 'v2', images: { app: 'app:v2' }, since: '2026-11-30T10:00:00.000Z' });
    const away = viewMember(state({ cause: { kind: 'ClusterUnreachable', object: 'cluster/eu', field: null, detail: 'ECONNREFUSED', since: '2026-11-30T09:00:00.000Z', until: null } }), F);
    assert.equal(away.unreachableSince, '2026-11-30T09:00:00.000Z');
    assert.equal(viewMember(initialState(), F).ready, false, 'not adopted yet');
    assert.equal(viewMember(null, F).ready, false);
  });
});
