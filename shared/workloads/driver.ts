// One driver per workload kind behind this interface. `observe` is the only I/O (one GET of the
// workload, LISTs of its children by label selector); `view` and `writes` are pure, so they are
// unit-tested with exact expected patches and no cluster.
import type { FieldIssue } from '../errors.ts';
import type { KubeObject, KubeWrite } from '../kube/types.ts';
import type { ClusterClient } from '../ports.ts';
import type { Action, PodView, RolloutSpec, TemplateChange, WorkloadKind, WorkloadRef, WorkloadView } from '../rollout/types.ts';
import type { WorkloadType } from '../rollout/workloadType.ts';

/** The reason of every template-change write: the reconcile tells a refused release request by it. */
export const TEMPLATE_CHANGE_REASON = 'apply the requested pod template change';

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
  /** When it was read, on the caller's clock: how long a pod has been Ready (minReadySeconds) is judged against it. */
  now: Date;
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

export interface ObserveOptions {
  pods?: boolean;
}

export type KubeVerb = 'get' | 'list' | 'watch' | 'create' | 'patch' | 'delete';

/** Verbs on one resource (RBAC's apiGroups/resources/verbs), e.g. apps/statefulsets get,list,watch,patch. */
export interface ResourceAccess {
  /** "" for the core group. */
  readonly apiGroup: string;
  /** Plural resource name, or "resource/subresource". */
  readonly resource: string;
  readonly verbs: readonly KubeVerb[];
}

/**
 * The Kubernetes permissions a driver needs, exactly: infra/k8s/rollouts-rbac.yaml grants the union
 * over the registry and nothing else (test/unit/workloads/rbac.test.ts), and every integration test
 * runs as that role.
 */
export interface DriverRbac {
  /** What observe, the writes and the watches use (group serverless-rollouts). */
  readonly reconcile: readonly ResourceAccess[];
  /** What the API's read-only workload route reads through observe (group serverless-rollouts-view): get and list only. */
  readonly view: readonly ResourceAccess[];
  /**
   * What pod hooks add (ClusterRole serverless-rollouts-hooks): exec into pods, and whatever the
   * kind's steering writes. Bound per namespace, only where Rollouts use hooks.
   */
  readonly hooks?: readonly ResourceAccess[];
  /**
   * What a canary workload adds (ClusterRole serverless-rollouts-canary): creating and deleting a
   * workload of the kind beside the user's. Bound per namespace, only where Rollouts use it.
   */
  readonly canaryWorkload?: readonly ResourceAccess[];
}

/** What the driver does, in words for people: `rollouts plan --kind`, the README's table of kinds. */
export interface DriverSummary {
  /** What N is: "spec.replicas", "status.desiredNumberScheduled (pods on nodes)". */
  readonly counts: string;
  /** When a pod of the batch counts as done. */
  readonly readiness: string;
  /** How the workload is kept from rolling by itself. */
  readonly hold: string;
  /** How a batch moves pods. */
  readonly batch: string;
  /** What handing back restores. */
  readonly restore: string;
}

/** The pods of one revision and the object that holds it, for the API's revision → pods tree. */
export interface RevisionMembers {
  id: string;
  /** A ReplicaSet (Deployment) or ControllerRevision (the other kinds); null when none is left. */
  holder: KubeObject | null;
  pods: KubeObject[];
}

export interface WorkloadDriver<K extends WorkloadKind = WorkloadKind> {
  readonly kind: K;
  /**
   * Its identity and capabilities, all the rollout core may know of the kind (shared/rollout/
   * workloadType.ts): scripts/generate.ts gathers them into shared/rollout/workloadKinds.generated.ts.
   */
  readonly type: WorkloadType;
  /** The workload's own resource (its apiVersion and Kubernetes kind are the workloadRef's). */
  readonly workload: { readonly apiVersion: string; readonly kind: string; readonly resource: string };
  /**
   * The other objects observe reads (the revisions' holders, the pods), by kind and REST resource:
   * with `workload` and `watches`, every kind the Kubernetes client must know a path for
   * (shared/kube/resources.generated.ts, written by scripts/generate.ts).
   */
  readonly reads: readonly { readonly apiVersion: string; readonly kind: string; readonly resource: string }[];
  /** What to watch so that a change of the workload or its progress reaches us at once. */
  readonly watches: readonly WatchDeclaration[];
  readonly rbac: DriverRbac;
  readonly summary: DriverSummary;
  /**
   * `now` (the reconcile's clock) is recorded on the observation. `opts.pods`: list the pods even
   * when the counts do not need them (pod hooks, the per-pod update timeout); kinds that always
   * list them ignore it.
   */
  observe(cluster: ClusterClient, namespace: string, ref: WorkloadRef, now: Date, opts?: ObserveOptions): Promise<Observation>;
  view(obs: Observation): WorkloadView;
  /**
   * The next writes that move the cluster toward the planned actions, in order. Level-based: it is
   * called on every reconcile with fresh observations and returns only what is still missing, so an
   * already-converged cluster yields []. Each write carries the resourceVersion it was computed from.
   * `view` is this observation's view when the caller already has it (computed otherwise).
   */
  writes(obs: Observation, actions: Action[], view?: WorkloadView): KubeWrite[];
  /**
   * What must be checked on the live workload when this Rollout is applied: a function that says
   * why the Rollout cannot release the workload as it stands (each problem on the Rollout field it
   * concerns; [] when it can), or null when nothing is to be checked, so the API reads the workload
   * (once) only then. Optional: kinds without such a rule omit it.
   */
  applyCheck?(rollout: RolloutSpec): ((workload: KubeObject) => FieldIssue[]) | null;
  /**
   * The pod template of the live workload, the one a release command changes (its containers are
   * what `release --image NAME=…` may name). The API checks commands against it before accepting them.
   */
  podTemplate(workload: KubeObject): Record<string, unknown>;
  /**
   * The one write that applies a release command's template change to the live workload, with
   * reason TEMPLATE_CHANGE_REASON: what the set-template action writes, and what the API sends as a
   * server-side dry-run before it accepts the command.
   */
  templateChange(workload: KubeObject, change: TemplateChange): KubeWrite;
  /**
   * Whether a templatePatch (a strategic merge patch) can be applied to the kind: the apiserver
   * takes them for its built-in types only, so the API refuses one for a custom resource.
   */
  readonly acceptsTemplatePatch: boolean;
  /** The workload's live pods one by one, each under the revision the view counts it (pod hooks, the per-pod update timeout). */
  podViews(obs: Observation): PodView[];
  /**
   * What handing the workload back (a deleted Rollout) leaves on it, as "field: value" lines for
   * people, read from the workload alone. Optional.
   */
  handBackSummary?(workload: KubeObject): string[];
  /** The kind of object that holds each revision (ReplicaSet, ControllerRevision). */
  readonly revisionHolder: string;
  /**
   * The pod label whose value tells this kind's revisions apart, read from each revision's holder
   * (a ReplicaSet's pod-template-hash): what the traffic Services select on (shared/traffic/services.ts).
   * Absent: releases of this kind cannot route traffic yet.
   */
  readonly revisionLabel?: string;
  /** Revisions (newest first) with their holder and pods; pods are those of the observation. */
  revisionMembers(obs: Observation): RevisionMembers[];
}
