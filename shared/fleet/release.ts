// A fleet release's life: it starts (a `fleet release` command, or a template its members hold), it
// halts when more members failed than maxFailures allows or an after-wave gate failed, it rolls back
// (after a halt with rollbackOnFailure, or on `fleet abort`) by revoking every member's permit, and
// it ends. Only this file moves `release` to `lastRelease`.
import { describeLabels } from './labels.ts';
import type { FleetDraft } from './draft.ts';
import { FLEET_EVENT } from './events.ts';
import { assignWaves, fleetClusters } from './placement.ts';
import { allMembers } from './state.ts';
import type { FleetRelease, FleetReleaseState, MemberRun, WaveRun } from './types.ts';
import type { TemplateChange } from '../rollout/types.ts';

export function newMember(cluster: string, placedBy: MemberRun['placedBy'], late: boolean): MemberRun {
  return {
    cluster, placedBy, late, status: 'Waiting', permits: 0, permitId: null, permittedAt: null, revision: null, endedAt: null,
    revoked: false, pausedByFleet: false, unreachableSince: null, note: '', cause: null,
  };
}

/** "app=nginx:1.28", for messages. */
export function describeImages(images: Record<string, string> | null): string {
  return images === null ? 'the template' : describeLabels(images);
}

/**
 * A new fleet release over the clusters the fleet selects now, in waves from scratch. `change` null:
 * each member releases the template it holds (a GitOps sync). Null when the fleet selects no cluster.
 */
export function startFleetRelease(
  d: FleetDraft, change: TemplateChange | null, by: string | null, trigger: string,
  held: { images: Record<string, string> | null; fromImages: Record<string, string> | null } = { images: null, fromImages: null },
): FleetRelease | null {
  const clusters = fleetClusters(d.spec, d.clusters);
  if (clusters.length === 0) return null;
  const s = d.state;
  s.releaseSeq += 1;
  const id = `f${s.releaseSeq}`;
  const startedAt = d.now.toISOString();
  const waves = assignWaves(d.spec, clusters).map((a): WaveRun => ({
    spec: structuredClone(a.wave), state: 'Pending', startedAt: null, membersDoneAt: null, gates: null, approvedBy: null, completedAt: null,
    members: a.members.map((m) => newMember(m.cluster.name, m.placedBy, false)),
  }));
  const rel: FleetRelease = {
    id, ref: `${id}@${startedAt}`, change, requestedBy: by, startedAt,
    images: change === null ? held.images : change.type === 'images' ? { ...change.images } : null,
    fromImages: change === null ? held.fromImages : null,
    state: 'Progressing', endReason: null, abortedBy: null, endedAt: null, waves, pauseSeq: 0,
  };
  s.release = rel;
  const plan = waves.map((w) => `${w.spec.name}: ${w.members.map((m) => m.cluster).join(', ') || 'no cluster'}`).join('; ');
  d.emit(FLEET_EVENT.ReleaseStarted, `fleet release ${id} of ${change ? describeChange(change) : 'the template its members hold'} (${trigger}): ${clusters.length} cluster${clusters.length === 1 ? '' : 's'} in ${waves.length} wave${waves.length === 1 ? '' : 's'} (${plan})`, { by });
  return rel;
}

function describeChange(change: TemplateChange): string {
  return change.type === 'images' ? describeImages(change.images) : 'a pod template patch';
}

/** The release ends as `state`; it becomes lastRelease. */
export function endFleetRelease(d: FleetDraft, state: Exclude<FleetReleaseState, 'Progressing' | 'RollingBack'>, reason: string | null = null): void {
  const s = d.state;
  const rel = s.release;
  if (!rel) return;
  rel.state = state;
  rel.endedAt = d.now.toISOString();
  if (reason !== null) rel.endReason = reason;
  s.lastRelease = rel;
  s.release = null;
}

/** Too many members failed, or a gate did: no new member starts; with rollbackOnFailure, everything goes back. */
export function halt(d: FleetDraft, rel: FleetRelease, why: string, opts: { wave?: string | null; cluster?: string | null } = {}): void {
  rel.endReason = why;
  if (d.spec.rollbackOnFailure) {
    rel.state = 'RollingBack';
    d.emit(FLEET_EVENT.Halted, `${why}: no new cluster starts`, opts);
    d.emit(FLEET_EVENT.RollbackStarted, 'rollbackOnFailure: every member released or releasing goes back to its stable revision, all at once', opts);
    return;
  }
  rel.state = 'Halted';
  d.emit(FLEET_EVENT.Halted, `${why}: no new cluster starts (rollouts fleet abort ${d.spec.name} rolls back; rollouts fleet release starts again)`, opts);
}

export function abort(d: FleetDraft, rel: FleetRelease, by: string): void {
  rel.state = 'RollingBack';
  rel.abortedBy = by;
  rel.endReason = `aborted by ${by}`;
  d.emit(FLEET_EVENT.RollbackStarted, `aborted by ${by}: every member released or releasing goes back to its stable revision, all at once`, { by });
}

const REVOKE_WAITS: readonly string[] = ['permitted', 'releasing', 'completed', 'rolling-back'];

/**
 * One pass of a rollback: every member with something of this release (a permit out, a release
 * under it, a completed one, or a template it holds) gets one revoke, all at once; the release has
 * rolled back once none has anything of it left.
 */
export function rollBack(d: FleetDraft, rel: FleetRelease): void {
  let left = 0;
  for (const m of allMembers(rel)) {
    if (m.status === 'Left') continue;
    const v = d.member(m.cluster);
    if (!m.revoked && (v.active || v.held !== null || m.status === 'Permitted' || REVOKE_WAITS.includes(v.progress))) {
      m.revoked = true;
      m.status = 'RollingBack';
      d.send(m.cluster, { type: 'revoke', fleet: d.spec.name, fleetRelease: rel.ref }, `fleet/${rel.ref}/revoke`, rel.abortedBy ?? `fleet/${d.spec.name}`);
    }
    if (!m.revoked) continue;
    if (v.active || v.held !== null || REVOKE_WAITS.includes(v.progress)) {
      left += 1;
      m.note = v.unreachableSince ? `unreachable since ${v.unreachableSince}: ${v.message}` : v.message;
      m.cause = v.cause;
      continue;
    }
    if (m.status === 'RollingBack') {
      m.status = 'RolledBack';
      m.endedAt = d.now.toISOString();
      m.note = v.message;
    }
  }
  if (left > 0) return;
  const aborted = rel.abortedBy !== null;
  d.emit(aborted ? FLEET_EVENT.Aborted : FLEET_EVENT.RolledBack, `fleet release ${rel.id} ${aborted ? 'aborted' : 'rolled back'}: every member is back on its stable revision`);
  endFleetRelease(d, aborted ? 'Aborted' : 'RolledBack');
}
