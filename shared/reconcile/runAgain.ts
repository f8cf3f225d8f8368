// "Run again": what a reconcile pass asks of the queue besides events, in controller-runtime's terms
// (Result{RequeueAfter}). A pass asks twice at most: its requeue ("look again in n s": pods moving,
// a lost race, a transient fault) and its wake-up (the persisted instant a timed pause ends, a window
// opens, a batch deadline falls). runsAskedFor is the one rule both queues follow; only delivery
// differs. Local mode's keyed queue (shared/adapters/local/keyedQueue.ts) keeps the earliest pending
// run per key, so it takes every ask of every pass. The Lambda follow-up (shared/app/reconcileBatch.ts)
// sends each ask as an SQS message, so it sends a wake-up only when the pass set or moved it (or the
// message came back): a message per no-op pass of a long pause would each cost a pass.

import type { RunAgain } from '../ports.ts';

/** The pipeline's own requeues, in seconds (the planner names its own in shared/rollout). */
export const REQUEUE_SECONDS = Object.freeze({
  /** After a lost race (409 / stale version): look again almost at once. */
  lostRace: 1,
  /**
   * After a pass that wrote to the cluster and asked for nothing sooner: look at what the write did.
   * A native controller sees its own writes come back as watch events; we must not depend on that
   * (a watch may be down, or not yet know a rollout just applied), so the pass that changed the pod
   * template for a `release` command is followed by the pass that starts the release.
   */
  afterWrite: 1,
  /** After hook or gate outcomes were recorded: the pass that acts on them. */
  callsRecorded: 0.1,
  /** After a transient fault without a Retry-After hint. */
  transient: 2,
  /** Longest Retry-After a pass passes on as its requeue. */
  maxTransient: 60,
});

/** Every run a pass asks for, soonest first: its requeue and its wake-up, as delays from `now`. */
export function runsAskedFor(result: { requeueSeconds: number | null; wakeAt: string | null }, now: Date): RunAgain[] {
  const asks: RunAgain[] = [];
  const wake = result.wakeAt === null ? Number.NaN : Date.parse(result.wakeAt);
  if (!Number.isNaN(wake)) asks.push({ afterSeconds: Math.max(0, (wake - now.getTime()) / 1000), reason: 'wake' });
  if (result.requeueSeconds !== null) asks.push({ afterSeconds: result.requeueSeconds, reason: 'requeue' });
  // Stable: at the same instant the wake-up goes first (it names why).
  return asks.sort((a, b) => a.afterSeconds - b.afterSeconds);
}
