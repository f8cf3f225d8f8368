// Event types of fleet releases. Each transition is one history entry of the fleet and one
// EventBridge event (detail-type = the value; "Fleet " sets them apart from a rollout's), so the
// names are part of the public contract (schemas/fleet-event.schema.json).
import { transition } from '../rollout/events.ts';
import type { FleetCause, FleetEvent, FleetPhase } from './types.ts';

export const FLEET_EVENT = {
  ReleaseStarted: 'Fleet Release Started',
  ReleaseCompleted: 'Fleet Release Completed',
  /** A GitOps fleet release a newer template replaced: a new one starts from the first wave. */
  ReleaseSuperseded: 'Fleet Release Superseded',
  WaveStarted: 'Fleet Wave Started',
  /** Every member of the wave is done; its bake, gates and approval follow. */
  WaveReleased: 'Fleet Wave Released',
  WaveCompleted: 'Fleet Wave Completed',
  AwaitingApproval: 'Fleet Awaiting Approval',
  WaveApproved: 'Fleet Wave Approved',
  AnalysisStarted: 'Fleet Analysis Started',
  GateCheckFailed: 'Fleet Gate Check Failed',
  GatePassed: 'Fleet Gate Passed',
  GateFailed: 'Fleet Gate Failed',
  MemberPermitted: 'Fleet Member Permitted',
  MemberCompleted: 'Fleet Member Completed',
  MemberFailed: 'Fleet Member Failed',
  MemberSkipped: 'Fleet Member Skipped',
  MemberUnreachable: 'Fleet Member Unreachable',
  MemberJoined: 'Fleet Member Joined',
  MemberLeft: 'Fleet Member Left',
  Halted: 'Fleet Halted',
  RollbackStarted: 'Fleet Rollback Started',
  RolledBack: 'Fleet Rolled Back',
  Aborted: 'Fleet Aborted',
  Paused: 'Fleet Paused',
  Resumed: 'Fleet Resumed',
  CommandIgnored: 'Fleet Command Ignored',
} as const;
export type FleetEventType = (typeof FLEET_EVENT)[keyof typeof FLEET_EVENT];

/** What is worth telling a person at once (the stack's notification rule routes them, like NOTIFY_EVENTS). */
export const FLEET_NOTIFY_EVENTS: readonly FleetEventType[] = [
  FLEET_EVENT.AwaitingApproval, FLEET_EVENT.MemberFailed, FLEET_EVENT.GateFailed, FLEET_EVENT.Halted, FLEET_EVENT.RolledBack, FLEET_EVENT.MemberUnreachable,
];

export function fleetEvent(
  fleet: string,
  type: FleetEventType,
  fields: { releaseId: string | null; phase: FleetPhase; wave?: string | null; cluster?: string | null; message: string; at: Date; by?: string | null; reason?: string; cause?: FleetCause | null; commandId?: string | null },
): FleetEvent {
  return {
    type,
    fleet: { name: fleet },
    releaseId: fields.releaseId,
    phase: fields.phase,
    wave: fields.wave ?? null,
    cluster: fields.cluster ?? null,
    ...transition(fields),
  };
}
