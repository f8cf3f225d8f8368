// Local mode's event loop, assembled from its parts around the benchmark's instrumented engine: the
// watch core (runWatchProxy) feeding LocalKeyedQueue through local mode's own sink, and local mode's
// reconcile worker over the Engine's deps (dynalite with its request counter, the least-privilege
// Kubernetes client, the Meter). startLocalMode (shared/local/localMode.ts) runs these same parts,
// but with its own embedded DynamoDB and meter, which a benchmark cannot count.
import { isFleetQueueKey, queueKeyString } from '../../shared/fleet/key.ts';
import { performance } from 'node:perf_hooks';
import { DynamoStateStore } from '../../shared/adapters/dynamodb/stateStore.ts';
import { LocalKeyedQueue } from '../../shared/adapters/local/keyedQueue.ts';
import { reconcileWorker } from '../../shared/local/adapters.ts';
import { queueWatchSink } from '../../shared/watch/queueSink.ts';
import { Meter } from '../../shared/meter.ts';
import type { ReconcileResult } from '../../shared/reconcile/reconcile.ts';
import type { WatchSink } from '../../shared/ports.ts';
import { DEFAULT_WINDOW_MS, runWatchProxy } from '../../shared/watch/watchProxy.ts';
import type { Engine } from '../testbed/engine.ts';

/**
 * Local mode's tuning (shared/local/localMode.ts): the deployed coalescing window (DEFAULT_WINDOW_MS,
 * leading edge, then trailing) and a catalogue refresh every 5 s (passed there, not exported).
 */
export const LOCAL_MODE_WATCH = { windowMs: DEFAULT_WINDOW_MS, refreshMs: 5000 } as const;

export interface LoopRecord {
  /** performance.now() when the pass ended. */
  endedAt: number;
  reason: string;
  wallMs: number;
  result: ReconcileResult;
}

export interface WatchLoop {
  readonly records: LoopRecord[];
  /** Keys handed to the sink (each one EventBridge event in the deployed stack). */
  readonly notices: { count: number };
  /** The watch side's own DynamoDB requests (catalogue refreshes), apart from the reconciles' (engine.meter). */
  readonly watchMeter: Meter;
  stop(): Promise<void>;
}

export function startWatchLoop(engine: Engine, tuning: { windowMs: number; refreshMs: number } = LOCAL_MODE_WATCH): WatchLoop {
  const records: LoopRecord[] = [];
  const notices = { count: 0 };
  // The worker reports each pass's result by "namespace/name"; a key is never run twice at once.
  const results = new Map<string, ReconcileResult>();
  const inner = reconcileWorker(engine.deps(), { onResult: (key, _reason, result) => results.set(key, result) });
  const queue = new LocalKeyedQueue(async (key, reason) => {
    const t0 = performance.now();
    const out = await inner(key, reason);
    const endedAt = performance.now();
    const result = results.get(isFleetQueueKey(key) ? queueKeyString(key) : `${key.namespace}/${key.name}`);
    if (result) records.push({ endedAt, reason, wallMs: endedAt - t0, result });
    return out;
  }, { onError: (key, err) => console.error(`bench loop: reconcile ${queueKeyString(key)} failed: ${String(err)}`) });
  const sink = queueWatchSink(queue);
  const countingSink: WatchSink = {
    send: async (changes) => {
      notices.count += changes.length;
      await sink.send(changes);
    },
  };
  const watchMeter = new Meter();
  const stopWatch = new AbortController();
  const watching = runWatchProxy({
    // In the deployed stack the watch-proxy is another function: its store reads are kept apart.
    store: new DynamoStateStore({ client: engine.dynamo.client, tableName: engine.dynamo.tableName, meter: watchMeter, clock: engine.clock }),
    clusters: { source: async () => engine.client },
    sink: countingSink,
    signal: stopWatch.signal,
    clock: engine.clock,
    windowMs: tuning.windowMs,
    refreshMs: tuning.refreshMs,
  });
  return {
    records,
    notices,
    watchMeter,
    async stop() {
      stopWatch.abort();
      await watching;
      await queue.stop();
    },
  };
}
