// Domain types of the rollout core. Pure data: no SDK, no I/O. Every other layer speaks these.
import type { Blocker, Cause } from './cause.ts';
import type { Gate, GateRun, HookRecord, Invocation, Lifecycle } from './checkTypes.ts';

import type { PodTemplateMetadataPatch, RollingStyle, StepTraffic, TrafficRouting, TrafficView } from './trafficTypes.ts';
import type { WorkloadKind } from './workloadKinds.ts';
import type { DeploymentStrategy } from './workloadType.ts';

export { WORKLOAD_KINDS, type WorkloadKind } from './workloadKinds.ts';

/** An int (absolute pods) or a percent string such as "50%", exactly as written in the Rollout. */
export type IntOrPercent = number | `${number}%`;

/** What happens after a step's batch is ready. Normalised from Kruise's `pause: {}` / `pause: {duration}`. */
export type StepPause =
  | { type: 'approval' }
  | { type: 'timed'; seconds: number }
  | { type: 'none' };

export interface Step {
  replicas: IntOrPercent;
  pause: StepPause;
  /** Checks that must pass once the batch is ready, before the pause and the next step (our apiVersion); absent = none. */
  gates?: Gate[];
  /** What the step asks of the router (steps[].traffic, matches, requestHeaderModifier); absent = the original routing. */
  traffic?: StepTraffic;
}

export const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** An allowed release window: on `days`, from `start` to `end` (HH:MM, end after start) in `timeZone` (IANA). */
export interface ReleaseWindow {
  days: Weekday[];
  start: string;
  end: string;
  timeZone: string;
}

export interface RolloutKey {
  cluster: string;
  namespace: string;
  name: string;
}

/**
 * The workload a Rollout manages. `kind` is the product's name for it (shared/rollout/workloadKinds.ts):
 * the Kubernetes kind for Deployment, StatefulSet, DaemonSet and CloneSet, and AdvancedStatefulSet /
 * AdvancedDaemonSet for Kruise's StatefulSet and DaemonSet, which the document names by apiVersion.
 */
export interface WorkloadRef {
  apiVersion: string;
  kind: WorkloadKind;
  name: string;
}

export { DEPLOYMENT_STRATEGIES, type DeploymentStrategy } from './workloadType.ts';
/**
 * Deployments are released with the MinReadySeconds strategy unless the Rollout asks for Partition:
 * it is the only one whose worst case while nothing reconciles is "Ready but not yet Available"
 * rather than an outage (README, "Deployment strategies").
 */
export const DEFAULT_DEPLOYMENT_STRATEGY: DeploymentStrategy = 'MinReadySeconds';

/**
 * Who deletes the old pods of a workload whose own updateStrategy is OnDelete (`spec.onDeletePolicy`
 * of our apiVersion). Automatic (the default): we delete each batch's pods within the workload's
 * budget, in the driver's order. Manual: we delete nothing; a batch is done once the user has
 * deleted enough pods and they came back Available on the new revision (seed 003's OnDelete).
 */
export const ON_DELETE_POLICIES = ['Automatic', 'Manual'] as const;
export type OnDeletePolicy = (typeof ON_DELETE_POLICIES)[number];

/** A validated, normalised Rollout. Produced only by `parseRollout` (spec.ts). */
export interface RolloutSpec extends RolloutKey {
  /** The apiVersion the document was written in (Kruise's or ours). */
  apiVersion: string;
  workloadRef: WorkloadRef;
  /** `strategy.paused`: freezes the whole rollout. */
  paused: boolean;
  steps: Step[];
  /** Kruise failureThreshold, measured on updated pods; null = 0 (every updated pod must be ready). */
  failureThreshold: IntOrPercent | null;
  /** Per-batch progress deadline in seconds; null = no deadline. */
  progressDeadlineSeconds: number | null;
  /** Return to the stable revision automatically when a batch fails. */
  rollbackOnFailure: boolean;
  /** Allowed release windows; empty = always allowed. */
  windows: ReleaseWindow[];
  /** A release does not start moving pods before this instant (ISO 8601), if set. */
  startAt: string | null;
  /** Deployments: the strategy a new release starts with; null for the other kinds. */
  deploymentStrategy: DeploymentStrategy | null;
  /** Kinds that can be OnDelete: who deletes their pods (default Automatic); null for the others. */
  onDeletePolicy: OnDeletePolicy | null;
  /** Pod hooks around each pod's replacement (our apiVersion); absent = none. */
  lifecycle?: Lifecycle;
  /** A pod not Ready on the new revision this long after it got there fails the release (seed 003 IsUpdateTimedOut); absent/null = no limit. */
  podUpdateTimeoutSeconds?: number | null;
  /**
   * Set only on the member Rollouts a FleetRollout derives (shared/fleet/member.ts), never from a
   * document: the member starts no release its fleet has not permitted (shared/rollout/fleetGate.ts).
   */
  fleet?: FleetMembership | null;
  /** Kruise's rolling style (shared/rollout/trafficTypes.ts); absent = InPlace. */
  rollingStyle?: RollingStyle;
  /** `trafficRoutings[0]`; absent = the release does not touch routing. */
  trafficRouting?: TrafficRouting;
  /** `patchPodTemplateMetadata` (CanaryWorkload only); absent = none. */
  patchPodTemplateMetadata?: PodTemplateMetadataPatch;
  /**
   * BlueGreen only: seconds between the new revision standing at full size, Available, and the old
   * revision being scaled down (Argo Rollouts' field, our apiVersion; shared/rollout/blueGreen.ts).
   */
  scaleDownDelaySeconds?: number;
}

