// Summaries of repeated measurements. p95 is nearest-rank (the smallest sample with at least 95% of
// the samples at or below it), so with 20 samples it is the 19th, never an interpolated value.

export interface Summary {
  unit: string;
  n: number;
  median: number;
  p95: number;
  min: number;
  max: number;
  mean: number;
}

export function summarize(values: readonly number[], unit: string, digits = 2): Summary {
  if (values.length === 0) return { unit, n: 0, median: NaN, p95: NaN, min: NaN, max: NaN, mean: NaN };
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  const rank = Math.max(1, Math.ceil(0.95 * sorted.length));
  const r = (n: number) => round(n, digits);
  return {
    unit,
    n: sorted.length,
    median: r(median),
    p95: r(sorted[rank - 1] as number),
    min: r(sorted[0] as number),
    max: r(sorted[sorted.length - 1] as number),
    mean: r(sorted.reduce((a, b) => a + b, 0) / sorted.length),
  };
}

/** A number with its unit, as every figure in the results file is written. */
export interface Quantity {
  value: number;
  unit: string;
}

export function q(value: number, unit: string, digits = 4): Quantity {
  return { value: round(value, digits), unit };
}

export function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** Sum of the values of an op → count map whose keys are in `ops`. */
export function sumOf(counts: Readonly<Record<string, number>>, ops: ReadonlySet<string>): number {
  return Object.entries(counts).filter(([op]) => ops.has(op)).reduce((n, [, k]) => n + k, 0);
}
