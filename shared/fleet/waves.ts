// Moving a fleet release forward, one wave at a time: a wave opens only once every wave before it
// has completed (each member done as its own STATE says, then the bake, the gates and the approval);
// within an open wave at most maxConcurrency members release at once, in the wave's order, skipping
// (with the reason) members that cannot start now: unreachable, outside their own windows, or
// without the template a GitOps release needs. A cluster that joined a finished wave runs at once.
import { imagesMismatch } from '../rollout/fleetGate.ts';
import { instant } from '../rollout/message.ts';
import { isWindowOpen, nextOpeningWindow, wallClockLabel, WINDOW_SEARCH_DAYS } from '../rollout/windows.ts';
import { afterWave, enterAfterWave } from './afterWave.ts';
import { checkFailures, watchReachability } from './observe.ts';
import type { FleetDraft } from './draft.ts';
import { FLEET_EVENT } from './events.ts';
import { MISSING_MEMBER, memberSpec, type MemberView } from './member.ts';
import { resolveConcurrency } from './placement.ts';
import { describeImages, endFleetRelease } from './release.ts';
import { DONE, allMembers } from './state.ts';
import type { FleetRelease, MemberBlocker, MemberRun, WaveRun } from './types.ts';

/** Why a member whose turn came does not start now (kept for the fleet's reason). */
export function progressWaves(d: FleetDraft, rel: FleetRelease): void {
  for (const [index, wave] of rel.waves.entries()) {
    if (wave.state === 'Completed') continue;
    if (wave.state === 'Pending') {
      wave.state = 'Releasing';
      wave.startedAt = d.now.toISOString();
      d.emit(FLEET_EVENT.WaveStarted, `wave ${index + 1}/${rel.waves.length} ${wave.spec.name} started: ${liveMembers(wave).map((m) => m.cluster).join(', ') || 'no cluster'}`, { wave: wave.spec.name });
    }
    if (wave.state === 'Releasing') {
      if (!scheduleChecked(d, rel, wave, wave.members.filter((m) => !m.late))) return;
      if (!liveMembers(wave).every((m) => DONE.has(m.status))) break;
      if (liveMembers(wave).length === 0) {
        complete(d, wave, 'it has no cluster');
        continue;
      }
      // Its bake, gates and approval look at what the wave released: with nothing released, nothing to look at.
      if (!liveMembers(wave).some((m) => m.status === 'Completed' || m.status === 'Failed')) {
        complete(d, wave, 'none of its members had anything to release');
        continue;
      }
      enterAfterWave(d, rel, wave, index);
    }
    if (wave.state === 'AfterWave') {
      const verdict = afterWave(d, rel, wave, index);
      if (verdict !== 'done') break;
      complete(d, wave, 'its members are done and its after-wave tasks passed');
    }
  }
  for (const wave of rel.waves) if (!scheduleChecked(d, rel, wave, wave.members.filter((m) => m.late))) return;
  if (rel.state === 'Progressing' && rel.waves.every((w) => w.state === 'Completed') && allMembers(rel).every((m) => DONE.has(m.status))) {
    const counts = countBy(allMembers(rel).map((m) => m.status));
    d.emit(FLEET_EVENT.ReleaseCompleted, `fleet release ${rel.id} completed: ${Object.entries(counts).map(([k, n]) => `${n} ${k.toLowerCase()}`).join(', ')}`);
    endFleetRelease(d, 'Completed');
  }
}

function complete(d: FleetDraft, wave: WaveRun, why: string): void {
  wave.state = 'Completed';
  wave.completedAt = d.now.toISOString();
  d.emit(FLEET_EVENT.WaveCompleted, `wave ${wave.spec.name} completed: ${why}`, { wave: wave.spec.name });
}

/** The wave's members that are still in the fleet. */
export function liveMembers(wave: WaveRun): MemberRun[] {
  return wave.members.filter((m) => m.status !== 'Left');
}

/**
 * A member whose cluster stayed unreachable past its deadline fails first, and may be one failure
 * too many: then nothing starts (false: the release halted). Otherwise the candidates are scheduled.
 */
function scheduleChecked(d: FleetDraft, rel: FleetRelease, wave: WaveRun, candidates: MemberRun[]): boolean {
  for (const m of candidates) watchReachability(d, wave, m);
  checkFailures(d, rel);
  if (rel.state !== 'Progressing') return false;
  schedule(d, rel, wave, candidates);
  return true;
}

/**
 * Permit `candidates` (waiting, in the wave's order) while slots are free. Late joiners have no
 * wave to hold and start at once, each on its own.
 */
function schedule(d: FleetDraft, rel: FleetRelease, wave: WaveRun, candidates: MemberRun[]): void {
  const late = candidates.some((m) => m.late);
  const slots = late ? Number.POSITIVE_INFINITY : resolveConcurrency(wave.spec.maxConcurrency, liveMembers(wave).filter((m) => !m.late).length);
  let active = late ? 0 : candidates.filter((m) => m.status === 'Permitted' || m.status === 'Releasing').length;
  for (const m of candidates) {
    if (m.status !== 'Waiting') continue;
    if (active >= slots) {
      block(d, m, { kind: 'Concurrency', text: `waiting for its turn: maxConcurrency ${slots}, ${active} member${active === 1 ? '' : 's'} releasing`, until: null });
      continue;
    }
    const v = d.member(m.cluster);
    const blocker = blockerOf(d, rel, m, v);
    if (blocker === 'already-runs') {
      m.status = 'NoChange';
      m.endedAt = d.now.toISOString();
      m.note = `already runs ${describeImages(rel.images)}: nothing to release`;
      d.emit(FLEET_EVENT.MemberCompleted, `cluster ${m.cluster} already runs ${describeImages(rel.images)}: nothing to release`, { wave: wave.spec.name, cluster: m.cluster });
      continue;
    }
    if (blocker !== null) {
      block(d, m, blocker);
      continue;
    }
    permit(d, rel, wave, m, v);
    active += 1;
  }
}

