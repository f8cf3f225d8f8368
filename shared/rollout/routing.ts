// Traffic routing within a release (docs/traffic.md, "Phase B"), after Kruise's runCanary and
// DoTrafficRouting/FinalisingTrafficRouting (pkg/controller/rollout/rollout_canary.go and
// pkg/trafficrouting/manager.go of openkruise/rollouts): which of set-services, set-traffic and
// restore-services a pass emits, and whether pods may move. Level-based on the view's TrafficView
// (what the reconcile read of the router and the Services), so any pass after any crash decides
// the same. Two rules make it safe when we are absent:
// - a step's weight is asked for only once its batch is Available (the caller's batchDone), and
//   only after the canary Service selects that revision's pods;
// - no pass that removes canary pods (a rollback, an undo, the final move, a replaced release, a
//   step without traffic, the hand-back) runs before the router is back on the user's routing,
//   the grace period has passed and the Services are restored: those passes emit the routing
//   actions only and move no pod.
import type { Draft } from './draft.ts';
import { EVENT } from './events.ts';
import { describeTraffic, trafficKey, type StepTraffic, type TrafficRouting, type TrafficView } from './trafficTypes.ts';
import type { Action, Release } from './types.ts';

/** While a routing change is being written or taken up by the proxy, look again this soon. */
const ROUTING_REQUEUE_SECONDS = 2;
export const ORIGINAL = trafficKey(null);
/** The grace record of a Services change: `services/<stable>/<canary>` (the weight waits for it). */
export const SERVICES_KEY = 'services/';

interface Routed {
  routing: TrafficRouting;
  view: TrafficView;
}

/** The routing and what the reconcile read of it; null when the Rollout does not route traffic. */
export function routedOf(d: Draft): Routed | null {
  const routing = d.spec.trafficRouting;
  const view = d.view.traffic;
  // A router that cannot carry the routing is the rollout's problem (Degraded, trafficProblems):
  // nothing is written to it; a deleted rollout still hands the workload back.
  return routing && view && view.problem === null ? { routing, view } : null;
}

/** The router cannot carry the routing (a missing route, a name taken by someone else): the rollout is Degraded with it. */
export function trafficProblems(d: Draft): string[] {
  const problem = d.spec.trafficRouting ? d.view.traffic?.problem ?? null : null;
  return problem === null ? [] : [problem];
}

/** The router and both Services are as the user had them (nothing of ours left on them). */
export function isOriginalRouting(view: TrafficView): boolean {
  return view.converged.includes(ORIGINAL) && view.stableNarrowedTo === null && view.canarySelects === null;
}

/**
 * Put the user's routing back: set-traffic(null), the grace period, then (with `services`)
 * restore-services. True once it is back, or without `services` once the router sends the canary
 * nothing (then its pods may be removed: the narrowed stable Service never selected them, so
 * removing them first and restoring the Services after is the safer order for a rollback); false
 * while this pass emitted a routing action or waits.
 */
export function restoreRouting(d: Draft, why: string, services = true): boolean {
  const routed = routedOf(d);
  if (!routed) return true;
  const { routing, view } = routed;
  if (!view.converged.includes(ORIGINAL)) {
    d.actions.push({ type: 'set-traffic', traffic: null, reason: why });
    asked(d, ORIGINAL);
    wait(d, view, `putting the original routing back (${why})`);
    return false;
  }
  if (view.stableNarrowedTo === null && view.canarySelects === null) return true;
  const pending = view.pending[ORIGINAL];
  if (pending !== undefined) {
    wait(d, view, pending);
    return false;
  }
  if (!graceOver(d, routing, view, ORIGINAL)) return false;
  if (!services) return true;
  d.actions.push({ type: 'restore-services' });
  d.emit(EVENT.TrafficRestored, `${view.router} is back on the original routing; Service ${routing.service} restored, ${routing.service}-canary removed (${why})`);
  wait(d, view, `restoring Service ${routing.service} and removing ${routing.service}-canary`);
  return false;
}

/**
 * Before a step's batch moves pods. A canary Service on a revision this release does not roll out
 * (a release replaced mid-way, whose pods the batch removes) and a step without traffic put the
 * user's routing back first (Kruise finalises traffic routing there); a step with traffic narrows the
 * stable Service to the stable pods, so that new pods never take the user's traffic through it
 * (Kruise's PatchStableService). True when the batch may move.
 */