/** The fleet a member Rollout belongs to, and the wave its cluster is in (named in its reason). */
export interface FleetMembership {
  name: string;
  wave: string | null;
}

/** A fleet's permission for a member to release: the permit command's id and the fleet release it serves. */
export interface Permit {
  id: string;
  fleet: string;
  /** The fleet release's ref (shared/fleet/types.ts FleetRelease.ref). */
  fleetRelease: string;
}

/**
 * What became of the last permit a member consumed; its fleet reads it. Applied: its change was
 * written to the template, the pass that sees it binds it; Bound: release `releaseId` runs under
 * it; NoChange: the change left the template as it was; Refused: the cluster refused the change;
 * Stale: the template it was for is no longer the one held; Revoked: taken back before it bound.
 */
export interface PermitRecord extends Permit {
  status: 'Applied' | 'Bound' | 'NoChange' | 'Refused' | 'Stale' | 'Revoked';
  releaseId: string | null;
  /** The images its change sets: the template it binds to must run them (an images change only). */
  images: Record<string, string> | null;
  reason: string | null;
  at: string;
}

// ---- Release state (persisted on the STATE item) ---------------------------------------------

export const PHASES = ['Healthy', 'Progressing', 'Paused', 'Completed', 'Aborted', 'Failed', 'Degraded'] as const;
export type Phase = (typeof PHASES)[number];

/**
 * Kruise step states, in order: Upgrading → Verifying → StepPaused → StepReady → next step; a step
 * with gates is Analyzing between Verifying and its pause; a step with traffic is TrafficRouting
 * between Verifying and its gates, once its batch is Available (shared/rollout/routing.ts).
 */
export const STEP_STATES = ['Upgrading', 'Verifying', 'TrafficRouting', 'Analyzing', 'StepPaused', 'StepReady'] as const;
export type StepState = (typeof STEP_STATES)[number];

/** Why pods are moving: a forward release, a return to stable (abort/failure), or an undo. */
export type ReleaseKind = 'release' | 'rollback' | 'undo';

