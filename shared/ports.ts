// The ports: every interface through which the product's services reach the outside world. The
// services (shared/reconcile, shared/watch, shared/api) and the workload drivers are written against
// these; the adapters (shared/adapters, shared/clock.ts) implement them; the composition roots
// (shared/app, shared/local) wire one to the other. docs/architecture.md draws the layers; nothing
// here imports more than the core's types and the Kubernetes wire shapes.
//
// A queue key (QueueKey, shared/fleet/key.ts) is a rollout's or a fleet's (F#<name>): the queue, the
// wake-ups and the batch never look inside a key beyond queueKeyString.
import type { KubeObject, KubeWrite, ObjectRef } from './kube/types.ts';
import type { Cause } from './rollout/cause.ts';
import type { Invocation, InvocationResult } from './rollout/checkTypes.ts';
import type { Command, ReleaseState, RolloutEvent, RolloutKey, RolloutSpec } from './rollout/types.ts';
import type { ClusterPlacement } from './fleet/clusters.ts';
import type { QueueKey } from './fleet/key.ts';
import type { FleetCommand, FleetEvent, FleetSpec, FleetState, MemberCommand } from './fleet/types.ts';

export type { QueueKey } from './fleet/key.ts';

// ---- Clock --------------------------------------------------------------------------------------

/** The one way the product reads the time (shared/clock.ts is the wall clock; tests move their own). */
export interface Clock {
  now(): Date;
}

// ---- Log ----------------------------------------------------------------------------------------

/** Structured lines: Powertools' Logger in the Lambdas (shared/app/observability.ts), printed lines in local mode. */
export interface Log {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** A log that drops every line. */
export const SILENT_LOG: Log = Object.freeze({ info: () => {}, warn: () => {}, error: () => {} });

// ---- State store (DynamoDB single table) --------------------------------------------------------

export interface StoredSpec {
  spec: RolloutSpec;
  specVersion: number;
  /** The document as the user applied it (YAML/JSON parsed), returned by `get`. */
  document: unknown;
}

export interface HistoryEntry {
  releaseId: string;
  /** Deterministic sequence (derived from the STATE version that recorded it). */
  seq: number;
  at: string;
  type: string;
  phase: string;
  stepIndex: number | null;
  message: string;
  by: string | null;
  /** The rollout's one-line reason after the transition; absent on entries written before it existed. */
  reason?: string;
  cause?: Cause | null;
  /** The command that caused it, if one did. */
  commandId?: string | null;
  /** A fleet's entries: the wave and the member cluster it concerns, when one does. */
  wave?: string | null;
  cluster?: string | null;
}

/** Side effects recorded atomically with a STATE write, flushed after it (transactional outbox). */
export interface Outbox {
  history: HistoryEntry[];
  events: RolloutEvent[];
}

export interface StoredState {
  state: ReleaseState;
  /** Optimistic-concurrency version; 0 when no STATE item exists yet. */
  version: number;
  outbox: Outbox;
}

export interface LoadedRollout {
  spec: StoredSpec | null;
  state: StoredState;
}

// ---- Fleets (docs/fleet.md, "State model"): items under F#<name> in the same table -------------

export interface StoredFleetSpec {
  spec: FleetSpec;
  specVersion: number;
  /** The FleetRollout as the user applied it, returned by `fleet get`. */
  document: unknown;
}

/**
 * A fleet pass's side effects, recorded with its STATE and sent after it: history, events, and the
 * commands for its members (each recorded on its member once, by id, then the member enqueued).
 */
export interface FleetOutbox {
  history: HistoryEntry[];
  events: FleetEvent[];
  memberCommands: MemberCommand[];
}

export interface StoredFleetState {
  state: FleetState;
  /** 0 when no STATE item exists yet. */
  version: number;
  outbox: FleetOutbox;
}

export interface LoadedFleet {
  spec: StoredFleetSpec | null;
  state: StoredFleetState;
}

/** How to reach a cluster, and (ClusterPlacement) its labels and time zone for fleets (shared/fleet/clusters.ts). */
export interface ClusterRegistration extends ClusterPlacement {
  name: string;
  /** EKS cluster (endpoint and CA from DescribeCluster) … */
  eks?: { clusterName: string; region: string; roleArn?: string };
  /**
   * … or an endpoint with a bearer token in Secrets Manager (tokenSecretArn; local mode and tests
   * may configure tokens instead), read with roleArn when given (the cluster's account).
   */
  endpoint?: { server: string; caData?: string; tokenSecretArn?: string; roleArn?: string; insecureSkipTlsVerify?: boolean };
  /**
   * Set by a deregistration that had rollouts to hand back (shared/fleet/leave.ts): fleets no longer
   * select the cluster and no rollout may be applied to it, but it stays reachable until its last
   * rollout has handed its workload back; then the registration is deleted. A PUT clears it.
   */
  leaving?: { since: string; by: string };
}

export interface StateStore {
  /** SPEC + STATE of one rollout in one Query. */
  load(key: RolloutKey): Promise<LoadedRollout>;
  /** Conditional on the STATE version that was read; throws StaleStateError when someone else wrote first. */
  saveState(key: RolloutKey, next: { state: ReleaseState; outbox: Outbox }, expectedVersion: number): Promise<number>;
  /** Idempotent puts of history items (deterministic keys). */
  putHistory(key: RolloutKey, entries: HistoryEntry[]): Promise<void>;
  listHistory(key: RolloutKey): Promise<HistoryEntry[]>;
  /**
   * Put SPEC; conditional on the specVersion read (0 = must not exist). Returns the new specVersion.
   * It first claims the workload: throws WorkloadClaimedError (nothing written) when another rollout
   * manages it.
   */
  putSpec(key: RolloutKey, spec: RolloutSpec, document: unknown, expectedSpecVersion: number): Promise<number>;
  /** Deletes SPEC, STATE, history and the workload claim. */
  deleteRollout(key: RolloutKey): Promise<void>;
  listRollouts(filter?: { cluster?: string; namespace?: string }): Promise<RolloutKey[]>;
  /** Record a command on STATE once (a duplicate id is a no-op). */
  recordCommand(key: RolloutKey, command: Command): Promise<'recorded' | 'duplicate'>;
  /** Keys (rollouts and fleets) whose nextWakeAt <= now, from the sparse due-GSI. */
  queryDue(now: Date, limit?: number): Promise<QueueKey[]>;
  /**
   * Keys of the rollouts (every one with a SPEC) whose resync instant, once per `periodMs`, falls
   * in the window (from, to], from their permanent resync entries in the due-GSI.
   */
  queryResync(from: Date, to: Date, periodMs: number): Promise<QueueKey[]>;
  putCluster(reg: ClusterRegistration): Promise<void>;
  getCluster(name: string): Promise<ClusterRegistration | null>;
  listClusters(): Promise<ClusterRegistration[]>;
  /** Deletes a registration (a no-op when there is none). */
  deleteCluster(name: string): Promise<void>;

