// A seeded pseudo-random stream on pure-rand (a well-kept PRNG library, fast-check's own): the same
// seed always gives the same numbers, so a soak's random choices and injected faults replay.
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

/** Floats in [0, 1) from a seed. The first outputs of a small seed are poorly mixed, so a few are skipped. */
export function seededFloats(seed: number): () => number {
  const rng = xoroshiro128plus(seed);
  for (let i = 0; i < 8; i += 1) uniformFloat64(rng);
  return () => uniformFloat64(rng);
}

/** Seeded random choices. */
export class Random {
  private readonly next: () => number;
  constructor(readonly seed: number) {
    this.next = seededFloats(seed);
  }

  float(): number {
    return this.next();
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** A key of `weights` with probability proportional to its weight. */
  weighted<K extends string>(weights: Record<K, number>): K {
    const entries = Object.entries(weights) as [K, number][];
    const total = entries.reduce((a, [, w]) => a + w, 0);
    let roll = this.next() * total;
    for (const [k, w] of entries) {
      roll -= w;
      if (roll < 0) return k;
    }
    return (entries[entries.length - 1] as [K, number])[0];
  }
}