export interface Release {
  /** Deterministic id: `r<seq>`; names history items. */
  id: string;
  kind: ReleaseKind;
  /** Revision running before the release began; where abort returns to. */
  stableRevision: string;
  /** Revision being rolled out. */
  targetRevision: string;
  /** 0-based index into spec.steps. A rollback/undo uses a single implicit 100% step. */
  stepIndex: number;
  stepState: StepState;
  /** When the current step started upgrading (ISO); the batch deadline counts from here. */
  stepStartedAt: string;
  /** When the current batch became ready (ISO); a timed pause counts from here. */
  stepReadyAt: string | null;
  /** BlueGreen: when the old revision may be scaled down (shared/rollout/blueGreen.ts); absent/null = not yet decided. */
  scaleDownAt?: string | null;
  /** Workload replicas the current batch was computed for; a change restarts the batch. */
  observedReplicas: number;
  startedAt: string;
  /**
   * The live pods already on the target revision when the release started (observed pod by pod:
   * hooks or a podUpdateTimeout); absent when pods were not observed then. Every other pod on the
   * target was brought by this release (hooks.ts broughtBy): decided by name and revision, never by
   * comparing a creationTimestamp (whole seconds) with startedAt (milliseconds).
   */
  podsAtStart?: string[];
  /** Do not move pods before this instant (scheduled release). */
  notBefore: string | null;
  /** Set after the last step: pods go to 100% of the target, then the workload is handed back. */
  finalizing: boolean;
  /** Why the release failed (deadline), while it waits for retry/abort; null when healthy. */
  failure: string | null;
  /** True while a closed release window or a scheduled start holds the release back. */
  gated: boolean;
  /** Phase to report when a rollback/undo release finishes (Aborted, Failed or Completed). */
  endPhase: Phase;
  /** False while a rollback/undo still has to put the target's template back on the workload. */
  templateSet: boolean;
  /**
   * The driver strategy this release started with (a Deployment's MinReadySeconds or Partition);
   * it keeps it to the end even if the spec changes. null for kinds with a single strategy.
   */
  strategy: DeploymentStrategy | null;
  /** Who asked for it (the `release` command's principal); null when the template changed outside our API (kubectl, GitOps). */
  requestedBy?: string | null;
  /** Pod hooks of this release by `<phase>/<pod>` (shared/rollout/hooks.ts); absent = none ran. */
  hooks?: Record<string, HookRecord>;
  /** The current step's gates while it is Analyzing (shared/rollout/gates.ts); absent/null otherwise. */
  gates?: GateRun[] | null;
  /**
   * Why the release failed when a gate, a hook or a pod's update timeout failed it: kept by the
   * rollback that follows, so the rollout still says why once it has rolled back. Absent otherwise.
   */
  failedBecause?: { message: string; cause: Cause } | null;
  /** A fleet member: the permit this release runs under (a rollback keeps its release's); absent/null = none. */
  permit?: Permit | null;
  /** The target revision's images when the release started (what a fleet compares across clusters). */
  images?: Record<string, string>;
}

export interface ReleaseState {
  phase: Phase;
  /** The one-line reason for the phase, naming what blocks (shown by the CLI, the API, the dashboard). */
  message: string;
  /** The structured half of the reason (cause.ts); null when nothing is waited on. Absent in STATE written before it existed. */
  cause?: Cause | null;
  release: Release | null;
  /** Last release that ended (for status/history after completion). */
  lastRelease: Release | null;
  /** The user's pause (command), independent of spec.strategy.paused. */
  userPaused: boolean;
  releaseSeq: number;
  /** Revision that is known-good on the cluster when no release is running. */
  stableRevision: string | null;
  /** Commands recorded by the API, not yet consumed by the planner. */
  commands: Command[];
  /** Ids of recently consumed commands (bounded), so a redelivered command applies once. */
  appliedCommandIds: string[];
  /** specVersion of the SPEC the state was last planned with. */
  specVersion: number;
  /** Next instant the planner wants to run (timed pause end, window opening, deadline). */
  nextWakeAt: string | null;
  /** `release --at`: the next release must not move pods before this instant. */
  scheduledStartAt: string | null;
  /** A delete was requested: the workload is being handed back before the rollout is forgotten. */
  removing: boolean;
  /** The principal of the `release` command whose template change the next release starts from. */
  requestedBy?: string | null;
  /**
   * Why the last release request failed before it could start (the cluster refused its template
   * change, with the apiserver's reason); cleared when the next release starts.
   */
  refusal?: string | null;
  /** A fleet member: the last permit it consumed and what came of it; absent/null = none. */
  permit?: PermitRecord | null;
  /**
   * The last routing we asked the router for (trafficKey) and when: the grace period counts from
   * there (Kruise's LastUpdateTime). Absent/null = none asked; a lost one is taken as "now" (a longer wait, never a shorter one).
   */
  traffic?: { key: string; since: string } | null;
  /** The images of the stable revision, when known (recorded at adoption and at each completion). */
  stableImages?: Record<string, string> | null;
  /**
   * The revisions that completed a release (or were adopted as running), newest last, bounded
   * (shared/rollout/undo.ts): where an undo goes, and whether it may move every pod at once.
   * Absent in STATE written before it existed (then the stable revision is the one known).
   */
  completedRevisions?: string[];
}

// ---- Commands (API verbs) ----------------------------------------------------------------------

export type TemplateChange =
  | { type: 'images'; images: Record<string, string> }
  /** A strategic-merge patch of the pod template (spec.template). */
  | { type: 'templatePatch'; patch: Record<string, unknown> }
  /**
   * The stored pod template of a retained revision, put back like a release's change (held, then
   * released through the steps): an undo to a revision that never completed a release (undo.ts).
   * Never sent by a client.
   */
  | { type: 'revision'; revision: string };

