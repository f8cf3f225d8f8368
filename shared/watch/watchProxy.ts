// The watch-proxy: Kubernetes watches → coalesced "Workload Changed" notices. For every namespace
// that has rollouts (per cluster), it watches what the drivers of those rollouts' kinds declare
// (WorkloadDriver.watches, through watchTargets), and where a rollout routes traffic, its provider's
// router and the Services (ROUTING_WATCHES: a GitOps sync that resets our weights or the Services'
// narrowing brings the rollout back at once); it maps each event to the rollouts managing
// the workload or routing through the object, coalesces per key over a short window and hands the keys to the sink. The same code
// runs as a Lambda on an overlapping schedule (`until` = the invocation's end minus a margin) and
// as a long-running container or in local mode (`until` null, stopped by a signal).
// Each start (and each relist after 410 Gone) replays every object as ADDED, so every managed key
// gets one notice then; with `replayOnStart: false` (the deployed, on-demand watcher: the resync and
// the reconcile that started it cover what came before) a start watches from now, and only a relist
// replays. A rollout that joins the catalogue later gets a notice of its own (a catch-up pass):
// events of its workload that came before the catalogue knew it were dropped.
// The catalogue is re-read every `refreshMs`, and at once when `refreshes` asks (local mode's API
// does after an apply); deployed, the API's enqueue covers the time until the next refresh.
import type { Clock, StateStore } from '../ports.ts';
import type { WorkloadKind } from '../rollout/types.ts';
import { ROUTING_WATCHES, type RoutingWatch } from '../traffic/registry.ts';
import type { WorkloadDriver } from '../workloads/driver.ts';
import { WORKLOAD_DRIVERS } from '../workloads/registry.ts';
import { RolloutCatalog } from './catalog.ts';
import { Coalescer, REAL_TIMERS, type Timers } from './coalescer.ts';
import { mapWatchEvent, watchPathOf, watchTargets } from './mapping.ts';
import { ResourceWatch } from './resourceWatch.ts';
import { SILENT_LOG, type Log } from '../ports.ts';
import type { WatchClusters, WatchSink } from '../ports.ts';

/** Asks a running watch-proxy to re-read the catalogue now (local mode: right after an apply). */
export class CatalogRefreshRequests {
  private listeners = new Set<() => void>();

  request(): void {
    for (const listener of this.listeners) listener();
  }

