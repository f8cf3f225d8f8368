// The HTTP API's transport-independent request/response and dependencies. The Lambda Function URL
// handler and local mode's HTTP server both translate to and from these, so the routes, status codes
// and JSON bodies are defined once (shared/api/handleApiRequest.ts).
import type { FieldIssue } from '../errors.ts';
import type { Cause } from '../rollout/cause.ts';
import type { AuthorizationPolicy } from './authorization.ts';
import type { Clock, ClusterProvider, ClusterRegistration, HistoryEntry, ReconcileQueue, StateStore } from '../ports.ts';
import type { Command, Phase, ReleaseKind, ReleaseState, RolloutKey, RolloutSpec, StepState, WorkloadKind } from '../rollout/types.ts';

export interface ApiRequest {
  method: string;
  /** Path as sent (still percent-encoded), without the query string, e.g. "/v1/rollouts/prod/shop/web". */
  path: string;
  query: Record<string, string>;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** The raw body as text (base64 already decoded by the transport), or undefined. */
  body: string | undefined;
  /** Who is calling (IAM principal ARN, or the local user); recorded on commands. */
  principal: string;
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  /** JSON text. */
  body: string;
}

export interface ApiDeps {
  store: StateStore;
  queue: ReconcileQueue;
  /** Workload kinds with a driver; apply answers 422 for the others. */
  supportedKinds: readonly WorkloadKind[];
  /**
   * Local mode on a cluster whose admission policy would deny our Partition hand-back, acting as a
   * user who may not impersonate the product's identity (shared/local/identity.ts): why a Partition
   * Rollout is refused at apply. Absent/null: no such refusal.
   */
  partitionRefusal?: string | null;
  clock: Clock;
  /** Largest accepted body, in bytes (413 above). */
  maxBodyBytes: number;
  /** Deployed: a rollout's cluster must be registered first. */
  requireRegisteredCluster: boolean;
  /** The only cluster names this API serves (local mode: its one cluster); others are 404. Overrides the registry check. */
  clusterNames?: readonly string[];
  /**
   * Cluster access for live reads (the workload route; read-only, RBAC group serverless-rollouts-view
   * when deployed). The deployed API loads it lazily (shared/app/apiDeps.ts). Without it that route
   * answers 503.
   */
  clusters?: ClusterProvider;
  /** Who may do what where (deployed: ROLLOUTS_API_AUTHORIZATION); absent: every caller may do everything. */
  authorization?: AuthorizationPolicy;
  /** Command ids when the client sends none (default: crypto.randomUUID). */
  newId?: () => string;
  /** Unexpected failures (answered 500) go here so the transport can log them. */
  onError?: (err: unknown, req: ApiRequest) => void;
  /**
   * A rollout's SPEC was stored (new or changed). Local mode points it at the in-process watch
   * catalogue, which then watches the workload at once; deployed, the watch-proxy learns of it at
   * its next refresh and the enqueued reconcile covers the time until then.
   */
  onSpecStored?: (key: RolloutKey) => void;
}

// ---- Response bodies (the CLI codes against these) --------------------------------------------

export interface ErrorBody {
  error: { message: string; issues?: FieldIssue[] };
}

/** PUT /v1/rollouts/{c}/{ns}/{name}: 201 created, 200 updated or unchanged. */
export interface ApplyResponse {
  rollout: RolloutKey;
  specVersion: number;
  /** True when the stored document was already identical (nothing written). */
  unchanged: boolean;
  spec: RolloutSpec;
}

export interface StepSummary {
  /** 0-based, as `stepIndex` in commands; shown to people as index + 1. */
  index: number;
  total: number;
  state: StepState;
}

/** One entry of GET /v1/rollouts. */
export interface RolloutSummary {
  rollout: RolloutKey;
  workload: { kind: WorkloadKind; name: string };
  phase: Phase;
  /** Paused by `rollouts pause` or spec.strategy.paused (the views show such a release as Paused: shared/client/status.ts). */
  paused: boolean;
  /** The one-line reason (ReleaseState.message). */
  message: string;
  /** Its structured cause: what blocks, since and until when (shared/rollout/cause.ts). */
  cause: Cause | null;
  step: StepSummary | null;
  releaseId: string | null;
}

export interface ListResponse {
  rollouts: RolloutSummary[];
}

/** GET /v1/rollouts/{c}/{ns}/{name}. */
export interface GetResponse {
  rollout: RolloutKey;
  specVersion: number;
  spec: RolloutSpec;
  /** The document as applied. */
  document: unknown;
  state: ReleaseState;
  /** STATE version (0 before the first reconcile). */
  version: number;
}

/** GET .../status: what `rollouts status` polls. */
export interface StatusResponse {
  rollout: RolloutKey;
  phase: Phase;
  message: string;
  cause: Cause | null;
  step: StepSummary | null;
  release: { id: string; kind: ReleaseKind; stableRevision: string; targetRevision: string; startedAt: string; failure: string | null; finalizing: boolean } | null;
  lastRelease: { id: string; kind: ReleaseKind; endPhase: Phase } | null;
  /** The running release's id, else the last one's. */
  releaseId: string | null;
  revisions: { stable: string | null; target: string | null };
  paused: { user: boolean; spec: boolean };
  pendingCommands: { id: string; type: Command['type'] }[];
  removing: boolean;
  nextWakeAt: string | null;
  specVersion: number;
  version: number;
  /**
   * Nothing left to do: reconciled at least once, no release in flight, no command waiting, no
   * requested template change still to be picked up, not being deleted. With `phase` this is the CI verdict (Healthy/Completed = success).
   */
  settled: boolean;
}

/** GET .../history. */
export interface HistoryResponse {
  rollout: RolloutKey;
  history: HistoryEntry[];
}

/** POST .../{verb} and DELETE: 202 recorded, 200 duplicate. */
export interface CommandResponse {
  rollout: RolloutKey;
  commandId: string;
  duplicate: boolean;
  /** The command as recorded; absent for a duplicate. */
  command?: Command;
  /**
   * DELETE only: what handing the workload back leaves on it ("field: value" lines), read from the
   * live workload; null when this API cannot read the cluster or the workload is gone.
   */
  handBack?: { workload: string; restores: string[] } | null;
  /**
   * undo only: where it goes and how it moves, resolved against the live workload and the rollout's
   * completed revisions (shared/rollout/undo.ts); null when this API cannot read the cluster (the
   * reconciler decides then).
   */
  undo?: UndoPreview | null;
  /** True when the request was a dry run: the answer says what would happen, nothing was recorded. */
  dryRun?: boolean;
}

/** The revision an undo goes to, and how: every pod at once (it completed a release) or through the Rollout's steps. */
export interface UndoPreview {
  revision: number;
  images: Record<string, string>;
  move: 'all-at-once' | 'through-steps';
}

export interface ClusterResponse {
  cluster: ClusterRegistration;
}

/** DELETE /v1/clusters/<name>: deleted at once, or leaving while its rollouts hand their workloads back. */
export interface ClusterDeregisterResponse {
  cluster: string;
  /** True when the registration is gone; false while the rollouts in `handingBack` hand their workloads back. */
  deregistered: boolean;
  handingBack: RolloutKey[];
  leaving?: { since: string; by: string };
}

export interface ClusterListResponse {
  clusters: ClusterRegistration[];
}