export type CommandBody =
  | {
    type: 'approve'; stepIndex?: number;
    /** The release the approval is for (the API records the one waiting when it accepts it). */
    releaseId?: string;
  }
  | { type: 'pause' }
  | { type: 'resume' }
  | { type: 'abort' }
  | { type: 'undo'; toRevision?: number }
  | {
    type: 'release'; change: TemplateChange; startAt?: string;
    /**
     * Set by the reconcile pipeline, never by the API: the cluster refused this change (the
     * apiserver's reason, or a container the live workload no longer has). The request then fails
     * and is consumed instead of being tried on every pass.
     */
    refusal?: string;
  }
  | { type: 'retry' }
  /** Stop managing the workload: hand it back to its native controller, then forget the rollout. */
  | { type: 'delete' }
  /**
   * Sent by a member's fleet only (shared/fleet): release now, with `change` (the fleet writes the
   * template) or the template the member holds, which must still be `revision`.
   */
  | {
    type: 'permit'; fleet: string; fleetRelease: string; change?: TemplateChange; revision?: string;
    /** As for `release`: set by the reconcile pipeline when the cluster refused the change. */
    refusal?: string;
  }
  /** Sent by a member's fleet only: return to the revision the member ran before fleet release `fleetRelease`. */
  | { type: 'revoke'; fleet: string; fleetRelease: string };

export type Command = CommandBody & {
  /** Client-supplied or API-generated idempotency id; a duplicate id applies once. */
  id: string;
  /** When the command was recorded (ISO). */
  at: string;
  /** Who issued it (IAM principal or local user). */
  by: string;
};

// ---- What the driver observed (pure view of the cluster) ---------------------------------------

export interface RevisionView {
  /** Opaque revision id (stable hash of the pod template). */
  id: string;
  /** Kubernetes revision number (deployment.kubernetes.io/revision), 0 if unknown. */
  number: number;
  /** container name → image, for display and undo. */
  images: Record<string, string>;
  /** Desired pods of this revision (spec.replicas of its ReplicaSet, or the partition equivalent). */
  desired: number;
  /** Pods that exist (status.replicas). */
  current: number;
  ready: number;
  available: number;
}

export interface WorkloadView {
  kind: WorkloadKind;
  exists: boolean;
  /** Desired replicas N of the workload (spec.replicas; desiredNumberScheduled for DaemonSets). */
  replicas: number;
  /** Revision of the workload's current pod template. */
  templateRevision: string;
  /**
   * container name → image of the current pod template, which the revisions may not list yet (a
   * held Deployment has no ReplicaSet for it); what a fleet compares across clusters. Absent = unknown.
   */
  templateImages?: Record<string, string>;
  /** All retained revisions, newest first. */
  revisions: RevisionView[];
  /** True when the workload cannot roll by itself (paused / partition held). */
  held: boolean;
  /** True when the workload controller has observed the latest spec (observedGeneration). */
  observed: boolean;
  /** True when the native controller reports the rollout of templateRevision complete. */
  nativeComplete: boolean;
  /** Resolved rolling-update budgets of the workload (what a native rollout would allow). */
  maxSurge: number;
  maxUnavailable: number;
  /** Contract violations that make the rollout Degraded (e.g. selector selects everything). */
  problems: string[];
  /**
   * The release strategy whose changes the workload carries right now (read from the workload
   * itself, so it survives a lost STATE); null when it carries none. While it is set the workload
   * must never run unheld.
   */
  strategy: DeploymentStrategy | null;
  /**
   * The next instant a pod that is Ready but not yet Available (minReadySeconds) becomes
   * Available, if no event will say so (ISO); the planner looks again then. null when none.
   */
  nextAvailableAt: string | null;
  /**
   * The live pods not on templateRevision, in the order this kind's batches replace them (each
   * driver's view documents its order): what a Manual OnDelete batch waits for the user to delete,
   * and where pod-level hooks go. [] when the driver lists no pods (a Deployment, mostly).
   */
  toReplace: string[];
  /**
   * Why the workload itself cannot move the batch right now, when it is not for lack of time (its
   * own updateStrategy paused, say); shown in the rollout's message. null when nothing blocks it.
   */
  blocked: string | null;
  /**
   * What keeps pods from becoming Available (pods not Ready with their waiting reason, unschedulable
   * pods, a ReplicaSet that cannot create pods), read only while pods are not all Ready; absent or
   * [] when nothing blocks or the driver names none. The planner composes the reason from them.
   */
  blockers?: Blocker[];
  /** The router and the Services, read only for a Rollout with trafficRoutings (trafficTypes.ts); absent otherwise. */
  traffic?: TrafficView;
  /**
   * The workload's live pods one by one (shared/workloads/common/podViews.ts), added by the
   * reconcile only when the Rollout has hooks or a podUpdateTimeout; absent otherwise.
   */
  pods?: PodView[];
}