  /** Used by the proxy; returns the unsubscribe. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** Reason of the notice a rollout gets when it joins the catalogue. */
export const NEW_ROLLOUT_REASON = 'rollout added to the watch catalogue';

export interface WatchProxyOptions {
  store: Pick<StateStore, 'listRollouts' | 'load'>;
  clusters: WatchClusters;
  sink: WatchSink;
  /** Stop at this instant (Lambda); null or absent: run until `signal` aborts (container). */
  until?: Date | null;
  signal?: AbortSignal;
  clock: Clock;
  log?: Log;
  /** Coalescing window per key (default DEFAULT_WINDOW_MS). */
  windowMs?: number;
  /** How often the set of managed workloads is re-read from the store (default 30 s). */
  refreshMs?: number;
  /** Re-read it at once when asked. */
  refreshes?: CatalogRefreshRequests;
  /** Send a notice for every managed workload when the watches start (default true); false: watch from now. */
  replayOnStart?: boolean;
  /** Whose watch declarations to follow (default: the registry's drivers). */
  drivers?: Readonly<Partial<Record<WorkloadKind, WorkloadDriver>>>;
  /** The routings' watches (default: the traffic providers' and the Services', ROUTING_WATCHES). */
  routingWatches?: readonly RoutingWatch[];
  /** Server-side timeout of each watch request (default 300 s); the watch resumes after it. */
  watchTimeoutSeconds?: number;
  backoff?: { initialMs: number; maxMs: number };
  timers?: Timers;
}

/**
 * The coalescing window, deployed as in local mode (bench/lib/watchLoop.ts measures it there). The
 * first event of a quiet key goes out at once (leading edge, coalescer.ts); a batch's last pod
 * turning Ready usually falls in a window its siblings opened, so the notice that starts the next
 * batch can wait the whole window: 50 ms of the modelled reaction (bench/lib/reactionModel.ts). The
 * extra notices of a short window are SQS messages at fractions of a cent per release (npm run
 * bench, cost area).
 */
export const DEFAULT_WINDOW_MS = 50;

export interface WatchProxyStats {
  watches: number;
  events: number;
  changesSent: number;
  relists: number;
  errors: number;
}

export async function runWatchProxy(opts: WatchProxyOptions): Promise<WatchProxyStats> {
  const { clock } = opts;
  const log = opts.log ?? SILENT_LOG;
  const timers = opts.timers ?? REAL_TIMERS;
  const catalog = new RolloutCatalog(opts.store, clock);
  const coalescer = new Coalescer({
    windowMs: opts.windowMs ?? DEFAULT_WINDOW_MS,
    send: (changes) => opts.sink.send(changes),
    onSendError: (err, changes) => log.error('sending workload changes failed; keeping them for the next window', { error: String(err), keys: changes.length }),
    timers,
  });
  const watches = new Map<string, ResourceWatch>();
  // Watches of namespaces that lost their last rollout: only their counts are kept (a container runs for weeks).
  const retired = { watches: 0, events: 0, relists: 0, errors: 0, stopping: new Set<Promise<void>>() };
  const retire = (watch: ResourceWatch): void => {
    const stopped = watch.stop().then(() => {
      retired.watches += 1;
      retired.events += watch.stats.events;
      retired.relists += watch.stats.relists;
      retired.errors += watch.stats.errors;
      retired.stopping.delete(stopped);
    });
    retired.stopping.add(stopped);
  };
  const stop = stopSignal(opts, clock, timers);
  let refreshErrors = 0;

  const targets = watchTargets(opts.drivers ?? WORKLOAD_DRIVERS, opts.routingWatches ?? ROUTING_WATCHES);
  const syncWatches = (): void => {
    const wanted = new Set<string>();
    for (const target of targets) {
      const namespaces = new Map<string, { cluster: string; namespace: string }>();
      for (const { workloadKind } of target.consumers) {
        for (const ns of catalog.namespaces(workloadKind)) namespaces.set(`${ns.cluster}\n${ns.namespace}`, ns);
      }
      for (const { subject } of target.routings) {
        for (const ns of catalog.routedNamespaces(subject)) namespaces.set(`${ns.cluster}\n${ns.namespace}`, ns);
      }
      for (const { cluster, namespace } of namespaces.values()) {
        const id = `${cluster}\n${namespace}\n${target.id}`;
        wanted.add(id);
        if (watches.has(id)) continue;
        const watch = new ResourceWatch({
          source: () => opts.clusters.source(cluster),
          path: watchPathOf(target.apiVersion, namespace, target.resource),
          onEvent: (type, obj) => {
            const { keys, reason } = mapWatchEvent(catalog, cluster, namespace, target, type, obj);
            for (const key of keys) coalescer.add(key, reason);
          },
          onUnauthorized: () => opts.clusters.invalidate?.(cluster),
          startFromNow: opts.replayOnStart === false,
          log,
          timeoutSeconds: opts.watchTimeoutSeconds ?? 300,
          ...(opts.backoff ? { backoff: opts.backoff } : {}),
        });
        watches.set(id, watch);
        watch.start();
      }
    }
    // Namespaces with no rollout any more: their watches end.
    for (const [id, watch] of watches) {
      if (wanted.has(id)) continue;
      watches.delete(id);
      retire(watch);
    }
  };

  let refreshed = false;
  const refresh = async (): Promise<void> => {
    try {
      const { added, removed } = await catalog.refresh();
      if (added.length > 0 || removed.length > 0) log.info('managed rollouts changed', { added: added.length, removed: removed.length, total: catalog.size });
      refreshErrors = 0;
      // The first catalogue comes with fresh watches, whose replay reaches every rollout anyway.
      if (refreshed) for (const key of added) coalescer.add(key, NEW_ROLLOUT_REASON);
      refreshed = true;
      syncWatches();
    } catch (err) {
      refreshErrors += 1;
      log.error('reading the managed rollouts failed', { error: String(err), attempt: refreshErrors });
    }
  };

  let asked: (() => void) | null = null;
  let pendingAsk = false;
  const unsubscribe = opts.refreshes?.subscribe(() => {
    pendingAsk = true;
    asked?.();
  }) ?? (() => {});
  await refresh();
  while (!stop.signal.aborted) {
    if (!pendingAsk) await waitOrStop(opts.refreshMs ?? 30_000, stop.signal, timers, (wake) => (asked = wake));
    asked = null;
    pendingAsk = false;
    if (!stop.signal.aborted) await refresh();
  }
  unsubscribe();

  const live = [...watches.values()];
  await Promise.all([...live.map((w) => w.stop()), ...retired.stopping]);
  await coalescer.drain();
  stop.dispose();
  const sum = (f: (w: ResourceWatch) => number) => live.reduce((n, w) => n + f(w), 0);
  return {
    watches: live.length + retired.watches,
    events: retired.events + sum((w) => w.stats.events),
    changesSent: coalescer.sent,
    relists: retired.relists + sum((w) => w.stats.relists),
    errors: retired.errors + sum((w) => w.stats.errors),
  };
}

/** Aborts at `until` or when the caller's signal aborts, whichever comes first. */
function stopSignal(opts: WatchProxyOptions, clock: Clock, timers: Timers): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  if (opts.signal?.aborted) abort();
  opts.signal?.addEventListener('abort', abort, { once: true });
  const timer = opts.until ? timers.set(abort, Math.max(0, opts.until.getTime() - clock.now().getTime())) : null;
  return {
    signal: controller.signal,
    dispose: () => {
      if (timer !== null) timers.clear(timer);
      opts.signal?.removeEventListener('abort', abort);
    },
  };
}

/** Waits `ms`, or until the signal aborts, or until the function handed to `onWake` is called. */
function waitOrStop(ms: number, signal: AbortSignal, timers: Timers, onWake: (wake: () => void) => void): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      timers.clear(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = timers.set(done, ms);
    signal.addEventListener('abort', done, { once: true });
    onWake(done);
  });
}