  /** SPEC + STATE of one fleet in one Query. */
  loadFleet(name: string): Promise<LoadedFleet>;
  /** Conditional on the STATE version read; StaleStateError when someone else wrote first. */
  saveFleetState(name: string, next: { state: FleetState; outbox: FleetOutbox }, expectedVersion: number): Promise<number>;
  /** Conditional on the specVersion read (0 = must not exist). Returns the new specVersion. */
  putFleetSpec(name: string, spec: FleetSpec, document: unknown, expectedSpecVersion: number): Promise<number>;
  /** Deletes the fleet's SPEC, STATE and history (its members are the fleet pass's to delete first). */
  deleteFleet(name: string): Promise<void>;
  /** Names of the fleets with a SPEC, sorted. */
  listFleets(): Promise<string[]>;
  recordFleetCommand(name: string, command: FleetCommand): Promise<'recorded' | 'duplicate'>;
  putFleetHistory(name: string, entries: HistoryEntry[]): Promise<void>;
  listFleetHistory(name: string): Promise<HistoryEntry[]>;
}

// ---- Clusters (Kubernetes) ----------------------------------------------------------------------

/** One cluster's API in the wire shapes of shared/kube/types.ts: what drivers observe and write through. */
export interface ClusterClient {
  /** One GET; null when the object does not exist. */
  get(ref: ObjectRef): Promise<KubeObject | null>;
  /** One LIST by label selector (e.g. "app=web,tier in (a,b)"). */
  list(apiVersion: string, kind: string, namespace: string, labelSelector: string): Promise<KubeObject[]>;
  /** Apply one write; throws ConflictError on 409, NotFoundError on 404. Returns the stored object. */
  write(write: KubeWrite): Promise<KubeObject | null>;
}

/** Resolves a registered cluster name to a client (EKS token, static endpoint, or local kubeconfig). */
export interface ClusterProvider {
  client(cluster: string): Promise<ClusterClient>;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface WatchQuery {
  /** Start after this version; omit to get synthetic ADDED events for everything that exists. */
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  labelSelector?: string;
  fieldSelector?: string;
  /** Server-side end of the watch; the server then closes it normally (onDone(null)). */
  timeoutSeconds?: number;
}

export type WatchEventHandler = (type: WatchEventType, object: KubeObject) => void;
/**
 * Called exactly once per opened watch (not when opening itself rejects). null: the watch ended
 * normally (server close, inactivity, stop()): re-watch from the last resourceVersion seen.
 */
export type WatchDoneHandler = (err: Error | null) => void;

export interface WatchHandle {
  stop(): void;
}

/** One cluster's watch API (KubeClusterClient.watch has this shape). */
export interface WatchSource {
  watch(path: string, query: WatchQuery, onEvent: WatchEventHandler, onDone: WatchDoneHandler): Promise<WatchHandle>;
  /** The collection's current resourceVersion (a one-item list), to watch from now without a replay. */
  listVersion?(path: string): Promise<string>;
}

/** Reaches a cluster's watch API by registered name. */
export interface WatchClusters {
  source(cluster: string): Promise<WatchSource>;
  /** Forget cached credentials/connection after a 401 (optional). */
  invalidate?(cluster: string): void;
}

// ---- Hook and gate calls ------------------------------------------------------------------------

/**
 * Makes the hook and gate calls a plan asked for (shared/adapters/checks/runner.ts) and answers
 * each with its outcome; never throws for a call that fails (that is an outcome).
 */
export interface CallRunner {
  run(cluster: string, namespace: string, calls: readonly Invocation[]): Promise<InvocationResult[]>;
}

// ---- Events -------------------------------------------------------------------------------------

/** Transitions, for people and rules (EventBridge deployed, printed lines in local mode). */
export interface EventPublisher {
  publish(events: RolloutEvent[]): Promise<void>;
  /** A fleet's transitions (detail-types "Fleet …", schemas/fleet-event.schema.json). */
  publishFleet(events: FleetEvent[]): Promise<void>;
}

/** Detail of a "Workload Changed" notice: a watched object of this rollout's workload changed. */
export interface WorkloadChange extends RolloutKey {
  /** Why, deduplicated, e.g. "Deployment web MODIFIED", "ReplicaSet web-5d4f MODIFIED", "resync". */
  reasons: string[];
}

/** Where the watch-proxy's coalesced notices go: the work queue (deployed: the FIFO queue, shared/watch/queueSink.ts; local mode: its keyed queue). */
export interface WatchSink {
  send(changes: WorkloadChange[]): Promise<void>;
}

// ---- Queue and wake-ups -------------------------------------------------------------------------

/** The workqueue (controller-runtime's, made of SQS deployed): one key is never reconciled twice at once. */
export interface ReconcileQueue {
  /** Ask for a reconcile of `key`, optionally after a delay; duplicates within the dedup window collapse. */
  enqueue(key: QueueKey, opts?: { delaySeconds?: number; reason?: string }): Promise<void>;
}

/** A queue that may also send many keys in few requests (SqsReconcileQueue does): the sweep's and the watch-proxy's. */
export interface BatchingQueue extends ReconcileQueue {
  /** One message per key and call: a key sent twice in one sweep tick is one message. */
  enqueueAll?(keys: QueueKey[], opts: { reason: string }): Promise<void>;
  /** One message per key, never taken for the duplicate of an earlier send (watch notices, with their causes). */
  enqueueEach?(items: { key: QueueKey; causes?: string[] }[], opts: { reason: string }): Promise<void>;
}

/**
 * What a pass asks of the queue besides events, in controller-runtime's terms (Result{RequeueAfter}):
 * run the key again after `afterSeconds` (shared/reconcile/runAgain.ts says when).
 */
export interface RunAgain {
  /** Seconds from the pass's end; 0 when already due. */
  afterSeconds: number;
  /** 'requeue': look again (pods moving, a lost race, a transient fault); 'wake': a persisted wake-up is due. */
  reason: 'requeue' | 'wake';
}

/** Schedules a reconcile of a key at an instant beyond the queue's own delays, and takes it back. */
export interface WakeScheduler {
  /** Idempotent: scheduling the same key and instant again changes nothing. */
  schedule(key: QueueKey, at: Date): Promise<void>;
  /** Removes the schedule of that key and instant if it still exists. */
  cancel(key: QueueKey, at: Date): Promise<void>;
}

// ---- The on-demand watcher (shared/watch/watcherDemand.ts) --------------------------------------

export interface WatcherLeaseView {
  /** 0 = nobody ever took it. */
  generation: number;
  /** When the holder's invocation ends (epoch ms). */
  until: number;
  /** The holder's last heartbeat (epoch ms). */
  seenAt: number;
  /** The last demand (epoch ms). */
  demandAt: number;
}

/** The one watcher lease (shared/adapters/dynamodb/watcherLease.ts); every read is strongly consistent. */
export interface WatcherLease {
  /** Records demand at `now` and returns the lease as it then stands. */
  demand(now: Date): Promise<WatcherLeaseView>;
  /** Takes the lease if its generation is still `seen`: the new generation, or null if another launcher was first. */
  claim(seen: number, now: Date, untilMs: number): Promise<number | null>;
  /** The holder's heartbeat; false once another generation holds the lease. */
  heartbeat(generation: number, now: Date): Promise<boolean>;
  /** Gives the lease up if `generation` holds it and no demand came after `demandAt`; true if given up. */
  release(generation: number, demandAt: number, now: Date): Promise<boolean>;
  read(): Promise<WatcherLeaseView>;
}

/** Starts one watch-proxy invocation holding `generation` (asynchronous Lambda invoke). */
export interface WatcherLauncher {
  launch(generation: number): Promise<void>;
}
