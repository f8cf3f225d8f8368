// One SQS batch for the reconcile function: records are grouped by rollout key and each key is
// reconciled once (reconcile is level-based: three "look again" messages need one look), keys in
// parallel up to a small limit, never one key twice at once. A key that throws fails all of its
// records (reported as batch item failures, so SQS redelivers exactly those); other keys' records
// succeed. A body that names no rollout can never succeed and is dropped (logged), not retried.
// After each pass, the follow-ups it needs: a delayed re-run while pods move, and its wake-up
// (see followUp). After the batch, when some pass moved pods, the on-demand watcher is made sure
// of (watcherDemand.ts).
import { decodeTriggerBody, type DecodedTrigger } from '../adapters/sqs/messages.ts';
import { MAX_DELAY_SECONDS } from '../adapters/sqs/reconcileQueue.ts';
import type { WakeScheduler } from '../adapters/scheduler/wakeSchedules.ts';
import { ensureWatcher, type WatcherDemandDeps } from './watcherDemand.ts';
import type { Clock, ReconcileQueue } from '../reconcile/ports.ts';
import type { ReconcileResult, Trigger } from '../reconcile/reconcile.ts';
import type { RolloutKey } from '../rollout/types.ts';
import { rolloutKeyString } from '../rollout/key.ts';

export interface BatchRecord {
  messageId: string;
  body: string;
  /** SQS's ApproximateReceiveCount: above 1, an earlier attempt failed (or died) with this message. */
  receiveCount?: number;
}

export interface BatchLog {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface ReconcileBatchDeps {
  run(key: RolloutKey, trigger: Trigger): Promise<ReconcileResult>;
  /** Where re-runs go (delayed, so the standard trigger queue). */
  queue: ReconcileQueue;
  clock: Clock;
  log: BatchLog;
  /** Keys reconciled at the same time (default 4). */
  concurrency?: number;
  /** One-off schedules for wake-ups beyond SQS's delay; without it those are left to the sweep. */
  wakeups?: WakeScheduler;
  /** The on-demand watch-proxy; absent when watches are scheduled or off. */
  watcher?: WatcherDemandDeps;
}

export interface KeyOutcome {
  key: RolloutKey;
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
  const groups = new Map<string, { key: RolloutKey; triggers: DecodedTrigger[]; messageIds: string[]; redelivered: boolean }>();
  let invalid = 0;
  for (const record of records) {
    const decoded = decodeTriggerBody(record.body);
    if (!decoded) {
      invalid += 1;
      deps.log.error('dropping a message that names no rollout', { messageId: record.messageId, body: record.body.slice(0, 200) });
      continue;
    }
    const id = rolloutKeyString(decoded.key);
    const group = groups.get(id) ?? { key: decoded.key, triggers: [], messageIds: [], redelivered: false };
    group.triggers.push(decoded);
    group.messageIds.push(record.messageId);
    if ((record.receiveCount ?? 1) > 1) group.redelivered = true;
    groups.set(id, group);
  }

  const outcomes = await mapLimit([...groups.values()], deps.concurrency ?? 4, async (g): Promise<KeyOutcome> => {
    try {
      const result = await deps.run(g.key, triggerOf(g.triggers));
      await followUp(g.key, result, g.redelivered, deps);
      deps.log.info('reconciled', { rollout: rolloutKeyString(g.key), outcome: result.outcome, phase: result.phase, requeueSeconds: result.requeueSeconds, messages: g.messageIds.length });
      return { key: g.key, messageIds: g.messageIds, result, error: null };
    } catch (error) {
      deps.log.error('reconcile failed; the messages will be redelivered', { rollout: rolloutKeyString(g.key), error: describe(error) });
      return { key: g.key, messageIds: g.messageIds, result: null, error };
    }
  });
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
 * What must happen after the pass, sent before its messages are acknowledged (a failure here fails
 * them, and SQS delivers them again):
 *  - "again in n s" (pods moving, a lost race): a delayed message;
 *  - a wake-up (a timed pause's end, a window opening) that this pass set or moved: a delayed
 *    message within SQS's 15 minutes, a one-off Scheduler schedule beyond. Not on every pass: the
 *    many no-op passes of a long pause would each add a message, and each message a pass. But
 *    also when a message comes back (redelivered): the attempt that set the wake-up may have
 *    persisted it and died before sending it, and its no-op retry would otherwise leave it to the
 *    one-minute sweep. Schedules are idempotent, and a duplicate delayed message costs one no-op pass.
 *  - the superseded wake-up's schedule, when the wake-up moved, is deleted.
 */
async function followUp(key: RolloutKey, result: ReconcileResult, redelivered: boolean, deps: ReconcileBatchDeps): Promise<void> {
  if (result.requeueSeconds !== null) {
    await deps.queue.enqueue(key, { delaySeconds: Math.max(1, Math.ceil(result.requeueSeconds)), reason: 'requeue' });
  }
  const now = deps.clock.now().getTime();
  const moved = result.outcome === 'progressed' && result.wakeAt !== result.previousWakeAt;
  if (result.wakeAt !== null && (moved || redelivered)) {
    const at = Date.parse(result.wakeAt);
    const inSeconds = Math.ceil((at - now) / 1000);
    if (Number.isNaN(inSeconds)) return;
    if (inSeconds <= MAX_DELAY_SECONDS) await deps.queue.enqueue(key, { delaySeconds: Math.max(1, inSeconds), reason: 'wake' });
    else await deps.wakeups?.schedule(key, new Date(at));
  }
  if (moved && result.previousWakeAt !== null && deps.wakeups) {
    const previous = Date.parse(result.previousWakeAt);
    // Only a wake-up still more than 15 minutes away now was certainly given a schedule.
    if (!Number.isNaN(previous) && previous - now > MAX_DELAY_SECONDS * 1000) await deps.wakeups.cancel(key, new Date(previous));
  }
}

/** The reconcile's trigger label, from why it was asked for (the first message of the key). */
function triggerOf(triggers: DecodedTrigger[]): Trigger {
  const first = triggers[0];
  if (!first || first.via === 'event') return 'watch';
  if (first.reason === 'sweep' || first.reason === 'api' || first.reason === 'watch') return first.reason;
  return 'requeue';
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
