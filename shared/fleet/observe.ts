// What the fleet learns each pass from the clusters and its members: clusters that joined or left
// (the run never aborts for either), and each member's progress under the fleet release, read from
// the member's own STATE (member.ts says why that is "as observed on its cluster").
import type { FleetDraft } from './draft.ts';
import { FLEET_EVENT } from './events.ts';
import { fleetClusters, joinWave, resolveMaxFailures } from './placement.ts';
import { halt, newMember } from './release.ts';
import { DONE, allMembers } from './state.ts';
import type { FleetRelease, MemberRun, WaveRun } from './types.ts';

/** Progress read from a member's permit record rather than from a release of it. */
const RECORD_PROGRESS: ReadonlySet<string> = new Set(['permitted', 'no-change', 'refused', 'stale']);

/** A permit that lapsed this often (the member's template kept changing under it) fails the member. */
export const MAX_PERMITS = 3;

/** Clusters registered (or labelled) into the fleet join a wave; clusters gone leave it, with a history entry each. */
export function syncMembers(d: FleetDraft, rel: FleetRelease): void {
  const clusters = fleetClusters(d.spec, d.clusters);
  const selected = new Set(clusters.map((c) => c.name));
  for (const wave of rel.waves) {
    for (const m of wave.members) {
      if (m.status !== 'Left' && !selected.has(m.cluster)) {
        const why = d.cluster(m.cluster) ? 'its labels no longer match spec.clusterSelector' : 'it was deregistered';
        m.status = 'Left';
        m.endedAt = d.now.toISOString();
        m.note = `left the fleet: ${why}`;
        d.emit(FLEET_EVENT.MemberLeft, `cluster ${m.cluster} left wave ${wave.spec.name}: ${why}`, { wave: wave.spec.name, cluster: m.cluster });
      } else if (m.status === 'Left' && selected.has(m.cluster)) {
        Object.assign(m, newMember(m.cluster, m.placedBy, isLate(wave)), { permits: m.permits });
        d.emit(FLEET_EVENT.MemberJoined, `cluster ${m.cluster} is back in wave ${wave.spec.name}`, { wave: wave.spec.name, cluster: m.cluster });
      }
    }
  }
  const known = new Set(allMembers(rel).map((m) => m.cluster));
  for (const c of clusters) {
    if (known.has(c.name)) continue;
    const place = joinWave(rel.waves.map((w) => w.spec), c);
    const wave = rel.waves[place.index] as WaveRun;
    const late = isLate(wave);
    wave.members.push(newMember(c.name, place.placedBy, late));
    const how = place.placedBy === 'selector' ? 'its labels select it' : 'no wave selects it, so the last wave';
    d.emit(FLEET_EVENT.MemberJoined, `cluster ${c.name} joined wave ${wave.spec.name} (${how})${late ? ': that wave has released, so it releases on its own, at once' : ''}`, { wave: wave.spec.name, cluster: c.name });
  }
}

/** A wave whose members are all done no longer waits for anyone: a cluster joining it runs on its own. */
function isLate(wave: WaveRun): boolean {
  return wave.state === 'AfterWave' || wave.state === 'Completed';
}

/** Each member's status from its own STATE. */
export function observeMembers(d: FleetDraft, rel: FleetRelease): void {
  for (const wave of rel.waves) {
    for (const m of wave.members) {
      if (m.status === 'Left' || m.status === 'Skipped' || m.revoked) continue;
      observeMember(d, wave, m);
    }
  }
}

