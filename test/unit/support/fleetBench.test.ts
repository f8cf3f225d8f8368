// The fleet benchmark's readings (bench/fleetRelease.ts): the overhead between waves taken from the
// members' and the fleet's history, serve's lines counted as passes and transitions, and the rate at
// rest taken off each release's window. A handoff read from the wrong member or the wrong release
// would report an overhead that means nothing.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { HistoryEntry } from '../../../shared/ports.ts';
import { FleetRecordError, completedFleetReleases, fleetHandoffs } from '../../../bench/lib/fleetHandoffs.ts';
import { countServeLines } from '../../../bench/lib/serveLines.ts';
import { meanUnits, type WindowUnits } from '../../../bench/lib/fleetUnits.ts';

const T0 = Date.parse('2026-12-02T10:00:00Z');
let seq = 0;

function h(releaseId: string, ms: number, type: string, where: { wave?: string; cluster?: string } = {}): HistoryEntry {
  seq += 1;
  return { releaseId, seq, at: new Date(T0 + ms).toISOString(), type, phase: 'Progressing', stepIndex: null, message: '', by: null, wave: where.wave ?? null, cluster: where.cluster ?? null };
}

/** A fleet release f1 of waves one [a, b] → two [c], from `t` ms on. */
function fleetRelease(id: string, t: number, completed = true): HistoryEntry[] {
  return [
    h(id, t, 'Fleet Release Started'),
    h(id, t + 10, 'Fleet Wave Started', { wave: 'one' }),
    h(id, t + 10, 'Fleet Member Permitted', { wave: 'one', cluster: 'a' }),
    h(id, t + 10, 'Fleet Member Permitted', { wave: 'one', cluster: 'b' }),
    h(id, t + 2100, 'Fleet Member Completed', { wave: 'one', cluster: 'a' }),
    h(id, t + 3050, 'Fleet Member Completed', { wave: 'one', cluster: 'b' }),
    h(id, t + 3060, 'Fleet Wave Completed', { wave: 'one' }),
    h(id, t + 3070, 'Fleet Wave Started', { wave: 'two' }),
    h(id, t + 3080, 'Fleet Member Permitted', { wave: 'two', cluster: 'c' }),
    ...(completed ? [h(id, t + 6000, 'Fleet Member Completed', { wave: 'two', cluster: 'c' }), h(id, t + 6010, 'Fleet Release Completed')] : []),
  ];
}

function member(releaseId: string, startMs: number, endMs: number): HistoryEntry[] {
  return [h(releaseId, startMs, 'Release Started'), h(releaseId, startMs + 5, 'Batch Ready'), h(releaseId, endMs, 'Release Completed')];
}

describe('the fleet overhead read from the history', () => {
  it('runs from the last member of a wave to complete to the first of the next wave to start, split by the fleet\'s records', () => {
    const fleet = fleetRelease('f1', 0);
    const members = { a: member('r1', 30, 2000), b: member('r1', 40, 3000), c: member('r1', 3200, 5900) };
    const [handoff, ...more] = fleetHandoffs(fleet, members);
    assert.equal(more.length, 0, 'two waves: one transition');
    assert.deepEqual(handoff, {
      releaseId: 'f1', fromWave: 'one', toWave: 'two', lastCluster: 'b', firstCluster: 'c',
      lastCompletedAt: new Date(T0 + 3000).toISOString(), firstStartedAt: new Date(T0 + 3200).toISOString(), overheadMs: 200,
      parts: { fleetSawItMs: 50, waveStartedMs: 20, permittedMs: 10, memberStartedMs: 120 },
    });
  });

  it('takes each member\'s release that started during the fleet release, and leaves out a fleet release still running', () => {
    const fleet = [...fleetRelease('f1', 0), ...fleetRelease('f2', 10_000), ...fleetRelease('f3', 20_000, false)];
    const members = {
      a: [...member('r1', 30, 2000), ...member('r2', 10_030, 11_000), ...member('r3', 20_030, 21_000)],
      b: [...member('r1', 40, 3000), ...member('r2', 10_040, 12_500), ...member('r3', 20_040, 22_000)],
      c: [...member('r1', 3200, 5900), ...member('r2', 12_900, 15_000)],
    };
    assert.deepEqual(completedFleetReleases(fleet).map((r) => [r.releaseId, r.totalMs]), [['f1', 6010], ['f2', 6010]]);
    assert.deepEqual(fleetHandoffs(fleet, members).map((x) => [x.releaseId, x.lastCluster, x.overheadMs]), [['f1', 'b', 200], ['f2', 'b', 400]]);
  });

  it('refuses to give a figure when a member\'s record is missing', () => {
    const members = { a: member('r1', 30, 2000), b: member('r1', 40, 3000), c: [] };
    assert.throws(() => fleetHandoffs(fleetRelease('f1', 0), members), (err: unknown) => err instanceof FleetRecordError && /no "Release Started" in the history of the member in c/.test(err.message));
  });
});

describe('serve\'s lines counted', () => {
  it('counts passes by key kind and reason, delayed runs and transitions, fleet or rollout', () => {
    const units = countServeLines([
      '10:00:01  reconcile F#web (member): changed Progressing',
      '10:00:01  reconcile default/web (fleet): changed Progressing (again in 5s)',
      '10:00:01  next pass of default/web at 2026-12-02T10:00:06.000Z (requeue)',
      '10:00:02  event Fleet Member Permitted: fleet web f1 wave one cluster c1 → Progressing: cluster c1 may release nginx:2',
      '10:00:02  event Release Started: default/web r1 → Progressing: release nginx:2',
      '10:00:06  reconcile default/web (requeue): changed Progressing',
      '10:00:07  reconcile default/web failed, retrying: socket hang up',
      '10:00:08  sandbox c2: kube-apiserver ready',
    ]);
    assert.deepEqual(units, { reconciles: { fleet: 1, member: 2, byReason: { member: 1, fleet: 1, requeue: 1 } }, delayedRuns: 1, events: { rollout: 1, fleet: 1 }, failedPasses: 1 });
  });
});

describe('units of one fleet release', () => {
  const window = (ms: number, passes: number, gets: number): WindowUnits => ({
    ms, serve: { reconciles: { fleet: 0, member: passes, byReason: { sweep: passes } }, delayedRuns: 0, events: { rollout: 0, fleet: 0 }, failedPasses: 0 },
    dynamodb: { requests: { GetItem: gets }, capacity: { GetItem: gets / 2 } },
  });

  it('takes off the rate at rest scaled to each window, never below zero, and averages over the releases', () => {
    const baseline = window(30_000, 3, 30); // 0.1 pass/s, 1 GetItem/s
    const u = meanUnits([window(10_000, 11, 50), window(20_000, 1, 60)], baseline, [9000, 11_000]);
    assert.equal(u.releaseMs, 10_000);
    assert.equal(u.reconciles.member, 5, '(11 − 1) and max(0, 1 − 2), averaged');
    assert.deepEqual(u.dynamodb.requests, { GetItem: 40 }, '(50 − 10) and (60 − 20), averaged');
    assert.deepEqual(u.dynamodb.capacity, { GetItem: 20 });
  });
});