export function routeBeforeMoves(d: Draft, rel: Release, traffic: StepTraffic | undefined): boolean {
  const routed = routedOf(d);
  if (!routed) return true;
  const { routing, view } = routed;
  const canary = view.revisionValues[rel.targetRevision];
  if (view.canarySelects !== null && view.canarySelects !== canary) {
    // Its pods go with this batch: the router first stops sending them requests; the canary Service
    // follows the new revision once its batch is Available.
    if (!restoreRouting(d, `Service ${routing.service}-canary selects pods this release replaces`, false)) return false;
  }
  if (traffic === undefined) return restoreRouting(d, `step ${rel.stepIndex + 1} has no traffic`);
  const stable = view.revisionValues[rel.stableRevision];
  if (stable === undefined) {
    wait(d, view, `no pod of the stable revision ${rel.stableRevision} carries the label ${view.revisionLabel} to narrow Service ${routing.service} to`);
    return false;
  }
  if (view.stableNarrowedTo === stable) return true;
  d.actions.push({ type: 'set-services', label: view.revisionLabel, stable, canary: null });
  asked(d, `${SERVICES_KEY}${stable}/`);
  wait(d, view, `narrowing Service ${routing.service} to the stable pods (${view.revisionLabel}=${stable})`);
  return false;
}

/**
 * A step whose batch is Available: the canary Service onto the batch's pods, the grace period, the
 * step's traffic, the router's own acceptance and the grace period again. True once the traffic is
 * live; the step's gates and pause count from then (Kruise).
 */
export function routeStep(d: Draft, rel: Release, traffic: StepTraffic): boolean {
  const routed = routedOf(d);
  if (!routed) return true;
  const { routing, view } = routed;
  const stable = view.revisionValues[rel.stableRevision];
  const canary = view.revisionValues[rel.targetRevision];
  if (stable === undefined || canary === undefined) {
    const which = stable === undefined ? `the stable revision ${rel.stableRevision}` : `the new revision ${rel.targetRevision}`;
    wait(d, view, `no pod of ${which} carries the label ${view.revisionLabel} yet`);
    return false;
  }
  if (view.stableNarrowedTo !== stable || view.canarySelects !== canary) {
    d.actions.push({ type: 'set-services', label: view.revisionLabel, stable, canary });
    asked(d, `${SERVICES_KEY}${stable}/${canary}`);
    wait(d, view, `pointing Service ${routing.service}-canary at the new pods (${view.revisionLabel}=${canary})`);
    return false;
  }
  const key = trafficKey(traffic);
  const what = describeTraffic(traffic);
  if (!view.converged.includes(key)) {
    // The Services just changed: their endpoints reach the proxy within the grace period (Kruise waits it too).
    const last = d.state.traffic;
    if (last?.key.startsWith(SERVICES_KEY) && !graceOver(d, routing, view, last.key)) return false;
    d.actions.push({ type: 'set-traffic', traffic, reason: `step ${rel.stepIndex + 1}: ${what}` });
    asked(d, key);
    wait(d, view, `setting ${what} to the canary`);
    return false;
  }
  const pending = view.pending[key];
  if (pending !== undefined) {
    wait(d, view, pending);
    return false;
  }
  if (!graceOver(d, routing, view, key)) return false;
  d.emit(EVENT.TrafficShifted, `step ${rel.stepIndex + 1}: ${view.router} sends ${what} to Service ${routing.service}-canary`);
  return true;
}

/** Record that this pass asks the router (or the Services) for `key`: the grace period counts from now. */
export function asked(d: Draft, key: string): void {
  d.state.traffic = { key, since: d.now.toISOString() };
  d.requeue(ROUTING_REQUEUE_SECONDS);
}

/**
 * gracePeriodSeconds since we asked for `key` (Kruise: LastUpdateTime + gracePeriodSeconds). A
 * change we have no record of (a lost STATE, or one made by another pass whose STATE write lost)
 * counts from now: a longer wait, never a shorter one.
 */
export function graceOver(d: Draft, routing: TrafficRouting, view: TrafficView, key: string): boolean {
  const s = d.state;
  if (s.traffic?.key !== key) s.traffic = { key, since: d.now.toISOString() };
  const until = Date.parse(s.traffic?.since ?? d.now.toISOString()) + routing.gracePeriodSeconds * 1000;
  if (d.now.getTime() >= until) return true;
  d.wakeAt(new Date(until));
  wait(d, view, `waiting ${routing.gracePeriodSeconds}s (gracePeriodSeconds) for the change to reach the proxy`);
  return false;
}

export function wait(d: Draft, view: TrafficView, text: string): void {
  d.waiting = { kind: 'Traffic', object: view.router, text: `${view.router}: ${text}` };
  d.requeue(ROUTING_REQUEUE_SECONDS);
}

/** set-services, set-traffic and restore-services: what shared/reconcile/traffic.ts applies, not the driver. */
export function isRoutingAction(a: Action): boolean {
  return a.type === 'set-services' || a.type === 'set-traffic' || a.type === 'restore-services';
}
