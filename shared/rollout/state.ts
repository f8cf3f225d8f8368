// Constructors and small pure helpers for ReleaseState.
import type { ReleaseState } from './types.ts';

/** How many consumed command ids are remembered so a redelivered command is a no-op. Redelivery
 * happens within minutes (SQS/EventBridge retries), so a short memory suffices and keeps STATE under
 * 1 KB (one write unit) with UUID ids. */
export const APPLIED_COMMAND_MEMORY = 25;

/** STATE of a rollout that has never released (what a missing STATE item means). */
export function initialState(): ReleaseState {
  return {
    phase: 'Healthy',
    message: '',
    cause: null,
    release: null,
    lastRelease: null,
    userPaused: false,
    releaseSeq: 0,
    stableRevision: null,
    commands: [],
    appliedCommandIds: [],
    specVersion: 0,
    nextWakeAt: null,
    scheduledStartAt: null,
    removing: false,
  };
}

/** A command id already waiting in STATE or already consumed by the planner. */
export function isDuplicateCommand(state: ReleaseState, id: string): boolean {
  return state.commands.some((c) => c.id === id) || state.appliedCommandIds.includes(id);
}

/** True when the release is still moving or waiting (the sweep must keep an eye on it). */
export function isActive(state: ReleaseState): boolean {
  return state.release !== null;
}
