// Which request gets which fault, decided by a seeded PRNG (pure-rand's xoroshiro128+), so a run
// with the same seed and the same request order injects the same faults: a failure replays from
// its seed. Probabilities are per verb and per fault kind; at most one fault per request, drawn in
// the order the kinds are listed. Counts every request and every fault for the soak's summary.
import { seededFloats } from './prng.ts';

export type FaultTable<Verb extends string, Kind extends string> = Partial<Record<Verb, Partial<Record<Kind, number>>>>;

export class FaultPlan<Verb extends string, Kind extends string> {
  private readonly next: () => number;
  private enabled = true;
  readonly requests = new Map<Verb, number>();
  readonly faults = new Map<Kind, number>();

  constructor(seed: number, private table: FaultTable<Verb, Kind>) {
    this.next = seededFloats(seed);
  }

  /** The fault for one request of `verb`, or null to pass it through untouched. */
  draw(verb: Verb): Kind | null {
    this.requests.set(verb, (this.requests.get(verb) ?? 0) + 1);
    const odds = this.table[verb];
    if (!this.enabled || !odds) return null;
    const roll = this.next();
    let acc = 0;
    for (const [kind, p] of Object.entries(odds) as [Kind, number][]) {
      acc += p;
      if (roll < acc) {
        this.faults.set(kind, (this.faults.get(kind) ?? 0) + 1);
        return kind;
      }
    }
    return null;
  }

  /** A number in [0, 1) from the same stream (delays, cut times). */
  random(): number {
    return this.next();
  }

  /** Faults off (set-up, final checks) or on again; requests are still counted. */
  setEnabled(on: boolean): void {
    this.enabled = on;
  }

  setTable(table: FaultTable<Verb, Kind>): void {
    this.table = table;
  }

  totalRequests(): number {
    return [...this.requests.values()].reduce((a, b) => a + b, 0);
  }

  totalFaults(): number {
    return [...this.faults.values()].reduce((a, b) => a + b, 0);
  }

  summary(): { requests: Record<string, number>; faults: Record<string, number> } {
    return { requests: Object.fromEntries(this.requests), faults: Object.fromEntries(this.faults) };
  }
}
