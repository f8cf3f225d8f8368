// Why a rollout is where it is: the structured half of its one-line reason (ReleaseState.message).
// The planner composes both from the state and the driver's view (reasons.ts); the CLI, the API,
// history, events and the dashboard show them as stored, so every surface names the same blocker.
// Pure data; the event schema (eventSchema.ts) publishes the same shape.

/**
 * What a waiting or failed state waits on. Pod-level kinds come from the driver's view (blockers);
 * the others from the release itself. `Gate`: a step's gate (`object` gate/<name>, `detail` its
 * last value); `Hook`: a pod hook (`object` the pod, `detail` the hook's state and its last output);
 * `Fleet`: a fleet member's release waiting for its fleet's permit (`object` fleet/<name>); `Traffic`:
 * a step waiting on its router (`object` httproute/<name> or ingress/<name>, `detail` what it waits for).
 */
export const CAUSE_KINDS = [
  'PodNotReady', 'PodUnschedulable', 'ReplicaFailure', 'Budget', 'PodsMoving', 'Handover',
  'Approval', 'TimedPause', 'Window', 'ScheduledStart', 'Gate', 'Hook', 'Paused', 'Failed',
  'Contract', 'WorkloadMissing', 'ClusterUnreachable', 'Deleting', 'WorkloadPaused', 'ManualDeletion', 'CannotProceed', 'Fleet',
  'Traffic',
] as const;
export type CauseKind = (typeof CAUSE_KINDS)[number];

export interface Cause {
  kind: CauseKind;
  /** What blocks, kubectl-style: "pod/web-7d9f-abc12", "deployment/web", "step/2", "cluster/prod"; null when nothing in particular. */
  object: string | null;
  /** For a broken contract, the field or annotation at fault ("metadata.annotations[rollouts.kruise.io/original-max-surge]"), else null. */
  field: string | null;
  /** The blocker's own words: "ImagePullBackOff (Back-off pulling image …)", the scheduler's message, "maxSurge 1, maxUnavailable 0". */
  detail: string;
  /** When the blocker began (ISO), when known: the pod condition's transition, the approval request, the failure. */
  since: string | null;
  /** When it ends by itself (ISO): a timed pause's end, a window's opening, a scheduled start; null otherwise. */
  until: string | null;
}

/** Pod-level blocker kinds a driver reports. */
export type BlockerKind = 'PodNotReady' | 'PodUnschedulable' | 'ReplicaFailure';

/**
 * One thing in the workload that keeps pods from becoming Available, as a driver reads it from the
 * objects it observed (shared/workloads/common/blockers.ts builds them from pods and ReplicaSets).
 * Drivers fill these only when pods are not all Ready, so a healthy pass reads nothing more.
 */
export interface Blocker {
  kind: BlockerKind;
  /** "pod/web-7d9f-abc12", "replicaset/web-7d9f". */
  object: string;
  /** Revision id the object belongs to (WorkloadView.revisions[].id), or null when unknown. */
  revision: string | null;
  /** Kubernetes' reason: ImagePullBackOff, CrashLoopBackOff, Unschedulable, ContainersNotReady, FailedCreate… */
  reason: string;
  /** Kubernetes' message (kubelet, scheduler, controller), on one line; "" when there is none. */
  message: string;
  /** When this state began (ISO), from the object's own condition or creation time; null when unknown. */
  since: string | null;
  /**
   * An ordinary step of a pod's start (ContainerCreating, Running but not Ready yet, not scheduled
   * yet): named only once it has lasted a while, so a healthy batch's reason does not flicker.
   */
  transient: boolean;
}