function block(d: FleetDraft, m: MemberRun, blocker: MemberBlocker): void {
  m.note = blocker.text;
  d.blockers.set(m.cluster, blocker);
}

function blockerOf(d: FleetDraft, rel: FleetRelease, m: MemberRun, v: MemberView): MemberBlocker | 'already-runs' | null {
  if (v === MISSING_MEMBER) return { kind: 'MemberMissing', text: 'its member rollout has no STATE yet (not applied, or not reconciled yet)', until: null };
  if (!v.ready) return { kind: 'MemberMissing', text: `its member rollout has not adopted the workload yet: ${v.message}`, until: null };
  // The fleet's reason says since when and until when (message.ts); the member's own words say why.
  if (v.unreachableSince !== null) return { kind: 'ClusterUnreachable', text: v.message, until: null };
  if (v.degraded) return { kind: 'Member', text: v.message, until: null };
  const window = windowBlocker(d, m.cluster);
  if (window !== null) return window;
  if (rel.change !== null) return null;
  if (v.held === null) {
    if (alreadyRuns(rel, v)) return 'already-runs';
    return {
      kind: 'AwaitingChange',
      text: `its template has not changed: waiting for the new template to reach it (rollouts fleet skip ${d.spec.name} ${m.cluster} if it has none to release)`,
      until: null,
    };
  }
  const mismatch = imagesMismatch(rel.images, v.held.images);
  if (mismatch !== null) {
    return { kind: 'NotMatching', text: `it holds ${describeImages(v.held.images)}, not what fleet release ${rel.id} releases (${describeImages(rel.images)}): ${mismatch}`, until: null };
  }
  return null;
}

/**
 * A member holding nothing already runs what a release of held templates brings: its stable images
 * are the release's, and the release does change images (its starting member ran others). Without
 * that, a template change that touched no image could not be told from a sync that has not arrived.
 */
function alreadyRuns(rel: FleetRelease, v: MemberView): boolean {
  if (rel.images === null || rel.fromImages === null || v.stableImages === null || Object.keys(v.stableImages).length === 0) return false;
  return imagesMismatch(rel.images, rel.fromImages) !== null && imagesMismatch(rel.images, v.stableImages) === null;
}

/** Release windows are read in the member cluster's own zone (its registration's timeZone). */
function windowBlocker(d: FleetDraft, cluster: string): MemberBlocker | null {
  const info = d.cluster(cluster);
  if (!info || d.spec.windows.length === 0) return null;
  const windows = memberSpec(d.spec, info, null).windows;
  if (isWindowOpen(windows, d.now)) return null;
  const next = nextOpeningWindow(windows, d.now);
  if (next === null) {
    d.wakeAt(d.now.getTime() + WINDOW_SEARCH_DAYS * 86_400_000);
    return { kind: 'Window', text: `outside its release windows; none opens in the next ${WINDOW_SEARCH_DAYS} days`, until: null };
  }
  d.wakeAt(next.at);
  const opens = next.at.toISOString();
  return { kind: 'Window', text: `outside its release windows; next opens at ${instant(opens)} (${wallClockLabel(next.at, next.window.timeZone)})`, until: opens };
}

function permit(d: FleetDraft, rel: FleetRelease, wave: WaveRun, m: MemberRun, v: MemberView): void {
  const held = v.held;
  // A template already holding the fleet's change is permitted as it is; otherwise the permit writes the change.
  const asHeld = held !== null && (rel.change === null || (rel.change.type === 'images' && Object.keys(held.images ?? {}).length > 0 && imagesMismatch(rel.change.images, held.images) === null));
  m.permits += 1;
  const id = `fleet/${rel.ref}/permit-${m.permits}`;
  const body = asHeld
    ? { type: 'permit' as const, fleet: d.spec.name, fleetRelease: rel.ref, revision: held.revision }
    : { type: 'permit' as const, fleet: d.spec.name, fleetRelease: rel.ref, ...(rel.change ? { change: rel.change } : {}) };
  if (rel.change === null && rel.images === null && held?.images) rel.images = { ...held.images };
  m.status = 'Permitted';
  m.permitId = id;
  m.permittedAt = d.now.toISOString();
  m.revision = asHeld ? held.revision : null;
  m.note = asHeld ? `permitted to release revision ${held.revision}` : `permitted to release ${describeImages(rel.images)}`;
  d.send(m.cluster, body, id, d.principal);
  d.emit(FLEET_EVENT.MemberPermitted, `cluster ${m.cluster} may release ${asHeld ? `the template it holds (revision ${held.revision})` : describeImages(rel.images)}${m.late ? ' (joined late)' : ''}`, { wave: wave.spec.name, cluster: m.cluster });
}

function countBy(values: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}
