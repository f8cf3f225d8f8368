// Per-key coalescing of watch events: leading edge, then trailing. A rolling batch produces dozens
// of MODIFIED events per second (each pod's readiness updates its ReplicaSet, which updates the
// Deployment); the reconcile only needs to know "look again", but it needs to know AT ONCE when a
// quiet workload changes (a template change, a batch's last pod turning Ready). So the first event
// of a quiet key is sent immediately (with whatever else arrives in the same tick); later events of
// that key within the window are coalesced into one trailing send at the window's end, and a key
// that keeps changing is sent at most once per window after that. Sends batch every key due at the
// same moment, in as few PutEvents calls as possible. Timers are injected so tests drive time by hand.
import type { RolloutKey } from '../rollout/types.ts';
import type { WorkloadChange } from '../ports.ts';
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
  /** A send failed: the changes are kept and sent at the end of the window. */
  onSendError?(err: unknown, changes: WorkloadChange[]): void;
  timers?: Timers;
  /** Reasons kept per key (the rest are counted in the last one). */
  maxReasons?: number;
}

export class Coalescer {
  /** Changes not sent yet, per key. */
  private pending = new Map<string, WorkloadChange>();
  /** Keys sent (or due) in the current window: their next events wait for its end. */
  private hot = new Set<string>();
  /** Quiet keys whose first event goes out on the next tick. */
  private leading = new Set<string>();
  private leadingTimer: unknown = null;
  private windowTimer: unknown = null;
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
    if (!this.hot.has(id)) {
      this.hot.add(id);
      this.leading.add(id);
      this.leadingTimer ??= this.timers.set(() => void this.sendLeading(), 0);
    }
    this.windowTimer ??= this.timers.set(() => void this.windowEnded(), this.opts.windowMs);
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  /** Sends everything pending now (shutdown, tests). Sends never overlap. */
  flush(): Promise<void> {
    this.leading.clear();
    return this.send([...this.pending.keys()]);
  }

  /** Flush and wait for every send (shutdown); a failed send is not retried here. */
  async drain(): Promise<void> {
    await this.flush();
    for (const timer of [this.leadingTimer, this.windowTimer]) if (timer !== null) this.timers.clear(timer);
    this.leadingTimer = null;
    this.windowTimer = null;
    this.hot.clear();
  }

  private sendLeading(): Promise<void> {
    this.leadingTimer = null;
    const ids = [...this.leading];
    this.leading.clear();
    return this.send(ids);
  }

  /** The window ends: the trailing send of every key that changed again; those stay hot one more window. */
  private windowEnded(): Promise<void> {
    this.windowTimer = null;
    const ids = [...this.pending.keys()].filter((id) => !this.leading.has(id));
    this.hot = new Set([...ids, ...this.leading]);
    if (this.hot.size > 0) this.windowTimer = this.timers.set(() => void this.windowEnded(), this.opts.windowMs);
    return this.send(ids);
  }

  private send(ids: string[]): Promise<void> {
    const batch: WorkloadChange[] = [];
    for (const id of ids) {
      const change = this.pending.get(id);
      if (!change) continue;
      this.pending.delete(id);
      batch.push(this.capped(change));
    }
    if (batch.length === 0) return this.sending;
    this.sending = this.sending.then(async () => {
      try {
        await this.opts.send(batch);
        this.sent += batch.length;
      } catch (err) {
        this.opts.onSendError?.(err, batch);
        // Kept for the window's end (never a tight retry loop against a throttled API).
        for (const c of batch) {
          const id = rolloutKeyString(c);
          const merged = this.pending.get(id) ?? { ...c, reasons: [] };
          for (const r of c.reasons) if (!merged.reasons.includes(r)) merged.reasons.push(r);
          this.pending.set(id, merged);
          this.hot.add(id);
        }
        this.windowTimer ??= this.timers.set(() => void this.windowEnded(), this.opts.windowMs);
      }
    });
    return this.sending;
  }

  private capped(c: WorkloadChange): WorkloadChange {
    const max = this.opts.maxReasons ?? 10;
    if (c.reasons.length <= max) return c;
    return { ...c, reasons: [...c.reasons.slice(0, max - 1), `and ${c.reasons.length - max + 1} more`] };
  }
}
