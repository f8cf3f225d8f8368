// The soak's sizes: the default of `npm run soak` (≤ 30 minutes on 2 cores; the README's figures
// are from a run at exactly this size) and the smoke run inside npm test.
import type { SoakOptions } from './testbed/soak/soak.ts';

export type SoakSize = Omit<SoakOptions, 'log' | 'serveLog'>;

export const DEFAULT_SOAK: SoakSize = {
  seed: 1313, rollouts: 24, chaosMs: 17 * 60_000, kills: 24, outageAtMs: 5 * 60_000, outageMs: 5 * 60_000, faultRate: 0.1,
};

/** The size of the smoke run in npm test (test/integration/soak.smoke.test.ts). */
export const SMOKE_SOAK: SoakSize = {
  seed: 7, rollouts: 3, chaosMs: 70_000, kills: 2, outageAtMs: 20_000, outageMs: 15_000, faultRate: 0.1,
};
