// `serve --clusters N`: how many sandbox clusters local mode may start (shared/local/sandboxFleet.ts).
// Apart from the fleet sandbox itself, so the CLI checks the option without loading local mode.

/** Three planes already take most of two cores; five is where one machine stops being honest. */
export const MAX_SANDBOX_CLUSTERS = 5;

/** A --clusters value: a whole number from 1 to MAX_SANDBOX_CLUSTERS, or the reason it is not. */
export function parseClusterCount(value: string): number | string {
  if (!/^\d+$/.test(value.trim())) return `--clusters must be a whole number from 1 to ${MAX_SANDBOX_CLUSTERS}, not "${value}"`;
  const n = Number(value.trim());
  if (n < 1 || n > MAX_SANDBOX_CLUSTERS) return `--clusters must be a whole number from 1 to ${MAX_SANDBOX_CLUSTERS} (each cluster is a control plane on this machine), not ${n}`;
  return n;
}
