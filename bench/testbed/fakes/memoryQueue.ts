// In-memory ReconcileQueue for unit tests: records every request in order, and can be told to fail
// so the callers' handling of a lost enqueue can be checked.
import type { ReconcileQueue } from '../../../shared/ports.ts';
import { queueKeyString, type QueueKey } from '../../../shared/fleet/key.ts';

export interface Enqueued {
  key: QueueKey;
  delaySeconds: number;
  reason: string | undefined;
}

export class MemoryQueue implements ReconcileQueue {
  readonly sent: Enqueued[] = [];
  /** When set, enqueue throws this (nothing is recorded). */
  failWith: Error | null = null;

  async enqueue(key: QueueKey, opts: { delaySeconds?: number; reason?: string } = {}): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.sent.push({ key: { ...key }, delaySeconds: opts.delaySeconds ?? 0, reason: opts.reason });
  }

  /** "cluster/ns/name" (a fleet: "F#name") of every request, for compact assertions. */
  keys(): string[] {
    return this.sent.map((e) => queueKeyString(e.key));
  }

  clear(): void {
    this.sent.length = 0;
  }
}