/** One live pod as hooks and the per-pod update timeout see it. */
export interface PodView {
  name: string;
  /** Revision id of the pod (WorkloadView.revisions[].id), '' when unknown. */
  revision: string;
  /** Ready, and not in the middle of an in-place update. */
  ready: boolean;
  /** status.phase ("Pending", "Running"…). */
  phase: string;
  /** The pod's most recently changed condition that is not True, "Ready False (ContainersNotReady: …)"; null when none. */
  condition: string | null;
  /** Since when the pod runs (or is being brought to) its revision: its creation, or its in-place update's start (ISO). */
  since: string | null;
  /** Container names, in order: an exec hook runs in the first unless it names one. */
  containers: string[];
}

// ---- What the planner decides ------------------------------------------------------------------

/** Desired pods per revision; revisions not listed should have 0. */
export type Distribution = Record<string, number>;

export type Action =
  /** Keep the workload from rolling by itself (Deployment: spec.paused=true). */
  | { type: 'hold' }
  /** Hand the workload back to its native controller (restore strategy, unpause) so it records completion. */
  | { type: 'release-hold' }
  /** Change the workload's pod template (API-driven release, abort/undo back to a revision). */
  | { type: 'set-template'; change: TemplateChange }
  | { type: 'restore-template'; revision: string; strategy: DeploymentStrategy | null }
  /**
   * Move pods toward this distribution, honouring maxSurge/maxUnavailable; `target` is the revision
   * being rolled out, `strategy` the release's. `final`: the release's last move (finalizing), which
   * a driver may leave to the native controller by handing the workload back.
   */
  /**
   * Pod hooks: these old pods (their preUpdate succeeded) are the ones the next moves may replace,
   * in this order. A driver whose controller picks the pods itself steers it to them (a
   * Deployment's pod-deletion-cost); drivers whose order is fixed (ordinals) ignore it.
   */
  | { type: 'replace-first'; pods: string[] }
  /**
   * Traffic routing (shared/rollout/routing.ts, applied by shared/reconcile/traffic.ts): narrow the
   * stable Service to the stable pods and, with `canary`, point the `-canary` Service at the canary pods.
   */
  | { type: 'set-services'; label: string; stable: string; canary: string | null }
  /** Bring the router to a step's traffic, or with null back to the user's own routing. */
  | { type: 'set-traffic'; traffic: StepTraffic | null; reason: string }
  /** The stable Service's selector back exactly as it was, the canary Service deleted. */
  | { type: 'restore-services' }
  | {
    type: 'distribute'; target: string; distribution: Distribution; strategy: DeploymentStrategy | null; final: boolean;
    /** An OnDelete workload: whether the driver deletes the old pods (Automatic, also when absent) or the user does (Manual). */
    onDeletePolicy?: OnDeletePolicy;
    /** 'BlueGreen': `distribution[target]` new pods beside every pod of the old revision, none of which goes (shared/rollout/blueGreen.ts); absent = in place. */
    rollingStyle?: RollingStyle;
    /** CanaryWorkload: the spec's patchPodTemplateMetadata, for the canary workload's pod template; absent = none. */
    podMetadata?: PodTemplateMetadataPatch;
  };

export interface RolloutEvent {
  /** EventBridge detail-type, e.g. "Release Started", "Batch Ready", "Release Completed". */
  type: string;
  rollout: RolloutKey;
  releaseId: string | null;
  phase: Phase;
  stepIndex: number | null;
  message: string;
  at: string;
  /** Who caused it, when a command did (the API principal); null for the controller's own moves. */
  by: string | null;
  /** The rollout's one-line reason after this transition (ReleaseState.message). */
  reason: string;
  /** Its structured cause (ReleaseState.cause). */
  cause: Cause | null;
  /** The id of the command that caused it (each accepted command leaves exactly one such event). */
  commandId?: string | null;
}

export interface PlanResult {
  actions: Action[];
  /** Hook and gate calls due now (shared/rollout/checkTypes.ts); the reconcile makes them and plans again with the results. */
  invocations: Invocation[];
  nextState: ReleaseState;
  /** Persisted wake-up (ISO): timed pause end, window opening, deadline, scheduled start. */
  wakeAt: string | null;
  /** Ephemeral: run again after this many seconds even without events (pods are moving). */
  requeueSeconds: number | null;
  events: RolloutEvent[];
  /** The rollout was deleted and the workload handed back: the caller removes SPEC/STATE. */
  removed: boolean;
}
