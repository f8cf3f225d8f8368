// What one reconcile pass is given: the ports it reaches the world through, the drivers of the
// kinds it can release, and the test seams. Built by the composition roots (shared/app/lambdaDeps.ts,
// shared/local/localMode.ts) and the test engine.
import type { Meter } from '../meter.ts';
import type { CallRunner, Clock, ClusterProvider, EventPublisher, ReconcileQueue, StateStore } from '../ports.ts';
import type { WorkloadKind } from '../rollout/types.ts';
import type { WorkloadDriver } from '../workloads/driver.ts';

export interface ReconcileDeps {
  store: StateStore;
  clusters: ClusterProvider;
  drivers: Partial<Record<WorkloadKind, WorkloadDriver>>;
  events: EventPublisher;
  clock: Clock;
  /** Counts requests of this pass; the adapters must have been built with the same meter. */
  meter?: Meter;
  /**
   * Where a pass asks for other keys' passes: a member's transition enqueues its fleet, a fleet pass
   * enqueues the members it sent commands to or changed. Without it they wait for the sweep.
   */
  queue?: ReconcileQueue;
  /** Makes hook and gate calls (shared/adapters/checks); a Rollout with hooks or gates needs it. */
  calls?: CallRunner;
  /**
   * Test hook: called (and awaited) at each crash point: 'observed', 'wrote:<i>', 'before-persist',
   * 'after-persist', and around hook and gate calls 'calls-started', 'called', 'calls-recorded'. Throwing simulates the process dying there; awaiting lets a test act as a
   * concurrent writer at exactly that moment (bump a resourceVersion, record a command).
   */
  crashPoint?: (point: string) => void | Promise<void>;
}
