// One SQS batch for the reconcile function: records are grouped by rollout key and each key is
// reconciled once (reconcile is level-based: three "look again" messages need one look), keys in
// parallel up to a small limit, never one key twice at once. A key that throws fails all of its
// records (reported as batch item failures, so SQS redelivers exactly those); other keys' records
// succeed. A body that names no rollout can never succeed and is dropped (logged), not retried.
// After each pass, the follow-ups it needs: a delayed re-run while pods move, and its wake-up
// (see followUp). After the batch, when some pass moved pods, the on-demand watcher is made sure
// of (watcherDemand.ts).
import pMap from 'p-map';
import { decodeTriggerBody, triggerOf, type DecodedTrigger, type Trigger } from '../adapters/sqs/messages.ts';
import { MAX_DELAY_SECONDS } from '../adapters/sqs/reconcileQueue.ts';
import type { WakeScheduler } from '../ports.ts';
import { ensureWatcher, type WatcherDemandDeps } from '../watch/watcherDemand.ts';
import type { Log } from '../ports.ts';
import type { Clock, ReconcileQueue } from '../ports.ts';
import type { ReconcileResult } from '../reconcile/reconcile.ts';
import { runsAskedFor } from '../reconcile/runAgain.ts';
import { queueKeyString, type QueueKey } from '../fleet/key.ts';

export interface BatchRecord {
  messageId: string;
  body: string;
  /** SQS's ApproximateReceiveCount: above 1, an earlier attempt failed (or died) with this message. */
  receiveCount?: number;
}

export interface ReconcileBatchDeps {
  run(key: QueueKey, trigger: Trigger): Promise<ReconcileResult>;
  /** Where re-runs go (delayed, so the standard trigger queue). */
  queue: ReconcileQueue;
  clock: Clock;
  log: Log;
  /** Keys reconciled at the same time (default 4). */
  concurrency?: number;
  /** One-off schedules for wake-ups beyond SQS's delay; without it those are left to the sweep. */
  wakeups?: WakeScheduler;
  /** The on-demand watch-proxy; absent when watches are scheduled or off. */
  watcher?: WatcherDemandDeps;
}

export interface KeyOutcome {
  key: QueueKey;
  messageIds: string[];
  result: ReconcileResult | null;
  error: unknown;
}

export interface BatchOutcome {
  keys: KeyOutcome[];
  /** Message ids to report as batchItemFailures. */
  failures: string[];
  /** Records whose body named no rollout (dropped). */
  invalid: number;
}

export async function reconcileBatch(records: readonly BatchRecord[], deps: ReconcileBatchDeps): Promise<BatchOutcome> {
  const groups = new Map<string, { key: QueueKey; triggers: DecodedTrigger[]; messageIds: string[]; redelivered: boolean }>();
  let invalid = 0;
  for (const record of records) {
    const decoded = decodeTriggerBody(record.body);
    if (!decoded) {
      invalid += 1;
      deps.log.error('dropping a message that names no rollout', { messageId: record.messageId, body: record.body.slice(0, 200) });
      continue;
    }
    const id = queueKeyString(decoded.key);
    const group = groups.get(id) ?? { key: decoded.key, triggers: [], messageIds: [], redelivered: false };
    group.triggers.push(decoded);
    group.messageIds.push(record.messageId);
    if ((record.receiveCount ?? 1) > 1) group.redelivered = true;
    groups.set(id, group);
  }

  const outcomes = await pMap([...groups.values()], async (g): Promise<KeyOutcome> => {
    const trigger = triggerOf(g.triggers);
    try {
      const result = await deps.run(g.key, trigger);
      await followUp(g.key, result, g.redelivered, deps);
      deps.log.info('reconciled', { rollout: queueKeyString(g.key), trigger, outcome: result.outcome, phase: result.phase, requeueSeconds: result.requeueSeconds, messages: g.messageIds.length });
      return { key: g.key, messageIds: g.messageIds, result, error: null };
    } catch (error) {
      deps.log.error('reconcile failed; the messages will be redelivered', { rollout: queueKeyString(g.key), error: describe(error) });
      return { key: g.key, messageIds: g.messageIds, result: null, error };
    }
  }, { concurrency: deps.concurrency ?? 4 });
  // A pass that asks to run again is moving pods (or lost a race): a watcher makes the next batch
  // start within a second of the pods being ready. Best effort: the re-run is already queued.
  if (deps.watcher && outcomes.some((o) => o.result?.requeueSeconds != null)) {
    try {
      const watcher = await ensureWatcher(deps.watcher);
      if (watcher === 'launched') deps.log.info('watcher launched: pods are moving');
    } catch (error) {
      deps.log.warn('could not make sure a watcher runs; releases move on their re-runs', { error: describe(error) });
    }
  }
  return { keys: outcomes, failures: outcomes.filter((o) => o.error !== null).flatMap((o) => o.messageIds), invalid };
}

/**
 * What the pass asked for (runAgain.ts), sent before its messages are acknowledged (a failure here
 * fails them, and SQS delivers them again):
 *  - its requeue ("again in n s": pods moving, a lost race): a delayed message;
 *  - its wake-up (a timed pause's end, a window opening), when this pass set or moved it: a delayed
 *    message within SQS's 15 minutes, a one-off Scheduler schedule beyond. Not on every pass: the
 *    many no-op passes of a long pause would each add a message, and each message a pass. But
 *    also when a message comes back (redelivered): the attempt that set the wake-up may have
 *    persisted it and died before sending it, and its no-op retry would otherwise leave it to the
 *    one-minute sweep. Schedules are idempotent, and a duplicate delayed message costs one no-op pass.
 *  - the superseded wake-up's schedule, when the wake-up moved, is deleted.
 */
async function followUp(key: QueueKey, result: ReconcileResult, redelivered: boolean, deps: ReconcileBatchDeps): Promise<void> {
  const now = deps.clock.now();
  const moved = result.outcome === 'progressed' && result.wakeAt !== result.previousWakeAt;
  for (const ask of runsAskedFor(result, now)) {
    if (ask.reason === 'requeue') {
      await deps.queue.enqueue(key, { delaySeconds: Math.max(1, Math.ceil(ask.afterSeconds)), reason: ask.reason });
    } else if (moved || redelivered) {
      const inSeconds = Math.ceil(ask.afterSeconds);
      if (inSeconds <= MAX_DELAY_SECONDS) await deps.queue.enqueue(key, { delaySeconds: Math.max(1, inSeconds), reason: ask.reason });
      else await deps.wakeups?.schedule(key, new Date(Date.parse(result.wakeAt as string)));
    }
  }
  if (moved && result.previousWakeAt !== null && deps.wakeups) {
    const previous = Date.parse(result.previousWakeAt);
    // Only a wake-up still more than 15 minutes away now was certainly given a schedule.
    if (!Number.isNaN(previous) && previous - now.getTime() > MAX_DELAY_SECONDS * 1000) await deps.wakeups.cancel(key, new Date(previous));
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
