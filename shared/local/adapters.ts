// The small local stand-ins that let the cloud code run in one process: the watch-proxy's sink
// enqueues into the in-process queue (instead of PutEvents → rule → SQS), transitions are printed
// (instead of going to the EventBridge bus), and the queue's worker is the reconcile Lambda's loop
// body: reconcile, then run again when asked (pods moving) or at the next wake-up.
import type { QueueWorker } from '../adapters/local/keyedQueue.ts';
import type { Clock, EventPublisher, ReconcileQueue } from '../reconcile/ports.ts';
import { reconcile, type ReconcileDeps, type ReconcileResult, type Trigger } from '../reconcile/reconcile.ts';
import type { RolloutEvent } from '../rollout/types.ts';
import type { WatchLog, WatchSink } from '../watch/types.ts';

/** Longest delay a wake-up is scheduled in-process (SQS's limit too); later ones come from the sweep. */
const MAX_WAKE_DELAY_SECONDS = 900;

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

export function reconcileWorker(deps: ReconcileDeps, opts: { onResult?: (key: string, result: ReconcileResult) => void } = {}): QueueWorker {
  return async (key, reason) => {
    const result = await reconcile(key, triggerOf(reason), deps);
    opts.onResult?.(`${key.namespace}/${key.name}`, result);
    return { requeueSeconds: result.requeueSeconds ?? wakeDelaySeconds(result, deps.clock) };
  };
}

/**
 * A pass that set a wake-up (a timed pause) is run again then, as the reconcile Lambda's follow-up
 * message does; the 10 s sweep would find it too, only later.
 */
export function wakeDelaySeconds(result: ReconcileResult, clock: Clock): number | null {
  if (result.outcome !== 'progressed' || result.wakeAt === null) return null;
  const seconds = Math.ceil((Date.parse(result.wakeAt) - clock.now().getTime()) / 1000);
  if (Number.isNaN(seconds) || seconds > MAX_WAKE_DELAY_SECONDS) return null;
  return Math.max(1, seconds);
}

function triggerOf(reason: string): Trigger {
  return reason === 'api' || reason === 'sweep' || reason === 'watch' ? reason : 'requeue';
}
