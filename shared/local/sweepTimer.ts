// Local mode's stand-in for the EventBridge Scheduler tick: at start and then every `intervalMs`,
// the rollouts that are due or whose resync turn came are queued (the same sweepDue the sweep
// Lambda runs). Each tick's resync window starts where the previous one ended; the first one spans
// a whole period, so a (re)start looks at every managed rollout once, as an informer's initial list
// does: a release interrupted by a crash is picked up at once. Ticks never overlap: a slow sweep
// delays the next one instead of stacking them. Timers are injectable for tests.
import { sweepDue, type SweepDeps, type SweepResult } from '../reconcile/sweep.ts';
import { REAL_TIMERS, type Timers } from '../watch/coalescer.ts';

export const LOCAL_SWEEP_INTERVAL_MS = 10_000;
export const LOCAL_RESYNC_PERIOD_MS = 30_000;

export interface SweepTimerOptions {
  deps: SweepDeps;
  intervalMs?: number;
  timers?: Timers;
  onSwept?(result: SweepResult): void;
  onError?(err: unknown): void;
}

export class SweepTimer {
  private timer: unknown = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  /** End of the last window swept; null before the first tick. */
  private sweptUntil: Date | null = null;
  private readonly timers: Timers;

  constructor(private readonly opts: SweepTimerOptions) {
    this.timers = opts.timers ?? REAL_TIMERS;
  }

  /** Sweeps now, then every interval. */
  start(): void {
    if (this.stopped || this.timer !== null || this.running !== null) return;
    void this.tick().then(() => {
      if (!this.stopped) this.schedule();
    });
  }

  /** One sweep now (also what each tick runs); resolves when it is done. */
  tick(): Promise<void> {
    this.running ??= this.sweepOnce()
      .then((result) => this.opts.onSwept?.(result), (err: unknown) => this.opts.onError?.(err))
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  /** No more ticks; waits for a sweep in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) this.timers.clear(this.timer);
    this.timer = null;
    await this.running;
  }

  private async sweepOnce(): Promise<SweepResult> {
    const to = this.opts.deps.clock.now();
    const from = this.sweptUntil ?? new Date(to.getTime() - this.opts.deps.resyncPeriodMs);
    const result = await sweepDue(this.opts.deps, { from, to });
    // Only a sweep that went through moves the window on: a failed one is covered by the next.
    this.sweptUntil = to;
    return result;
  }

  private schedule(): void {
    this.timer = this.timers.set(() => {
      this.timer = null;
      void this.tick().then(() => {
        if (!this.stopped) this.schedule();
      });
    }, this.opts.intervalMs ?? LOCAL_SWEEP_INTERVAL_MS);
  }
}
