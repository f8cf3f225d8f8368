// The small local stand-ins that let the cloud code run in one process: transitions are printed
// (instead of going to the EventBridge bus), and the queue's worker is the reconcile Lambda's loop
// body: reconcile, then run again as the pass asks (shared/reconcile/runAgain.ts).
import type { QueueWorker } from '../adapters/local/keyedQueue.ts';
import type { Log } from '../ports.ts';
import type { EventPublisher } from '../ports.ts';
import { reconcile, type ReconcileResult } from '../reconcile/reconcile.ts';
import { type ReconcileDeps } from '../reconcile/deps.ts';
import { runsAskedFor } from '../reconcile/runAgain.ts';
import type { RolloutEvent } from '../rollout/types.ts';
import type { FleetEvent } from '../fleet/types.ts';
import { isFleetQueueKey, queueKeyString } from '../fleet/key.ts';
import { reconcileFleet } from '../reconcile/fleet/reconcileFleet.ts';

export type LogLine = (line: string) => void;

/** One line per transition, e.g. "event Batch Ready default/web r1 step 1: …". */
export function printingPublisher(log: LogLine): EventPublisher {
  return {
    async publish(events: RolloutEvent[]) {
      for (const e of events) {
        const step = e.stepIndex === null ? '' : ` step ${e.stepIndex + 1}`;
        log(`event ${e.type}: ${e.rollout.namespace}/${e.rollout.name}${e.releaseId ? ` ${e.releaseId}` : ''}${step} → ${e.phase}: ${e.message}`);
      }
    },
    async publishFleet(events: FleetEvent[]) {
      for (const e of events) {
        const where = [e.wave === null ? '' : ` wave ${e.wave}`, e.cluster === null ? '' : ` cluster ${e.cluster}`].join('');
        log(`event ${e.type}: fleet ${e.fleet.name}${e.releaseId ? ` ${e.releaseId}` : ''}${where} → ${e.phase}: ${e.message}`);
      }
    },
  };
}

/** Warnings and errors of the watch-proxy; its info lines (catalogue refreshes) are noise here. */
export function printingWatchLog(log: LogLine): Log {
  const line = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    log(`watch ${level}: ${message}${fields ? ` ${JSON.stringify(fields)}` : ''}`);
  return { info: () => {}, warn: line('warning'), error: line('error') };
}

/**
 * Reconcile, then ask the queue for every run the pass asks for, changed or not: the keyed queue
 * keeps only the earliest pending run per key (as client-go's delaying queue does), so asking on
 * every pass costs nothing and no wake-up depends on the pass that first set it.
 */
export function reconcileWorker(deps: ReconcileDeps, opts: { onResult?: (key: string, reason: string, result: ReconcileResult) => void } = {}): QueueWorker {
  return async (key, reason) => {
    const result = isFleetQueueKey(key) ? await reconcileFleet(key.fleet, deps) : await reconcile(key, deps);
    opts.onResult?.(isFleetQueueKey(key) ? queueKeyString(key) : `${key.namespace}/${key.name}`, reason, result);
    return runsAskedFor(result, deps.clock.now());
  };
}
