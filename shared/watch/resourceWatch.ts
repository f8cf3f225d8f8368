// One long-lived watch of one resource in one namespace, kept alive across everything a watch goes
// through: a normal end (server timeout, client-node's inactivity abort) re-watches from the last
// resourceVersion seen (bookmarks keep it fresh); 410 Gone means that version was compacted away,
// so it relists (a watch with no resourceVersion replays every object as ADDED, then streams);
// any other failure retries with capped exponential backoff and jitter, and a 401 first drops the
// cluster's cached credentials (an EKS token that expired). With `startFromNow` the first watch
// starts at the collection's current version instead of replaying every object (the resync and
// the reconcile that started the watcher cover what came before); a relist after 410 still replays.
import { setTimeout as sleep } from 'node:timers/promises';
import { GoneError, UnauthorizedError } from '../errors.ts';
import type { KubeObject } from '../kube/types.ts';
import type { WatchEventType, WatchHandle } from '../ports.ts';
import type { Log } from '../ports.ts';
import type { WatchSource } from '../ports.ts';

export interface ResourceWatchOptions {
  /** Resolved again on every (re)connect, so each connection authenticates afresh. */
  source(): Promise<WatchSource>;
  path: string;
  onEvent(type: Exclude<WatchEventType, 'BOOKMARK'>, obj: KubeObject): void;
  /** The watch starts over from a full listing (first start or after 410 Gone). */
  onRelist?(): void;
  /** Begin at the current version (source.listVersion) rather than with a replay of every object. */
  startFromNow?: boolean;
  /** A 401 was answered: drop cached credentials before the next attempt. */
  onUnauthorized?(): void;
  log: Log;
  /** Server-side end of each watch request; the watch then resumes from its resourceVersion. */
  timeoutSeconds?: number;
  backoff?: { initialMs: number; maxMs: number };
  /** Waits `ms` or until the signal aborts; injected by tests so no real time passes. */
  sleep?(ms: number, signal: AbortSignal): Promise<void>;
  random?(): number;
}

export interface ResourceWatchStats {
  connects: number;
  relists: number;
  errors: number;
  events: number;
}

export class ResourceWatch {
  readonly stats: ResourceWatchStats = { connects: 0, relists: 0, errors: 0, events: 0 };
  private resourceVersion: string | undefined;
  private handle: WatchHandle | null = null;
  private readonly stopping = new AbortController();
  private loop: Promise<void> | null = null;

  constructor(private readonly opts: ResourceWatchOptions) {}

  start(): void {
    this.loop ??= this.run();
  }

  /** Ends the current watch and the loop; resolves once nothing more will be delivered. */
  async stop(): Promise<void> {
    this.stopping.abort();
    this.handle?.stop();
    await this.loop;
  }

  private async run(): Promise<void> {
    const { log, path } = this.opts;
    let failures = 0;
    while (!this.stopping.signal.aborted) {
      const err = await this.watchOnce().catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
      if (this.stopping.signal.aborted) break;
      if (err === null) {
        failures = 0;
        continue;
      }
      if (err instanceof GoneError) {
        log.info('watch history compacted; relisting', { path });
        this.resourceVersion = undefined;
        failures = 0;
        continue;
      }
      if (err instanceof UnauthorizedError) this.opts.onUnauthorized?.();
      failures += 1;
      this.stats.errors += 1;
      const delay = this.backoffMs(failures);
      log.warn('watch failed; retrying', { path, error: err.message, attempt: failures, delayMs: delay });
      await (this.opts.sleep ?? abortableSleep)(delay, this.stopping.signal);
    }
  }

  /** One watch request; resolves with how it ended (null = normally). */
  private async watchOnce(): Promise<Error | null> {
    const source = await this.opts.source();
    if (this.resourceVersion === undefined && this.stats.connects === 0 && this.opts.startFromNow && source.listVersion) {
      this.resourceVersion = await source.listVersion(this.opts.path);
    }
    if (this.resourceVersion === undefined) {
      this.stats.relists += 1;
      this.opts.onRelist?.();
    }
    this.stats.connects += 1;
    return new Promise<Error | null>((resolve, reject) => {
      source
        .watch(
          this.opts.path,
          { allowWatchBookmarks: true, ...(this.resourceVersion === undefined ? {} : { resourceVersion: this.resourceVersion }), ...(this.opts.timeoutSeconds ? { timeoutSeconds: this.opts.timeoutSeconds } : {}) },
          (type, obj) => {
            const rv = obj.metadata?.resourceVersion;
            if (rv) this.resourceVersion = rv;
            if (type === 'BOOKMARK') return;
            this.stats.events += 1;
            this.opts.onEvent(type, obj);
          },
          (err) => {
            this.handle = null;
            resolve(err);
          },
        )
        .then((handle) => {
          this.handle = handle;
          // stop() may have run while the request was being opened.
          if (this.stopping.signal.aborted) handle.stop();
        }, reject);
    });
  }

  private backoffMs(failures: number): number {
    const { initialMs, maxMs } = this.opts.backoff ?? { initialMs: 500, maxMs: 30_000 };
    const ceiling = Math.min(maxMs, initialMs * 2 ** (failures - 1));
    // Full jitter in the upper half: watches of many namespaces do not reconnect in lockstep.
    return Math.round(ceiling / 2 + (ceiling / 2) * (this.opts.random ?? Math.random)());
  }
}

/** Waits `ms`, or less when `signal` aborts (then resolves too: the loop checks the signal). */
function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return sleep(ms, undefined, { signal }).catch(() => {});
}
