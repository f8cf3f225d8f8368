// Fleet verbs. `fleetCommandProblem` says why a verb cannot apply to the fleet's state: the API
// refuses it when it is given (409), and the planner consumes it with a "Fleet Command Ignored"
// event if the state changed in between, so both answer the same. Each command applies once.
import type { FleetDraft } from './draft.ts';
import { FLEET_EVENT } from './events.ts';
import { fleetClusters } from './placement.ts';
import { abort, endFleetRelease, startFleetRelease } from './release.ts';
import { APPLIED_COMMAND_MEMORY, DONE, allMembers } from './state.ts';
import type { FleetCommand, FleetCommandBody, FleetRelease, FleetState, WaveRun } from './types.ts';

export interface CommandProblem {
  /** The field the answer names: the verb itself, or the body field at fault. */
  field: string;
  reason: string;
}

/** The wave a release stands at, for people: `wave 2/3 "rest"`. */
export function currentWave(rel: FleetRelease): { wave: WaveRun; index: number } | null {
  const index = rel.waves.findIndex((w) => w.state !== 'Completed');
  const wave = rel.waves[index];
  return wave ? { wave, index } : null;
}

export function waveLabel(rel: FleetRelease, index: number): string {
  return `wave ${index + 1}/${rel.waves.length} "${rel.waves[index]?.spec.name ?? ''}"`;
}

/** The wave waiting for `rollouts fleet approve`, if one is. */
export function waveAwaitingApproval(rel: FleetRelease): WaveRun | undefined {
  return rel.waves.find((w) => w.state === 'AfterWave' && w.spec.after.approval && w.approvedBy === null);
}

/** Why `cmd` cannot apply to the fleet now, or null when it may. */
export function fleetCommandProblem(state: FleetState, cmd: FleetCommandBody): CommandProblem | null {
  const rel = state.release;
  switch (cmd.type) {
    case 'release':
      if (rel?.state === 'Progressing') {
        const at = currentWave(rel);
        return { field: 'release', reason: `fleet release ${rel.id} is in progress${at ? ` (${waveLabel(rel, at.index)})` : ''}: abort it or wait for it to end` };
      }
      if (rel?.state === 'RollingBack') return { field: 'release', reason: `fleet release ${rel.id} is rolling back: wait for it to end` };
      return null;
    case 'approve': {
      if (!rel || rel.state !== 'Progressing') return { field: 'approve', reason: 'no fleet release is waiting for approval' };
      const waiting = waveAwaitingApproval(rel);
      if (!waiting) {
        const releasing = rel.waves.find((w) => w.state === 'Releasing' && w.spec.after.approval);
        if (releasing) {
          const members = releasing.members.filter((m) => m.status !== 'Left');
          const done = members.filter((m) => DONE.has(m.status)).length;
          return { field: 'approve', reason: `wave "${releasing.spec.name}" is still releasing (${done} of ${members.length} members done): approve it once it has released` };
        }
        return { field: 'approve', reason: 'no wave is waiting for approval' };
      }
      if (cmd.wave !== undefined && cmd.wave !== waiting.spec.name) return { field: 'wave', reason: `wave "${cmd.wave}" is not the wave waiting for approval ("${waiting.spec.name}" is)` };
      if (cmd.releaseId !== undefined && cmd.releaseId !== rel.id) return { field: 'releaseId', reason: `releaseId ${cmd.releaseId} is not the fleet release waiting for approval (${rel.id} is)` };
      return null;
    }
    case 'pause':
      return state.userPaused ? { field: 'pause', reason: 'the fleet is already paused' } : null;
    case 'resume':
      return state.userPaused ? null : { field: 'resume', reason: 'the fleet is not paused' };
    case 'abort':
      if (!rel) return { field: 'abort', reason: 'no fleet release in progress' };
      return rel.state === 'RollingBack' ? { field: 'abort', reason: `fleet release ${rel.id} is already rolling back` } : null;
    case 'skip': {
      if (!rel || rel.state !== 'Progressing') return { field: 'skip', reason: 'no fleet release in progress' };
      const member = allMembers(rel).find((m) => m.cluster === cmd.cluster);
      if (!member) return { field: 'cluster', reason: `cluster ${cmd.cluster} is not in fleet release ${rel.id} (its clusters: ${allMembers(rel).map((m) => m.cluster).join(', ')})` };
      if (member.status !== 'Waiting') return { field: 'cluster', reason: `cluster ${cmd.cluster} is ${member.status} in fleet release ${rel.id}: only a member whose turn has not come can be skipped` };
      return null;
    }
  }
}

