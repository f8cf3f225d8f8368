// The watch-proxy's sink: its coalesced notices go straight to the work queue as reconcile requests
// (reason "watch"), deployed and in local mode alike. Deployed, that is the FIFO queue the reconcile
// function consumes, in as few SendMessageBatch requests as the keys allow: one hop, where a notice
// used to go PutEvents → bus rule → trigger queue (bench/lib/reactionModel.ts has the difference).
// The event bus carries our transition events only (notifications).
import type { BatchingQueue, WatchSink } from '../ports.ts';
import type { RolloutKey } from '../rollout/types.ts';

/** The reason the reconcile sees on a watch-proxy notice (the reconcile area counts passes by it). */
export const WATCH_REASON = 'watch';

export function queueWatchSink(queue: BatchingQueue): WatchSink {
  return {
    async send(changes) {
      const items = changes.map((c) => ({ key: { cluster: c.cluster, namespace: c.namespace, name: c.name } satisfies RolloutKey, causes: c.reasons }));
      if (items.length === 0) return;
      if (queue.enqueueEach) {
        await queue.enqueueEach(items, { reason: WATCH_REASON });
        return;
      }
      for (const { key } of items) await queue.enqueue(key, { reason: WATCH_REASON });
    },
  };
}
