// Domain types of fleet releases (docs/fleet.md): one workload released cluster by cluster, wave by
// wave, by member Rollouts that the fleet permits to start. Pure data, like shared/rollout/types.ts.
import type { Cause } from '../rollout/cause.ts';
import type { Gate, GateMeasurement, GateRun } from '../rollout/checkTypes.ts';
import type { Command, IntOrPercent, ReleaseState, ReleaseWindow, RolloutKey, RolloutSpec, TemplateChange, WorkloadKind } from '../rollout/types.ts';
import type { LabelSelector } from './labels.ts';

// ---- The FleetRollout, validated (parse.ts) ----------------------------------------------------

/** The workload every member cluster has under the same namespace, kind and name. */
export interface FleetWorkload {
  namespace: string;
  /** The product's kind (shared/rollout/workloadKinds.ts) and the apiVersion it is written in. */
  kind: WorkloadKind;
  apiVersion: string;
  name: string;
}

/** How a wave picks its clusters among those no earlier wave took. */
export type WavePick =
  | { type: 'selector'; selector: LabelSelector }
  | { type: 'count'; count: number }
  /** 1..100: ceil(percent × the clusters left), at least one. */
  | { type: 'percent'; percent: number }
  /** Every cluster left (a wave with neither selector, count nor percent). */
  | { type: 'rest' };

export interface AfterWave {
  /** Soak time counted from the moment every member of the wave was done; 0 = none. */
  bakeSeconds: number;
  /** A person must run `rollouts fleet approve` before the next wave opens. */
  approval: boolean;
  /** The same gates a step has (shared/rollout/checkTypes.ts), checked from the same moment as the bake. */
  gates: Gate[];
}

export interface WaveSpec {
  name: string;
  pick: WavePick;
  /** Members releasing at once; a percent of the wave's members, rounded down, at least 1. */
  maxConcurrency: IntOrPercent;
  /** Members are opened in the ascending order of this label (as integers when every value is one), then by name. */
  sortingLabelKey: string | null;
  after: AfterWave;
}

/** A window of the per-cluster policy; `timeZone` null = each member cluster's own zone. */
export type FleetWindow = Omit<ReleaseWindow, 'timeZone'> & { timeZone: string | null };

/**
 * The member Rollouts' spec, exactly as parseRollout validated it, minus what each member gets from
 * its cluster: the key (cluster, namespace, name) and the windows (their zone may be the member's).
 */
export type MemberPolicy = Omit<RolloutSpec, 'cluster' | 'namespace' | 'name' | 'windows' | 'fleet'>;

/** A validated, normalised FleetRollout. Produced only by parseFleetRollout. */
export interface FleetSpec {
  apiVersion: string;
  name: string;
  workload: FleetWorkload;
  clusterSelector: LabelSelector;
  member: MemberPolicy;
  windows: FleetWindow[];
  waves: WaveSpec[];
  /** Members allowed to fail before the fleet release halts (a percent of its members, rounded down). */
  maxFailures: IntOrPercent;
  /** When it halts, every member already released or releasing goes back to its stable revision. */
  rollbackOnFailure: boolean;
  /** A member whose cluster stays unreachable this long (while its turn is due or running) counts as failed. */
  unreachableDeadlineSeconds: number;
}

// ---- Fleet state (persisted on the fleet's STATE item) ----------------------------------------

export const FLEET_PHASES = ['Idle', 'Progressing', 'Paused', 'Halted', 'RollingBack', 'Completed', 'RolledBack', 'Aborted'] as const;
export type FleetPhase = (typeof FLEET_PHASES)[number];

/**
 * A member's place in a fleet release. Waiting: its turn has not come (or is blocked); Permitted:
 * the permit went out, the member has not started under it yet; Releasing; Completed, NoChange (the
 * fleet's change was already its template), Skipped (`rollouts fleet skip`), Failed: done for the
 * wave; RollingBack / RolledBack after a revoke; Left: deregistered or no longer selected.
 */
export const MEMBER_STATUSES = ['Waiting', 'Permitted', 'Releasing', 'Completed', 'NoChange', 'Skipped', 'Failed', 'RollingBack', 'RolledBack', 'Left'] as const;
export type MemberStatus = (typeof MEMBER_STATUSES)[number];

export interface MemberRun {
  cluster: string;
  /** How it came to be in its wave: its labels, its rank among the clusters left, or no wave selected it. */
  placedBy: 'selector' | 'order' | 'last-wave';
  /** It joined once its wave had finished releasing: it runs on its own, at once, and holds no wave. */
  late: boolean;
  status: MemberStatus;
  /** The permits sent (their ids end with the count), the last one's id, and when it went out. */
  permits: number;
  permitId: string | null;
  permittedAt: string | null;
  /** The revision the last permit named (a held template), null when it carried the fleet's change. */
  revision: string | null;
  endedAt: string | null;
  /** A revoke went out (the fleet release is rolling back). */
  revoked: boolean;
  /** The fleet's pause reached it; the fleet's resume resumes it. */
  pausedByFleet: boolean;
  /** Since when its cluster is unreachable while its turn is due (as its own reconcile recorded it). */
  unreachableSince: string | null;
  /** Why it is where it is, in its own words (the member's reason), or why it left. */
  note: string;
  /** The member's own cause when it names one. */
  cause: Cause | null;
}

export const WAVE_STATES = ['Pending', 'Releasing', 'AfterWave', 'Completed'] as const;
export type WaveState = (typeof WAVE_STATES)[number];