function observeMember(d: FleetDraft, wave: WaveRun, m: MemberRun): void {
  const v = d.member(m.cluster);
  const ctx = { wave: wave.spec.name, cluster: m.cluster };
  const wasDone = DONE.has(m.status);
  m.note = v.message;
  m.cause = v.cause;
  // What its permit record says concerns the last permit it consumed: an older one's outcome says nothing of the permit out now.
  const progress = RECORD_PROGRESS.has(v.progress) && v.permitId !== m.permitId ? 'none' : v.progress;
  const fail = (why: string) => {
    m.status = 'Failed';
    m.endedAt = d.now.toISOString();
    m.note = why;
    if (!wasDone) d.emit(FLEET_EVENT.MemberFailed, `cluster ${m.cluster} failed: ${why}`, ctx);
  };
  switch (progress) {
    case 'releasing':
    case 'permitted':
      if (m.status === 'Waiting' || m.status === 'Permitted' || m.status === 'Releasing') m.status = progress === 'releasing' ? 'Releasing' : 'Permitted';
      break;
    case 'completed':
    case 'no-change':
      // A failure, once counted, stays counted (a wave may have opened on it).
      if (m.status === 'Completed' || m.status === 'NoChange' || m.status === 'Failed') break;
      m.status = progress === 'completed' ? 'Completed' : 'NoChange';
      m.endedAt = d.now.toISOString();
      d.emit(FLEET_EVENT.MemberCompleted, progress === 'completed' ? `cluster ${m.cluster} completed its release` : `cluster ${m.cluster} already ran the change: nothing to release`, ctx);
      break;
    case 'failed':
    case 'refused':
    case 'rolling-back':
    case 'rolled-back':
      // Rolled back without a revoke of ours: aborted in its cluster, or its template put back by hand.
      if (m.status !== 'Failed') fail(v.message);
      break;
    case 'stale':
      if (m.status !== 'Permitted' && m.status !== 'Releasing') break;
      if (m.permits >= MAX_PERMITS) fail(`its template changed under ${m.permits} permits in a row: ${v.message}`);
      else m.status = 'Waiting';
      break;
    case 'none':
      // Releasing, then nothing of it: its STATE was restored or lost. It holds the template; permit it again.
      if (m.status === 'Releasing') m.status = 'Waiting';
      break;
  }
}

/** Members whose turn has come: an open wave's, or a late joiner's. */
export function turnCame(wave: WaveRun, m: MemberRun): boolean {
  return m.late || wave.state === 'Releasing';
}

/**
 * A member whose turn came (waves.ts calls this as it schedules an open wave) and whose cluster is
 * unreachable holds its wave; past unreachableDeadline, counted from its turn, it fails.
 */
export function watchReachability(d: FleetDraft, wave: WaveRun, m: MemberRun): void {
  const since = d.member(m.cluster).unreachableSince;
  if (since === null || DONE.has(m.status) || !turnCame(wave, m)) {
    m.unreachableSince = null;
    return;
  }
  if (m.unreachableSince === null) {
    // The deadline counts from when the member's turn came, not from before it.
    m.unreachableSince = wave.startedAt !== null && Date.parse(wave.startedAt) > Date.parse(since) ? wave.startedAt : since;
    d.emit(FLEET_EVENT.MemberUnreachable, `cluster ${m.cluster} is unreachable: it holds wave ${wave.spec.name}, and counts as failed after ${d.spec.unreachableDeadlineSeconds}s`, { wave: wave.spec.name, cluster: m.cluster });
  }
  const deadline = Date.parse(m.unreachableSince) + d.spec.unreachableDeadlineSeconds * 1000;
  if (d.now.getTime() < deadline) {
    d.wakeAt(deadline);
    return;
  }
  m.status = 'Failed';
  m.endedAt = d.now.toISOString();
  m.note = `cluster ${m.cluster} unreachable since ${m.unreachableSince} (unreachableDeadline ${d.spec.unreachableDeadlineSeconds}s)`;
  d.emit(FLEET_EVENT.MemberFailed, `cluster ${m.cluster} failed: ${m.note}`, { wave: wave.spec.name, cluster: m.cluster });
}

/** More members failed than maxFailures allows: the fleet release halts. */
export function checkFailures(d: FleetDraft, rel: FleetRelease): void {
  const members = allMembers(rel).filter((m) => m.status !== 'Left');
  const failed = members.filter((m) => m.status === 'Failed');
  const allowed = resolveMaxFailures(d.spec.maxFailures, members.length);
  if (failed.length <= allowed) return;
  const who = failed.map((m) => `${m.cluster} (${m.note})`).join('; ');
  halt(d, rel, `${failed.length} member${failed.length === 1 ? '' : 's'} failed, more than maxFailures ${allowed}: ${who}`, { cluster: failed[0]?.cluster ?? null });
}
