// Cost counters for one reconcile (or one benchmark run). Adapters count what they send; the
// benchmarks cross-check these against server-side counts (apiserver metrics, dynalite requests).

export type MeterKey = 'k8s.read' | 'k8s.write' | 'ddb.read' | 'ddb.write' | 'ddb.rcu' | 'ddb.wcu' | 'events.put' | 'queue.send';

export class Meter {
  private readonly counts = new Map<MeterKey, number>();

  add(key: MeterKey, n = 1): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + n);
  }

  get(key: MeterKey): number {
    return this.counts.get(key) ?? 0;
  }

  snapshot(): Record<MeterKey, number> {
    const keys: MeterKey[] = ['k8s.read', 'k8s.write', 'ddb.read', 'ddb.write', 'ddb.rcu', 'ddb.wcu', 'events.put', 'queue.send'];
    return Object.fromEntries(keys.map((k) => [k, this.get(k)])) as Record<MeterKey, number>;
  }
}

/** A meter that drops everything, for callers that do not measure. */
export const NO_METER = new Meter();
