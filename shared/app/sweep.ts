// The sweep: every scheduler tick, the rollouts whose wake-up is due (sparse GSI, never a scan) are
// queued for reconcile. Queued on the FIFO queue with reason "sweep", whose deduplication id
// collapses a key swept twice in one second (a retried tick) into one message.
import type { Clock, ReconcileQueue, StateStore } from '../reconcile/ports.ts';
import type { RolloutKey } from '../rollout/types.ts';

/** A queue that may also send many keys in few requests (SqsReconcileQueue does). */
export interface BatchingQueue extends ReconcileQueue {
  enqueueAll?(keys: RolloutKey[], opts: { reason: string }): Promise<void>;
}

export interface SweepDeps {
  store: Pick<StateStore, 'queryDue'>;
  queue: BatchingQueue;
  clock: Clock;
  /** Most-overdue first, at most this many per tick; the rest stay due for the next tick. */
  limit?: number;
}

export interface SweepResult {
  due: number;
  enqueued: number;
  /** True when `limit` cut the list: more keys are due than one tick queues. */
  truncated: boolean;
}

export const DEFAULT_SWEEP_LIMIT = 2000;

export async function sweepDue(deps: SweepDeps): Promise<SweepResult> {
  const limit = deps.limit ?? DEFAULT_SWEEP_LIMIT;
  const keys = await deps.store.queryDue(deps.clock.now(), limit);
  if (deps.queue.enqueueAll) await deps.queue.enqueueAll(keys, { reason: 'sweep' });
  else for (const key of keys) await deps.queue.enqueue(key, { reason: 'sweep' });
  return { due: keys.length, enqueued: keys.length, truncated: keys.length >= limit };
}
