// Kubernetes IntOrString as Kruise uses it for step replicas and failureThreshold: an integer, or a
// percent string. Reading follows k8s `getIntOrPercentValueSafely` (strconv.Atoi of the part before
// "%"); the validation rules are Kruise's webhook rules, with a few stricter spellings called out below.
import type { IntOrPercent } from './types.ts';

export function isPercent(v: IntOrPercent | string): v is `${number}%` {
  return typeof v === 'string';
}

/**
 * The integer before "%", read the way Go's strconv.Atoi reads it (optional sign, decimal digits).
 * Null when `s` is not a percent k8s could scale ("50", "1.5%", "abc%").
 */
export function percentValue(s: string): number | null {
  const m = /^([+-]?\d+)%$/.exec(s);
  return m ? Number(m[1]) : null;
}

const WRITE_AS = 'an integer or a percent string such as "50%"';

/** Shared spelling checks for a percent; null when `s` is a canonical "<digits>%". */
export function percentSpellingProblem(s: string): string | null {
  if (!s.endsWith('%')) return `must be ${WRITE_AS} (a string needs "%")`;
  if (percentValue(s) === null) return `must be ${WRITE_AS} (a whole-number percent)`;
  // Kruise treats only the literal "100%" as "everything" (Deployment N−1 cap, last-step pause), so
  // "0100%" or "+50%" would silently behave differently from what they look like: reject them.
  if (!/^(0|[1-9]\d*)%$/.test(s)) return 'write the percent without sign or leading zeros, e.g. "50%"';
  return null;
}

/**
 * Why `v` is not a valid `steps[].replicas`, or null. Kruise: a percent needs 0% < r <= 100%, an int
 * must be > 0 (ints above the replica count are allowed and clamped later).
 */
export function replicasProblem(v: number | string): string | null {
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) return `must be ${WRITE_AS}`;
    return v > 0 ? null : 'must be > 0';
  }
  const spelling = percentSpellingProblem(v);
  if (spelling) return spelling;
  const p = percentValue(v) ?? 0;
  if (p <= 0) return 'must be > 0%';
  if (p > 100) return 'must be <= 100%';
  return null;
}

/**
 * Why `v` is not a valid `failureThreshold`, or null. It is the share of *updated* pods allowed to be
 * unready, so 0 .. 100% (or a non-negative pod count).
 */
export function thresholdProblem(v: number | string): string | null {
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) return `must be ${WRITE_AS}`;
    return v >= 0 ? null : 'must be >= 0';
  }
  const spelling = percentSpellingProblem(v);
  if (spelling) return spelling;
  const p = percentValue(v) ?? 0;
  return p <= 100 ? null : 'must be between 0% and 100%';
}

/** A workload's own IntOrString field as read from the cluster: an int, a percent k8s can scale, else `fallback`. */
export function asIntOrPercent(raw: unknown, fallback: IntOrPercent): IntOrPercent {
  if (typeof raw === 'number' && Number.isSafeInteger(raw)) return raw;
  if (typeof raw === 'string' && percentValue(raw) !== null) return raw as IntOrPercent;
  return fallback;
}
