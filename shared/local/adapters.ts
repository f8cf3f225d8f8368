// The small local stand-ins that let the cloud code run in one process: the watch-proxy's sink
// enqueues into the in-process queue (instead of PutEvents → rule → SQS), transitions are printed
// (instead of going to the EventBridge bus), and the queue's worker is the reconcile Lambda's loop
// body: reconcile, then run again when asked (pods moving) or at the next wake-up.
import type { QueueWorker } from '../adapters/local/keyedQueue.ts';
import type { Clock, EventPublisher, ReconcileQueue } from '../reconcile/ports.ts';
import { reconcile, type ReconcileDeps, type ReconcileResult, type Trigger } from '../reconcile/reconcile.ts';
import type { RolloutEvent } from '../rollout/types.ts';
import type { WatchLog, WatchSink } from '../watch/types.ts';

/** Longest delay setTimeout takes (about 24.8 days); a later wake-up comes from the sweep. */
const MAX_TIMER_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

export type LogLine = (line: string) => void;

export function queueWatchSink(queue: ReconcileQueue): WatchSink {
  return {
    async send(changes) {
      for (const c of changes) await queue.enqueue({ cluster: c.cluster, namespace: c.namespace, name: c.name }, { reason: 'watch' });
    },
  };
}

/** One line per transition, e.g. "event Batch Ready default/web r1 step 1: …". */
export function printingPublisher(log: LogLine): EventPublisher {
  return {
    async publish(events: RolloutEvent[]) {
      for (const e of events) {
        const step = e.stepIndex === null ? '' : ` step ${e.stepIndex + 1}`;
        log(`event ${e.type}: ${e.rollout.namespace}/${e.rollout.name}${e.releaseId ? ` ${e.releaseId}` : ''}${step} → ${e.phase}: ${e.message}`);
      }
    },
  };
}

/** Warnings and errors of the watch-proxy; its info lines (catalogue refreshes) are noise here. */
export function printingWatchLog(log: LogLine): WatchLog {
  const line = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    log(`watch ${level}: ${message}${fields ? ` ${JSON.stringify(fields)}` : ''}`);
  return { info: () => {}, warn: line('warning'), error: line('error') };
}

export function reconcileWorker(deps: ReconcileDeps, opts: { onResult?: (key: string, reason: string, result: ReconcileResult) => void } = {}): QueueWorker {
  return async (key, reason) => {
    const result = await reconcile(key, triggerOf(reason), deps);
    opts.onResult?.(`${key.namespace}/${key.name}`, reason, result);
    return nextRun(result, deps.clock);
  };
}

/**
 * When to run the key again: the sooner of the pass's "again in n s" (pods moving) and its
 * wake-up (a timed pause's end, a window opening), after every pass, changed or not. The keyed
 * queue keeps only the earliest pending run per key (as client-go's delaying queue does), so
 * asking on every pass costs nothing and no wake-up depends on the pass that first set it.
 */
export function nextRun(result: ReconcileResult, clock: Clock): { requeueSeconds: number | null; reason: string } {
  const wake = wakeDelaySeconds(result, clock);
  if (wake !== null && (result.requeueSeconds === null || wake <= result.requeueSeconds)) return { requeueSeconds: wake, reason: 'wake' };
  return { requeueSeconds: result.requeueSeconds, reason: 'requeue' };
}

/** Seconds until the pass's wake-up (0 when it is already due), or null without one. */
export function wakeDelaySeconds(result: ReconcileResult, clock: Clock): number | null {
  if (result.wakeAt === null) return null;
  const seconds = (Date.parse(result.wakeAt) - clock.now().getTime()) / 1000;
  if (Number.isNaN(seconds) || seconds > MAX_TIMER_SECONDS) return null;
  return Math.max(0, seconds);
}

function triggerOf(reason: string): Trigger {
  return reason === 'api' || reason === 'sweep' || reason === 'watch' ? reason : 'requeue';
}
