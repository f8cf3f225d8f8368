// planFleet(spec, state, members, clusters, now, commands) → { memberCommands, members, invocations, nextState, wakeAt, events }
// One fleet pass as a pure function (docs/fleet.md, "The fleet pass"). It reads the members' STATE
// as their own reconciles persisted it and the registered clusters; it never reads the clock or the
// network. The pipeline persists nextState with memberCommands in its outbox, then records each
// command on its member and enqueues it.
import { applyFleetCommands } from './commands.ts';
import type { ClusterInfo } from './clusters.ts';
import { FleetDraft } from './draft.ts';
import { imagesMismatch } from '../rollout/fleetGate.ts';
import { FLEET_EVENT } from './events.ts';
import { memberSpec } from './member.ts';
import { explainFleet } from './message.ts';
import { checkFailures, observeMembers, syncMembers } from './observe.ts';
import { assignWaves, fleetClusters } from './placement.ts';
import { describeImages, endFleetRelease, rollBack, startFleetRelease } from './release.ts';
import { allMembers, waveOf } from './state.ts';
import type { FleetCommand, FleetPhase, FleetPlanResult, FleetRelease, FleetSpec, FleetState, MemberObservation } from './types.ts';
import { progressWaves } from './waves.ts';
import type { RolloutSpec } from '../rollout/types.ts';

/** A pass may end a release and start the next (a superseded GitOps release, a template held meanwhile). */
const MAX_RELEASES_PER_PASS = 3;

export function planFleet(
  spec: FleetSpec,
  state: FleetState,
  members: readonly MemberObservation[],
  clusters: readonly ClusterInfo[],
  now: Date,
  commands: readonly FleetCommand[] = state.commands,
): FleetPlanResult {
  const d = new FleetDraft(spec, state, members, clusters, now);
  applyFleetCommands(d, commands);
  for (let i = 0; i < MAX_RELEASES_PER_PASS; i += 1) {
    const before = d.state.release;
    step(d);
    // Go on only when this step ended the release it had (a new one may start at once).
    if (before === null || d.state.release !== null) break;
  }
  return finish(d);
}

function step(d: FleetDraft): void {
  if (d.state.release === null) startOnHeldTemplate(d);
  const rel = d.state.release;
  if (rel === null) return;
  syncMembers(d, rel);
  observeMembers(d, rel);
  if (rel.state === 'Progressing') {
    if (superseded(d, rel)) return;
    checkFailures(d, rel);
  }
  if (rel.state === 'Progressing' && !d.state.userPaused) progressWaves(d, rel);
  if (rel.state === 'RollingBack') rollBack(d, rel);
}

/**
 * A template changed in a member outside the fleet (a GitOps sync, in every cluster at once) is
 * held by that member: with no fleet release running, one starts for it, paced like any other.
 */
function startOnHeldTemplate(d: FleetDraft): void {
  const holding = fleetClusters(d.spec, d.clusters).filter((c) => d.member(c.name).held !== null);
  const first = holding[0];
  if (!first) return;
  const v = d.member(first.name);
  const images = v.held?.images && Object.keys(v.held.images).length > 0 ? v.held.images : null;
  startFleetRelease(d, null, null, `cluster ${first.name} holds a new template${holding.length > 1 ? `, and ${holding.length - 1} more` : ''}`, { images, fromImages: v.stableImages });
}

/**
 * A GitOps release whose member, after its turn, holds a template with other images than the
 * release's: a newer version arrived mid-release. It must go through the first wave again, so
 * this release ends and the next pass step starts a new one.
 */
function superseded(d: FleetDraft, rel: FleetRelease): boolean {
  if (rel.change !== null || rel.images === null) return false;
  for (const m of allMembers(rel)) {
    if (m.permits === 0 || m.status === 'Left' || m.status === 'Skipped') continue;
    const held = d.member(m.cluster).held;
    if (held === null || held.revision === m.revision || imagesMismatch(rel.images, held.images) === null) continue;
    const why = `cluster ${m.cluster} holds ${describeImages(held.images)} after its turn: a newer template goes through the waves from the first`;
    d.emit(FLEET_EVENT.ReleaseSuperseded, `fleet release ${rel.id} of ${describeImages(rel.images)} superseded: ${why}`, { wave: waveOf(rel, m.cluster)?.spec.name ?? null, cluster: m.cluster });
    endFleetRelease(d, 'Superseded', why);
    return true;
  }
  return false;
}

function finish(d: FleetDraft): FleetPlanResult {
  const s = d.state;
  s.phase = phaseOf(s);
  const why = explainFleet(d);
  s.message = why.message;
  s.cause = why.cause;
  const wakeAt = d.earliestWake();
  s.nextWakeAt = wakeAt;
  const events = d.events.map((e) => ({ ...e, phase: s.phase, reason: s.message, cause: s.cause }));
  return { memberCommands: d.memberCommands, members: desiredMembers(d), invocations: d.invocations, nextState: s, wakeAt, events };
}

function phaseOf(s: FleetState): FleetPhase {
  const rel = s.release;
  if (s.userPaused && (rel === null || rel.state === 'Progressing')) return 'Paused';
  if (rel !== null) return rel.state === 'Halted' ? 'Halted' : rel.state === 'RollingBack' ? 'RollingBack' : 'Progressing';
  switch (s.lastRelease?.state) {
    case 'Completed': return 'Completed';
    case 'RolledBack': return 'RolledBack';
    case 'Aborted': return 'Aborted';
    case 'Halted': return 'Halted';
    default: return 'Idle';
  }
}

/** Every cluster the fleet selects has a member Rollout, with the wave it is in (or would be in). */
function desiredMembers(d: FleetDraft): RolloutSpec[] {
  const clusters = fleetClusters(d.spec, d.clusters);
  const rel = d.state.release;
  const fresh = rel ? [] : assignWaves(d.spec, clusters);
  return clusters.map((c) => {
    const wave = rel ? waveOf(rel, c.name)?.spec.name : fresh.find((a) => a.members.some((m) => m.cluster.name === c.name))?.wave.name;
    return memberSpec(d.spec, c, wave ?? null);
  });
}

