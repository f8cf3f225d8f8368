// One SQS batch for the reconcile function: records are grouped by rollout key and each key is
// reconciled once (reconcile is level-based: three "look again" messages need one look), keys in
// parallel up to a small limit, never one key twice at once. A key that throws fails all of its
// records (reported as batch item failures, so SQS redelivers exactly those); other keys' records
// succeed. A body that names no rollout can never succeed and is dropped (logged), not retried.
import { decodeTriggerBody, type DecodedTrigger } from '../adapters/sqs/messages.ts';
import { MAX_DELAY_SECONDS } from '../adapters/sqs/reconcileQueue.ts';
import type { Clock, ReconcileQueue } from '../reconcile/ports.ts';
import type { ReconcileResult, Trigger } from '../reconcile/reconcile.ts';
import type { RolloutKey } from '../rollout/types.ts';
import { rolloutKeyString } from '../rollout/key.ts';

export interface BatchRecord {
  messageId: string;
  body: string;
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
  const groups = new Map<string, { key: RolloutKey; triggers: DecodedTrigger[]; messageIds: string[] }>();
  let invalid = 0;
  for (const record of records) {
    const decoded = decodeTriggerBody(record.body);
    if (!decoded) {
      invalid += 1;
      deps.log.error('dropping a message that names no rollout', { messageId: record.messageId, body: record.body.slice(0, 200) });
      continue;
    }
    const id = rolloutKeyString(decoded.key);
    const group = groups.get(id) ?? { key: decoded.key, triggers: [], messageIds: [] };
    group.triggers.push(decoded);
    group.messageIds.push(record.messageId);
    groups.set(id, group);
  }

  const outcomes = await mapLimit([...groups.values()], deps.concurrency ?? 4, async (g): Promise<KeyOutcome> => {
    try {
      const result = await deps.run(g.key, triggerOf(g.triggers));
      await followUp(g.key, result, deps);
      deps.log.info('reconciled', { rollout: rolloutKeyString(g.key), outcome: result.outcome, phase: result.phase, requeueSeconds: result.requeueSeconds, messages: g.messageIds.length });
      return { key: g.key, messageIds: g.messageIds, result, error: null };
    } catch (error) {
      deps.log.error('reconcile failed; the messages will be redelivered', { rollout: rolloutKeyString(g.key), error: describe(error) });
      return { key: g.key, messageIds: g.messageIds, result: null, error };
    }
  });
  return { keys: outcomes, failures: outcomes.filter((o) => o.error !== null).flatMap((o) => o.messageIds), invalid };
}

/**
 * Run again soon when the pass asked for it (pods moving, a lost race). Also when the state just
 * got a wake-up within SQS's delay range (a timed pause): the sweep would find it too, but only at
 * its next one-minute tick. Only after a pass that changed something, so the many passes during a
 * pause do not each add a message.
 */
async function followUp(key: RolloutKey, result: ReconcileResult, deps: ReconcileBatchDeps): Promise<void> {
  if (result.requeueSeconds !== null) {
    await deps.queue.enqueue(key, { delaySeconds: Math.max(1, Math.ceil(result.requeueSeconds)), reason: 'requeue' });
    return;
  }
  if (result.outcome !== 'progressed' || result.wakeAt === null) return;
  const inSeconds = Math.ceil((Date.parse(result.wakeAt) - deps.clock.now().getTime()) / 1000);
  if (Number.isNaN(inSeconds) || inSeconds > MAX_DELAY_SECONDS) return;
  await deps.queue.enqueue(key, { delaySeconds: Math.max(1, inSeconds), reason: 'wake' });
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
