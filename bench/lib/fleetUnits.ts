// The units of one fleet release (bench/fleetRelease.ts): what each release's window held, less
// what the stack does at rest in as long (a quiet window's rate), averaged over the releases.
import type { ServeUnits } from './serveLines.ts';
import { round } from './stats.ts';

/** Serve's lines and dynalite's counts over one window. */
export interface WindowUnits {
  ms: number;
  serve: ServeUnits;
  dynamodb: { requests: Record<string, number>; capacity: Record<string, number> };
}

/** Units of one fleet release (means over the measured releases), the rate at rest already taken off. */
export interface FleetReleaseUnits {
  releaseMs: number;
  reconciles: { fleet: number; member: number; byReason: Record<string, number> };
  events: { rollout: number; fleet: number };
  dynamodb: { requests: Record<string, number>; capacity: Record<string, number> };
}

/** The mean over the releases of each window's units less the baseline's rate over as long, never below 0. */
export function meanUnits(windows: readonly WindowUnits[], baseline: WindowUnits, releaseMs: readonly number[]): FleetReleaseUnits {
  const n = windows.length;
  const net = (get: (w: WindowUnits) => number) => round(windows.reduce((sum, w) => sum + Math.max(0, get(w) - (get(baseline) * w.ms) / baseline.ms), 0) / n, 2);
  const keys = (get: (w: WindowUnits) => Record<string, number>) => [...new Set([...windows, baseline].flatMap((w) => Object.keys(get(w))))].sort();
  const map = (get: (w: WindowUnits) => Record<string, number>) => Object.fromEntries(keys(get).map((k) => [k, net((w) => get(w)[k] ?? 0)]));
  return {
    releaseMs: round(releaseMs.reduce((a, b) => a + b, 0) / Math.max(1, releaseMs.length), 0),
    reconciles: { fleet: net((w) => w.serve.reconciles.fleet), member: net((w) => w.serve.reconciles.member), byReason: map((w) => w.serve.reconciles.byReason) },
    events: { rollout: net((w) => w.serve.events.rollout), fleet: net((w) => w.serve.events.fleet) },
    dynamodb: { requests: map((w) => w.dynamodb.requests), capacity: map((w) => w.dynamodb.capacity) },
  };
}

