// Ports of the watch-proxy: where watch events come from (one cluster's watch API) and where the
// coalesced "this rollout's workload changed" notices go (EventBridge, or local mode's queue).
import type { WatchSource } from '../kube/watch.ts';
import type { RolloutKey } from '../rollout/types.ts';

export type { WatchSource };

/** EventBridge detail-type of the notices; the rule routing them to the trigger queue matches the source. */
export const WORKLOAD_CHANGED = 'Workload Changed';

/** Detail of a "Workload Changed" event. */
export interface WorkloadChange extends RolloutKey {
  /** Why, deduplicated, e.g. "Deployment web MODIFIED", "ReplicaSet web-5d4f MODIFIED", "resync". */
  reasons: string[];
}

export interface WatchSink {
  send(changes: WorkloadChange[]): Promise<void>;
}

/** Reaches a cluster's watch API by registered name. */
export interface WatchClusters {
  source(cluster: string): Promise<WatchSource>;
  /** Forget cached credentials/connection after a 401 (optional). */
  invalidate?(cluster: string): void;
}
