// Ports of the reconcile pipeline. Adapters implement them (DynamoDB, Kubernetes, EventBridge,
// SQS, local); in-memory fakes for unit tests live under test/support.
// The ports the pipeline shares with the workload drivers (the cluster, the clock) live in neutral
// modules (shared/kube/cluster.ts, shared/clock.ts) and are re-exported here for the pipeline's users.
import type { KubeObject, KubeWrite, ObjectRef } from '../kube/types.ts';
import type { ClusterPlacement } from '../fleet/clusters.ts';
import type { Cause } from '../rollout/cause.ts';
import type { Invocation, InvocationResult } from '../rollout/checkTypes.ts';
import type { Command, ReleaseState, RolloutEvent, RolloutKey, RolloutSpec } from '../rollout/types.ts';

export type { Clock } from '../clock.ts';
export type { ClusterClient, ClusterProvider } from '../kube/cluster.ts';

// ---- State store (DynamoDB single table) ------------------------------------------------------

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
  /** Keys whose nextWakeAt <= now, from the sparse due-GSI. */
  queryDue(now: Date, limit?: number): Promise<RolloutKey[]>;
  /**
   * Keys of the rollouts (every one with a SPEC) whose resync instant, once per `periodMs`, falls
   * in the window (from, to], from their permanent resync entries in the due-GSI.
   */
  queryResync(from: Date, to: Date, periodMs: number): Promise<RolloutKey[]>;
  putCluster(reg: ClusterRegistration): Promise<void>;
  getCluster(name: string): Promise<ClusterRegistration | null>;
  listClusters(): Promise<ClusterRegistration[]>;
}

// ---- Hook and gate calls ----------------------------------------------------------------------

/**
 * Makes the hook and gate calls a plan asked for (shared/adapters/checks/runner.ts) and answers
 * each with its outcome; never throws for a call that fails (that is an outcome).
 */
export interface CallRunner {
  run(cluster: string, namespace: string, calls: readonly Invocation[]): Promise<InvocationResult[]>;
}

// ---- Events and queue -------------------------------------------------------------------------

export interface EventPublisher {
  publish(events: RolloutEvent[]): Promise<void>;
}

export interface ReconcileQueue {
  /** Ask for a reconcile of `key`, optionally after a delay; duplicates within the dedup window collapse. */
  enqueue(key: RolloutKey, opts?: { delaySeconds?: number; reason?: string }): Promise<void>;
}

export type { KubeObject, KubeWrite, ObjectRef };
