// The sweep: every scheduler tick, two kinds of rollout (and fleet: F#<name>, the same rules) are queued for reconcile, both read from
// the due-GSI, never by a scan:
//  - due: a wake-up has come (timed pause, window, deadline) or a release is active;
//  - resync: every managed rollout, Healthy ones included, whose turn in the resync period falls
//    in this tick's window (the informers' resync: a missed event costs latency, never a release;
//    docs/architecture.md). Windows of consecutive ticks join up, so each rollout comes round once per period.
// Queued on the FIFO queue with reason "sweep", whose deduplication id collapses a key swept twice
// in one second (a retried tick, or a key both due and resynced) into one message.
import type { BatchingQueue, Clock, StateStore } from '../ports.ts';
import { queueKeyString, type QueueKey } from '../fleet/key.ts';

export interface SweepDeps {
  store: Pick<StateStore, 'queryDue' | 'queryResync'>;
  queue: BatchingQueue;
  clock: Clock;
  /** Every managed rollout is reconciled at least this often. */
  resyncPeriodMs: number;
  /** Most-overdue first, at most this many due keys per tick; the rest stay due for the next tick. */
  limit?: number;
}

/** The stretch of time this tick stands for: (from, to]. The resync covers the phases it passed. */
export interface SweepWindow {
  from: Date;
  to: Date;
}

export interface SweepResult {
  due: number;
  /** Keys whose resync turn fell in the window (some may also be due). */
  resync: number;
  enqueued: number;
  /** True when `limit` cut the due list: more keys are due than one tick queues. */
  truncated: boolean;
}

export const DEFAULT_SWEEP_LIMIT = 2000;

export async function sweepDue(deps: SweepDeps, window: SweepWindow): Promise<SweepResult> {
  const limit = deps.limit ?? DEFAULT_SWEEP_LIMIT;
  // Resync keys are not limited: the window moves on, so a key cut here would wait a whole period.
  const [due, resync] = await Promise.all([
    deps.store.queryDue(deps.clock.now(), limit),
    deps.store.queryResync(window.from, window.to, deps.resyncPeriodMs),
  ]);
  const keys = new Map<string, QueueKey>();
  for (const key of [...due, ...resync]) keys.set(queueKeyString(key), key);
  const all = [...keys.values()];
  if (deps.queue.enqueueAll) await deps.queue.enqueueAll(all, { reason: 'sweep' });
  else for (const key of all) await deps.queue.enqueue(key, { reason: 'sweep' });
  return { due: due.length, resync: resync.length, enqueued: all.length, truncated: due.length >= limit };
}

/** The window of a tick at `to` when ticks come every `intervalMs` (the deployed schedule's rate). */
export function tickWindow(to: Date, intervalMs: number): SweepWindow {
  return { from: new Date(to.getTime() - intervalMs), to };
}