export interface WaveRun {
  /** The wave's spec when the fleet release started: a FleetRollout applied meanwhile changes the next one. */
  spec: WaveSpec;
  state: WaveState;
  startedAt: string | null;
  /** Every member done: the bake and the gates count from here. */
  membersDoneAt: string | null;
  gates: GateRun[] | null;
  approvedBy: string | null;
  completedAt: string | null;
  members: MemberRun[];
}

export const FLEET_RELEASE_STATES = ['Progressing', 'Halted', 'RollingBack', 'Completed', 'RolledBack', 'Aborted', 'Superseded'] as const;
export type FleetReleaseState = (typeof FLEET_RELEASE_STATES)[number];

export interface FleetRelease {
  /** `f<n>`: names it to people and in history. */
  id: string;
  /**
   * What members' permits and results name: `f<n>@<start instant>`, so a fleet deleted and applied
   * again never mistakes a member's result for an older incarnation's `f<n>` for its own.
   */
  ref: string;
  /** The change `rollouts fleet release --image` asked for; null: each member releases the template it holds (a GitOps sync). */
  change: TemplateChange | null;
  /** The images this release brings, when known: the change's, or those of the template that started it. */
  images: Record<string, string> | null;
  /**
   * A release of held templates: the images the member whose template started it ran before. When
   * `images` differ from them, a member already running `images` has nothing to release.
   */
  fromImages: Record<string, string> | null;
  requestedBy: string | null;
  startedAt: string;
  state: FleetReleaseState;
  /** Why it halted, rolled back or was superseded. */
  endReason: string | null;
  /** Who aborted it (`rollouts fleet abort`); null when it rolls back after a failure. */
  abortedBy: string | null;
  endedAt: string | null;
  waves: WaveRun[];
  /** Commands sent to members for the fleet's pauses and resumes, counted for their ids. */
  pauseSeq: number;
}

export interface FleetState {
  phase: FleetPhase;
  /** One line naming what the fleet waits on: the wave, the cluster, the member's own reason. */
  message: string;
  cause: FleetCause | null;
  release: FleetRelease | null;
  lastRelease: FleetRelease | null;
  releaseSeq: number;
  userPaused: boolean;
  commands: FleetCommand[];
  appliedCommandIds: string[];
  specVersion: number;
  nextWakeAt: string | null;
}

// ---- Why a fleet waits ------------------------------------------------------------------------

export const FLEET_CAUSE_KINDS = [
  'Member', 'MemberMissing', 'ClusterUnreachable', 'Window', 'AwaitingChange', 'NotMatching', 'Concurrency',
  'Bake', 'Gate', 'Approval', 'Paused', 'Halted', 'NoClusters',
] as const;
export type FleetCauseKind = (typeof FLEET_CAUSE_KINDS)[number];

export interface FleetCause {
  kind: FleetCauseKind;
  /** The wave it concerns, when one does. */
  wave: string | null;
  /** The member cluster it concerns, when one does. */
  cluster: string | null;
  detail: string;
  since: string | null;
  until: string | null;
  /** The member's own cause (its pod, gate, window, approval), when the blocker is a member. */
  member: Cause | null;
}

// ---- Commands ---------------------------------------------------------------------------------

export type FleetCommandBody =
  /** No change: release what the members hold (a template changed everywhere by a GitOps sync). */
  | { type: 'release'; change?: TemplateChange }
  | { type: 'approve'; wave?: string; releaseId?: string }
  | { type: 'pause' }
  | { type: 'resume' }
  | { type: 'abort' }
  /** The member has nothing to release in this fleet release (its template will not change). */
  | { type: 'skip'; cluster: string };

export type FleetCommand = FleetCommandBody & { id: string; at: string; by: string };

// ---- What a fleet pass reads and decides ------------------------------------------------------

/** A member as its own reconcile last persisted it: its STATE (null when it has none yet). */
export interface MemberObservation {
  cluster: string;
  state: ReleaseState | null;
}

export interface MemberCommand {
  member: RolloutKey;
  command: Command;
}

/** What an after-wave gate call tells its target (the JSON body of http and lambda gates). */
export interface FleetCallContext {
  fleet: { name: string };
  releaseId: string;
  wave: string;
  /** 1-based. */
  waveNumber: number;
  clusters: string[];
}

export type FleetInvocation = { type: 'check-gate'; gate: Gate; context: FleetCallContext };

/** What an after-wave gate check answered (the pipeline records it with recordFleetResults). */
export type FleetInvocationResult = { type: 'check-gate'; gate: string; wave: string; measurement: GateMeasurement; at: string };

export interface FleetEvent {
  /** EventBridge detail-type, e.g. "Fleet Wave Started". */
  type: string;
  fleet: { name: string };
  releaseId: string | null;
  phase: FleetPhase;
  wave: string | null;
  cluster: string | null;
  message: string;
  at: string;
  by: string | null;
  /** The fleet's one-line reason after this pass (FleetState.message). */
  reason: string;
  cause: FleetCause | null;
  commandId?: string | null;
}

export interface FleetPlanResult {
  /** Commands for member Rollouts: persisted with the fleet's STATE (outbox), then recorded on each member. */
  memberCommands: MemberCommand[];
  /** The member Rollouts that should exist, as their SPEC should be (what `apply` of the fleet writes). */
  members: RolloutSpec[];
  /** After-wave gate checks due now; the pipeline makes them and records the results (recordFleetResults). */
  invocations: FleetInvocation[];
  nextState: FleetState;
  wakeAt: string | null;
  events: FleetEvent[];
}

/** What holds one member back from starting, for the fleet's reason (waves.ts). */
export interface MemberBlocker {
  kind: FleetCauseKind;
  text: string;
  until: string | null;
}
