// The one clock port: every component that reads the time takes a Clock, so tests and the
// reconcile pipeline can share one instant (a pass observes, plans and persists on the same clock).
// A leaf module: the rollout core, the drivers, the pipeline and the adapters all import it.

export interface Clock {
  now(): Date;
}

/** Wall-clock time. */
export const SYSTEM_CLOCK: Clock = Object.freeze({ now: () => new Date() });
