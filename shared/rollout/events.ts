// Event types emitted by the planner. Each transition is one history entry and one EventBridge
// event (detail-type = the value), so the names are part of the public contract.
import type { Cause } from './cause.ts';
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
  ClusterUnreachable: 'Cluster Unreachable',
  ClusterReachable: 'Cluster Reachable',
  /** A pod hook's outcome (hooks.ts): each attempt leaves one of these three in the history. */
  HookSucceeded: 'Hook Succeeded',
  HookAttemptFailed: 'Hook Attempt Failed',
  HookFailed: 'Hook Failed',
  /** A step's gates (gates.ts): analysis began, a check said no, a gate passed or failed. */
  AnalysisStarted: 'Analysis Started',
  GateCheckFailed: 'Gate Check Failed',
  GatePassed: 'Gate Passed',
  GateFailed: 'Gate Failed',
  /** A fleet member (fleetGate.ts): a release held for its fleet, permitted, lapsed, or not needed. */
  WaitingForFleet: 'Waiting For Fleet',
  ReleasePermitted: 'Release Permitted',
  PermitLapsed: 'Permit Lapsed',
  NothingToRelease: 'Nothing To Release',
  /** Traffic routing (routing.ts): a step's weight or matches live at the router, or the user's routing back. */
  TrafficShifted: 'Traffic Shifted',
  TrafficRestored: 'Traffic Restored',
} as const;
export type EventType = (typeof EVENT)[keyof typeof EVENT];

/**
 * What is worth telling a person at once: a release that needs an approval, and every failure (a
 * missed deadline, an automatic rollback that finished, a broken contract, a cluster out of reach).
 * The stack's optional notification rule routes exactly these detail-types to SNS.
 */
export const NOTIFY_EVENTS: readonly EventType[] = [EVENT.AwaitingApproval, EVENT.ReleaseFailed, EVENT.RolledBack, EVENT.Degraded, EVENT.ClusterUnreachable];

export function rolloutEvent(
  rollout: RolloutKey,
  type: EventType,
  fields: { releaseId: string | null; phase: Phase; stepIndex: number | null; message: string; at: Date; by?: string | null; reason?: string; cause?: Cause | null; commandId?: string | null },
): RolloutEvent {
  return {
    type,
    rollout: { cluster: rollout.cluster, namespace: rollout.namespace, name: rollout.name },
    releaseId: fields.releaseId,
    phase: fields.phase,
    stepIndex: fields.stepIndex,
    ...transition(fields),
  };
}

/**
 * The fields every transition event has (a rollout's, a fleet's: shared/fleet/events.ts). The
 * planner fills `reason` and `cause` with the reason after the whole plan (plan.ts finish).
 */
export function transition<C>(fields: { message: string; at: Date; by?: string | null; reason?: string; cause?: C | null; commandId?: string | null }) {
  return {
    message: fields.message,
    at: fields.at.toISOString(),
    by: fields.by ?? null,
    reason: fields.reason ?? '',
    cause: fields.cause ?? null,
    ...(fields.commandId ? { commandId: fields.commandId } : {}),
  };
}
