// Per-key coalescing of watch events. A rolling batch produces dozens of MODIFIED events per second
// (each pod's readiness updates its ReplicaSet, which updates the Deployment); the reconcile only
// needs to know "look again". The first event of a window arms one timer; when it fires, every key
// changed in the window is sent once, with its reasons, in as few PutEvents calls as possible.
// Timers are injected so tests drive time by hand.
import type { RolloutKey } from '../rollout/types.ts';
import type { WorkloadChange } from './types.ts';
import { rolloutKeyString } from '../rollout/key.ts';

export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const REAL_TIMERS: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface CoalescerOptions {
  windowMs: number;
  send(changes: WorkloadChange[]): Promise<void>;
  /** A send failed: the changes are kept and sent with the next window. */
  onSendError?(err: unknown, changes: WorkloadChange[]): void;
  timers?: Timers;
  /** Reasons kept per key (the rest are counted in the last one). */
  maxReasons?: number;
}

export class Coalescer {
  private pending = new Map<string, WorkloadChange>();
  private timer: unknown = null;
  private sending: Promise<void> = Promise.resolve();
  private readonly timers: Timers;
  sent = 0;

  constructor(private readonly opts: CoalescerOptions) {
    this.timers = opts.timers ?? REAL_TIMERS;
  }

  add(key: RolloutKey, reason: string): void {
    const id = rolloutKeyString(key);
    const change = this.pending.get(id) ?? { cluster: key.cluster, namespace: key.namespace, name: key.name, reasons: [] };
    if (!change.reasons.includes(reason)) change.reasons.push(reason);
    this.pending.set(id, change);
    if (this.timer === null) this.timer = this.timers.set(() => void this.flush(), this.opts.windowMs);
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  /** Sends what is pending now (also what the timer does). Sends never overlap. */
  flush(): Promise<void> {
    if (this.timer !== null) this.timers.clear(this.timer);
    this.timer = null;
    const batch = [...this.pending.values()].map((c) => this.capped(c));
    this.pending = new Map();
    if (batch.length === 0) return this.sending;
    this.sending = this.sending.then(async () => {
      try {
        await this.opts.send(batch);
        this.sent += batch.length;
      } catch (err) {
        this.opts.onSendError?.(err, batch);
        for (const c of batch) for (const r of c.reasons) this.add(c, r);
      }
    });
    return this.sending;
  }

  /** Flush and wait for every send (shutdown); a failed send is not retried here. */
  async drain(): Promise<void> {
    await this.flush();
    if (this.timer !== null) this.timers.clear(this.timer);
    this.timer = null;
  }

  private capped(c: WorkloadChange): WorkloadChange {
    const max = this.opts.maxReasons ?? 10;
    if (c.reasons.length <= max) return c;
    return { ...c, reasons: [...c.reasons.slice(0, max - 1), `and ${c.reasons.length - max + 1} more`] };
  }
}
