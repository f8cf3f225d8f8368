// Constructors and small pure helpers for FleetState.
import { APPLIED_COMMAND_MEMORY } from '../rollout/state.ts';
import type { FleetRelease, FleetState, MemberRun, MemberStatus, WaveRun } from './types.ts';

export { APPLIED_COMMAND_MEMORY };

/** STATE of a fleet that has never released (what a missing STATE item means). */
export function initialFleetState(): FleetState {
  return {
    phase: 'Idle', message: '', cause: null, release: null, lastRelease: null, releaseSeq: 0, userPaused: false,
    commands: [], appliedCommandIds: [], specVersion: 0, nextWakeAt: null,
  };
}

/** True while a fleet release runs (the sweep keeps an eye on it, as on an active rollout). */
export function isFleetActive(state: FleetState): boolean {
  return state.release !== null;
}

/** A member is done for its wave in these states. */
export const DONE: ReadonlySet<MemberStatus> = new Set<MemberStatus>(['Completed', 'NoChange', 'Skipped', 'Failed', 'Left', 'RolledBack']);

export function allMembers(rel: FleetRelease): MemberRun[] {
  return rel.waves.flatMap((w) => w.members);
}

/** A member's wave in the release, or undefined. */
export function waveOf(rel: FleetRelease, cluster: string): WaveRun | undefined {
  return rel.waves.find((w) => w.members.some((m) => m.cluster === cluster));
}

/** A command already recorded or applied (its id is remembered): recording it again changes nothing. */
export function isDuplicateFleetCommand(state: FleetState, id: string): boolean {
  return state.commands.some((c) => c.id === id) || state.appliedCommandIds.includes(id);
}
