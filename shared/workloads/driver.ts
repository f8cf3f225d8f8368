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

export interface WorkloadDriver {
  readonly kind: WorkloadKind;
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
   * What handing the workload back (a deleted Rollout) leaves on it, as "field: value" lines for
   * people, read from the workload alone. Optional.
   */
  handBackSummary?(workload: KubeObject): string[];
}