export function applyFleetCommands(d: FleetDraft, commands: readonly FleetCommand[]): void {
  const s = d.state;
  const consumed = new Set(s.appliedCommandIds);
  for (const cmd of commands) {
    if (consumed.has(cmd.id)) continue;
    d.commandId = cmd.id;
    const problem = fleetCommandProblem(s, cmd);
    if (problem) d.emit(FLEET_EVENT.CommandIgnored, `${cmd.type} by ${cmd.by} ignored: ${problem.reason}`, { by: cmd.by });
    else applyOne(d, cmd);
    d.commandId = null;
    consumed.add(cmd.id);
    s.appliedCommandIds = [...s.appliedCommandIds, cmd.id].slice(-APPLIED_COMMAND_MEMORY);
  }
  s.commands = s.commands.filter((c) => !consumed.has(c.id));
}

function applyOne(d: FleetDraft, cmd: FleetCommand): void {
  const s = d.state;
  const rel = s.release;
  const by = { by: cmd.by };
  switch (cmd.type) {
    case 'release': {
      const change = cmd.change ?? null;
      if (change === null && !anyMemberHolds(d)) {
        d.emit(FLEET_EVENT.CommandIgnored, `release by ${cmd.by} ignored: no member holds a new template; give the change (--image) or change the template first`, by);
        return;
      }
      // A halted release ends here: the new one is the fix forward.
      if (rel?.state === 'Halted') endFleetRelease(d, 'Halted');
      if (startFleetRelease(d, change, cmd.by, `requested by ${cmd.by}`) === null) {
        d.emit(FLEET_EVENT.CommandIgnored, `release by ${cmd.by} ignored: the fleet's clusterSelector selects no registered cluster`, by);
      }
      return;
    }
    case 'approve': {
      const wave = rel ? waveAwaitingApproval(rel) : undefined;
      if (!wave) return;
      wave.approvedBy = cmd.by;
      d.emit(FLEET_EVENT.WaveApproved, `wave ${wave.spec.name} approved by ${cmd.by}`, { ...by, wave: wave.spec.name });
      return;
    }
    case 'pause':
      s.userPaused = true;
      if (rel) pauseMembers(d, rel, 'pause', cmd.by);
      d.emit(FLEET_EVENT.Paused, `paused by ${cmd.by}: no member starts and the members releasing pause`, by);
      return;
    case 'resume':
      s.userPaused = false;
      if (rel) pauseMembers(d, rel, 'resume', cmd.by);
      d.emit(FLEET_EVENT.Resumed, `resumed by ${cmd.by}`, by);
      return;
    case 'abort':
      if (rel) abort(d, rel, cmd.by);
      return;
    case 'skip': {
      const member = rel ? allMembers(rel).find((m) => m.cluster === cmd.cluster) : undefined;
      if (!member) return;
      member.status = 'Skipped';
      member.endedAt = d.now.toISOString();
      member.note = `skipped by ${cmd.by}: nothing to release in this fleet release`;
      d.emit(FLEET_EVENT.MemberSkipped, `cluster ${cmd.cluster} skipped by ${cmd.by}`, { ...by, cluster: cmd.cluster });
      return;
    }
  }
}

/**
 * The fleet's pause reaches the members that are releasing (their pods stop where they are); its
 * resume reaches exactly the members its pause did.
 */
function pauseMembers(d: FleetDraft, rel: FleetRelease, verb: 'pause' | 'resume', by: string): void {
  rel.pauseSeq += 1;
  for (const m of allMembers(rel)) {
    const reach = verb === 'pause' ? (m.status === 'Permitted' || m.status === 'Releasing') && !m.pausedByFleet : m.pausedByFleet;
    if (!reach) continue;
    m.pausedByFleet = verb === 'pause';
    d.send(m.cluster, { type: verb }, `fleet/${rel.ref}/${verb}-${rel.pauseSeq}`, by);
  }
}

function anyMemberHolds(d: FleetDraft): boolean {
  return fleetClusters(d.spec, d.clusters).some((c) => d.member(c.name).held !== null);
}
