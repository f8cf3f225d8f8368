// One driver per workload kind behind this interface. `observe` is the only I/O (one GET of the
// workload, LISTs of its children by label selector); `view` and `writes` are pure, so they are
// unit-tested with exact expected patches and no cluster.
import type { KubeObject, KubeWrite } from '../kube/types.ts';
import type { ClusterClient } from '../reconcile/ports.ts';
import type { Action, WorkloadKind, WorkloadRef, WorkloadView } from '../rollout/types.ts';

export interface Observation {
  namespace: string;
  ref: WorkloadRef;
  /** null when the workload does not exist. */
  workload: KubeObject | null;
  /** Controller children: ReplicaSets (Deployment), ControllerRevisions (StatefulSet/DaemonSet). */
  children: KubeObject[];
  pods: KubeObject[];
  /** Objects read by name that are not (yet) the workload's, e.g. what holds the name of a child about to be created. */
  others?: KubeObject[];
  /**
   * When it was read, on the reconcile's clock: how long a pod has been Ready (minReadySeconds) is
   * judged against it. Absent: the wall clock.
   */
  now?: Date;
}

/**
 * One resource whose watch events may concern a workload of the driver's kind: the watch-proxy
 * (shared/watch/) watches it in every namespace with a rollout of that kind, and maps each event
 * through `workloadOf` to the rollouts managing that workload. Watch what the observation reads
 * and what changes when a batch progresses; nothing that multiplies events for no information.
 */
export interface WatchDeclaration {
  /** apiVersion of the watched objects, e.g. "apps/v1" or "v1". */
  readonly apiVersion: string;
  /** Their kind, for the reasons of the notices ("ReplicaSet web-5d4f MODIFIED"). */
  readonly kind: string;
  /** The plural resource name of the watch path, e.g. "replicasets". */
  readonly resource: string;
  /** Name of the workload (of the driver's kind) the object belongs to, or null when none. */
  workloadOf(obj: KubeObject): string | null;
}

export interface WorkloadDriver {
  readonly kind: WorkloadKind;
  /** What to watch so that a change of the workload or its progress reaches us at once. */
  readonly watches: readonly WatchDeclaration[];
  /** `now` (the reconcile's clock) is recorded on the observation. */
  observe(cluster: ClusterClient, namespace: string, ref: WorkloadRef, now?: Date): Promise<Observation>;
  view(obs: Observation): WorkloadView;
  /**
   * The next writes that move the cluster toward the planned actions, in order. Level-based: it is
   * called on every reconcile with fresh observations and returns only what is still missing, so an
   * already-converged cluster yields []. Each write carries the resourceVersion it was computed from.
   * `view` is this observation's view when the caller already has it (computed otherwise).
   */
  writes(obs: Observation, actions: Action[], view?: WorkloadView): KubeWrite[];
  /**
   * Why no Rollout can release this workload as it stands, checked when a Rollout is applied (the
   * API reads the workload once); [] when it can. Optional: kinds without such a rule omit it.
   */
  applyProblems?(workload: KubeObject): string[];
  /**
   * The pod template of the live workload, the one a release command changes (its containers are
   * what `release --image NAME=…` may name). The API checks commands against it before accepting them.
   */
  podTemplate(workload: KubeObject): Record<string, unknown>;
  /**
   * What handing the workload back (a deleted Rollout) leaves on it, as "field: value" lines for
   * people, read from the workload alone. Optional.
   */
  handBackSummary?(workload: KubeObject): string[];
}
