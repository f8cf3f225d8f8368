// Local mode's stand-in for the EventBridge Scheduler tick: every `intervalMs` the rollouts whose
// wake-up is due are queued (the same sweepDue the sweep Lambda runs). Ticks never overlap: a slow
// sweep delays the next one instead of stacking them. Timers are injectable for tests.
import { sweepDue, type SweepDeps, type SweepResult } from '../app/sweep.ts';
import { REAL_TIMERS, type Timers } from '../watch/coalescer.ts';

export const LOCAL_SWEEP_INTERVAL_MS = 10_000;

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
  private readonly timers: Timers;

  constructor(private readonly opts: SweepTimerOptions) {
    this.timers = opts.timers ?? REAL_TIMERS;
  }

  start(): void {
    if (this.stopped || this.timer !== null) return;
    this.schedule();
  }

  /** One sweep now (also what each tick runs); resolves when it is done. */
  tick(): Promise<void> {
    this.running ??= sweepDue(this.opts.deps)
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

  private schedule(): void {
    this.timer = this.timers.set(() => {
      this.timer = null;
      void this.tick().then(() => {
        if (!this.stopped) this.schedule();
      });
    }, this.opts.intervalMs ?? LOCAL_SWEEP_INTERVAL_MS);
  }
}
