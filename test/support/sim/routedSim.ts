// The WorkloadSim with a router and the two Services beside it, used ONLY by planner unit tests: it
// carries out set-services, set-traffic and restore-services the way shared/reconcile/traffic.ts
// would (at once, level-based) and reports the TrafficView the reconcile would read, so property
// tests can check the routing orders over thousands of plans. Integration tests use Traefik.
import { trafficKey, type StepTraffic, type TrafficView } from '../../../shared/rollout/trafficTypes.ts';
import type { Action, WorkloadView } from '../../../shared/rollout/types.ts';
import { WorkloadSim } from './workloadSim.ts';

export const SIM_REVISION_LABEL = 'pod-template-hash';

/** The label value of a revision's pods in the simulator. */
export function labelOf(revision: string): string {
  return `h-${revision}`;
}

export class RoutedSim extends WorkloadSim {
  /** What the router sends: null = the user's own routing. */
  traffic: StepTraffic | null = null;
  stableNarrowedTo: string | null = null;
  canarySelects: string | null = null;
  /** Every routing action carried out, in order, with the revisions' desired pods at that moment. */
  readonly log: { action: Action; at: number }[] = [];
  /** Set by the test: the time of each applied action. */
  clock = 0;

  override view(): WorkloadView {
    const view = super.view();
    const traffic: TrafficView = {
      router: 'httproute/web',
      revisionLabel: SIM_REVISION_LABEL,
      // A ReplicaSet scaled to 0 keeps its label (revisionHistoryLimit): every revision the sim has made.
      revisionValues: Object.fromEntries(view.revisions.map((r) => [r.id, labelOf(r.id)])),
      converged: [trafficKey(this.traffic)],
      pending: {},
      stableNarrowedTo: this.stableNarrowedTo,
      canarySelects: this.canarySelects,
      problem: null,
    };
    return { ...view, traffic };
  }

  override apply(actions: Action[]): void {
    for (const a of actions) {
      if (a.type === 'set-services') {
        this.stableNarrowedTo = a.stable;
        if (a.canary !== null) this.canarySelects = a.canary;
      }
      if (a.type === 'set-traffic') this.traffic = a.traffic;
      if (a.type === 'restore-services') {
        this.stableNarrowedTo = null;
        this.canarySelects = null;
      }
      if (a.type === 'set-services' || a.type === 'set-traffic' || a.type === 'restore-services') this.log.push({ action: a, at: this.clock });
    }
    super.apply(actions);
  }

  /** The revision the canary Service selects, or null. */
  canaryRevision(): string | null {
    return this.revisions.find((r) => this.canarySelects !== null && labelOf(r.id) === this.canarySelects)?.id ?? null;
  }
}
