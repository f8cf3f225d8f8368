// In-process stand-in for the SQS FIFO queue in local mode, with the semantics the pipeline relies
// on (those of the Kubernetes workqueue and client-go's delaying queue): a key is never processed
// by two workers at once, a key asked for while it waits is collapsed into one run, a key asked for
// while it runs is run once more afterwards, and a delayed ask keeps only the earliest due time.
// A pending delayed run is never dropped by an ask "now" (a watch event, a command, a rerun asked
// while the key ran): the key runs now AND the timer stays, so a wake-up scheduled for a timed
// pause's end fires at its time whatever passes happen before it.
import { SYSTEM_CLOCK } from '../../clock.ts';
import { type Clock } from '../../ports.ts';
import type { ReconcileQueue } from '../../ports.ts';
import type { RunAgain } from '../../ports.ts';
import { queueKeyString, type QueueKey } from '../../fleet/key.ts';

/** Runs one key; answers the runs it asks for next (shared/reconcile/runAgain.ts), each passed its reason then. */
export type QueueWorker = (key: QueueKey, reason: string) => Promise<readonly RunAgain[]>;

/** Longest delay setTimeout takes (about 24.8 days); a later run is left to the sweep. */
const MAX_TIMER_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

export interface KeyedQueueOptions {
  concurrency?: number;
  /** Delay before retrying a key whose run threw (doubles up to maxRetryDelayMs). */
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
  onError?: (key: QueueKey, err: unknown) => void;
  /** A delayed run was scheduled (or moved earlier) for `at`. */
  onScheduled?: (key: QueueKey, at: Date, reason: string) => void;
  clock?: Clock;
}

export class LocalKeyedQueue implements ReconcileQueue {
  private readonly ready: string[] = [];
  private readonly waiting = new Map<string, { key: QueueKey; reason: string }>();
  private readonly running = new Set<string>();
  private readonly rerun = new Map<string, { key: QueueKey; reason: string }>();
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly failures = new Map<string, number>();
  private active = 0;
  private stopped = false;
  private idleWaiters: (() => void)[] = [];
  private readonly concurrency: number;
  private readonly clock: Clock;

  constructor(private readonly worker: QueueWorker, private readonly opts: KeyedQueueOptions = {}) {
    this.concurrency = opts.concurrency ?? 4;
    this.clock = opts.clock ?? SYSTEM_CLOCK;
  }

  async enqueue(key: QueueKey, opts: { delaySeconds?: number; reason?: string } = {}): Promise<void> {
    if (this.stopped) return;
    const id = queueKeyString(key);
    const reason = opts.reason ?? 'enqueue';
    const delayMs = Math.max(0, (opts.delaySeconds ?? 0) * 1000);
    if (delayMs > 0) {
      const at = this.clock.now().getTime() + delayMs;
      const existing = this.timers.get(id);
      if (existing && existing.at <= at) return; // an earlier run is already scheduled
      if (existing) clearTimeout(existing.timer);
      const timer = setTimeout(() => {
        this.timers.delete(id);
        void this.enqueue(key, { reason });
      }, delayMs);
      this.timers.set(id, { at, timer });
      this.opts.onScheduled?.(key, new Date(at), reason);
      return;
    }
    if (this.running.has(id)) {
      this.rerun.set(id, { key, reason });
      return;
    }
    if (this.waiting.has(id)) return;
    this.waiting.set(id, { key, reason });
    this.ready.push(id);
    this.pump();
  }

  /** Resolves when nothing is queued, running or scheduled to run. */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stop taking work, drop scheduled runs and wait for the runs in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.ready.length = 0;
    this.waiting.clear();
    this.rerun.clear();
    if (this.active > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  private isIdle(): boolean {
    return this.active === 0 && this.ready.length === 0 && this.timers.size === 0;
  }

  private pump(): void {
    while (!this.stopped && this.active < this.concurrency && this.ready.length > 0) {
      const id = this.ready.shift()!;
      const item = this.waiting.get(id);
      this.waiting.delete(id);
      if (!item) continue;
      this.running.add(id);
      this.active += 1;
      void this.run(id, item.key, item.reason);
    }
    if (this.isIdle()) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private async run(id: string, key: QueueKey, reason: string): Promise<void> {
    let asks: readonly RunAgain[];
    try {
      asks = await this.worker(key, reason);
      this.failures.delete(id);
    } catch (err) {
      this.opts.onError?.(key, err);
      const n = (this.failures.get(id) ?? 0) + 1;
      this.failures.set(id, n);
      const base = this.opts.retryDelayMs ?? 1000;
      asks = [{ afterSeconds: Math.min(base * 2 ** (n - 1), this.opts.maxRetryDelayMs ?? 60_000) / 1000, reason: 'requeue' }];
    } finally {
      this.running.delete(id);
      this.active -= 1;
    }
    const rerun = this.rerun.get(id);
    this.rerun.delete(id);
    // Both: the rerun now, and the runs this pass asked for later (the rerun's own pass may ask
    // again; the earliest pending time is kept either way).
    for (const ask of asks) {
      if (ask.afterSeconds <= MAX_TIMER_SECONDS) await this.enqueue(key, { delaySeconds: Math.max(ask.afterSeconds, 0.001), reason: ask.reason });
    }
    if (rerun) await this.enqueue(rerun.key, { reason: rerun.reason });
    this.pump();
  }
}
