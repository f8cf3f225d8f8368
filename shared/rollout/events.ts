// Event types emitted by the planner. Each transition is one history entry and one EventBridge
// event (detail-type = the value), so the names are part of the public contract.
import type { Phase, RolloutEvent, RolloutKey } from './types.ts';

export const EVENT = {
  ReleaseRequested: 'Release Requested',
  ReleaseStarted: 'Release Started',
  ReleaseRestarted: 'Release Restarted',
  /** The release a new template replaced mid-release ends so: aborted, with the reason. */
  ReleaseSuperseded: 'Release Superseded',
  StepStarted: 'Step Started',
  BatchRestarted: 'Batch Restarted',
  BatchReady: 'Batch Ready',
  AwaitingApproval: 'Awaiting Approval',
  StepApproved: 'Step Approved',
  Finalizing: 'Release Finalizing',
  Paused: 'Rollout Paused',
  Resumed: 'Rollout Resumed',
  Retried: 'Release Retried',
  WaitingForWindow: 'Waiting For Window',
  WaitingForStart: 'Waiting For Scheduled Start',
  RollbackStarted: 'Rollback Started',
  UndoStarted: 'Undo Started',
  ReleaseCompleted: 'Release Completed',
  ReleaseAborted: 'Release Aborted',
  ReleaseFailed: 'Release Failed',
  RolledBack: 'Release Rolled Back',
  Adopted: 'Workload Adopted',
  HoldRestored: 'Hold Restored',
  Degraded: 'Rollout Degraded',
  Recovered: 'Rollout Recovered',
  Released: 'Workload Released',
  CommandIgnored: 'Command Ignored',
} as const;
export type EventType = (typeof EVENT)[keyof typeof EVENT];

export function rolloutEvent(
  rollout: RolloutKey,
  type: EventType,
  fields: { releaseId: string | null; phase: Phase; stepIndex: number | null; message: string; at: Date; by?: string | null; commandId?: string | null },
): RolloutEvent {
  return {
    type,
    rollout: { cluster: rollout.cluster, namespace: rollout.namespace, name: rollout.name },
    releaseId: fields.releaseId,
    phase: fields.phase,
    stepIndex: fields.stepIndex,
    message: fields.message,
    at: fields.at.toISOString(),
    by: fields.by ?? null,
    ...(fields.commandId ? { commandId: fields.commandId } : {}),
  };
}
