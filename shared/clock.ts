// The wall clock: the one implementation of the Clock port (shared/ports.ts) that reads the time.
// Only composition roots hand it out (adapters may default to it); everything else is given a
// Clock or an instant, so tests and a reconcile pass share one `now`. Lint bans new Date() and
// Date.now() elsewhere in the product (eslint.config.js).
import type { Clock } from './ports.ts';

/** Wall-clock time. */
export const SYSTEM_CLOCK: Clock = Object.freeze({ now: () => new Date() });
