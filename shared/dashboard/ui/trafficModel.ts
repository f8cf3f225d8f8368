// What the rollout page shows of a Rollout with trafficRoutings (issue 25: the traffic next to the
// replica counts; a step waiting on its router names it). Pure: the spec, the stored state and the
// router as the API's workload route read it (WorkloadTraffic, shared/api/workloadRoutes.ts: the
// reconcile's own trafficView) in, words out. The same facts `rollouts get` (shared/cli/views/stepList.ts)
// and the events "Traffic Shifted"/"Traffic Restored" (shared/rollout/routing.ts) give; nothing here
// guesses the weight from the step: it is what the router carries when the API read it.
import type { WorkloadTraffic } from '../../api/workloadRoutes.ts';
import { secondsLeft } from '../../client/progress.ts';
import { describeTraffic, trafficKey, type StepTraffic, type TrafficRouting } from '../../rollout/trafficTypes.ts';
import type { ReleaseState, RolloutSpec, Step } from '../../rollout/types.ts';

/** A step's routing, in `rollouts get`'s words: "20%", "matches x-canary=yes", "original" (none: the user's own). */
export function stepTrafficText(step: Step): string {
  return step.traffic ? describeTraffic(step.traffic) : 'original';
}

/** The object the weights are written to, as the reconcile names it in reasons: "httproute/web", "ingress/web". */
export function routerName(routing: TrafficRouting): string {
  return routing.provider.type === 'gateway' ? `httproute/${routing.provider.httpRouteName}` : `ingress/${routing.provider.name}`;
}

/** Who turns that object into routing (docs/traffic.md, "The providers"). */
export function providerName(routing: TrafficRouting): string {
  if (routing.provider.type === 'gateway') return 'Gateway API';
  return routing.provider.classType === 'aws-alb' ? 'AWS Load Balancer Controller' : 'ingress-nginx';
}

export interface RoutingNow {
  /** "20% to the canary", "the original routing (nothing to the canary)", or why it is not known. */
  text: string;
  /** The canary's percent of requests: 0 on the original routing, null for matches only or when not known. */
  weight: number | null;
  /** The 1-based steps that ask for this routing (none for the original one). */
  steps: number[];
  /** Written to the router but not live yet, in the provider's words (a Gateway that has not accepted it); null otherwise. */
  pending: string | null;
}

export interface TrafficPanel {
  router: string;
  provider: string;
  /** "service/web, canary service/web-canary". */
  services: string;
  gracePeriodSeconds: number;
  now: RoutingNow;
  /** The router cannot carry the routing (the rollout is Degraded with it): the reconcile's words. */
  problem: string | null;
  /** The current step (or the hand-back) waits on its router: what for, and the grace period left. */
  waiting: { text: string; graceLeftSeconds: number | null } | null;
}

/** null for a Rollout without trafficRoutings. `traffic` is the workload response's; null when the workload could not be read. */
export function trafficPanel(spec: RolloutSpec, state: ReleaseState, traffic: WorkloadTraffic | null | undefined, now: Date): TrafficPanel | null {
  const routing = spec.trafficRouting;
  if (!routing) return null;
  const view = traffic?.view ?? null;
  return {
    router: view?.router ?? routerName(routing),
    provider: providerName(routing),
    services: `service/${routing.service}, canary service/${routing.service}-canary`,
    gracePeriodSeconds: routing.gracePeriodSeconds,
    now: routingNow(spec, state, traffic),
    problem: view?.problem ?? null,
    waiting: waiting(routing, state, now),
  };
}

function routingNow(spec: RolloutSpec, state: ReleaseState, traffic: WorkloadTraffic | null | undefined): RoutingNow {
  const unknown = (text: string): RoutingNow => ({ text, weight: null, steps: [], pending: null });
  if (!traffic) return unknown('not known: the workload could not be read');
  const view = traffic.view;
  if (!view) return unknown(`not known: ${traffic.error ?? 'the router was not read'}`);
  if (view.problem !== null) return unknown(`not known: ${view.problem}`);
  // Routings the spec may ask for, the user's own first (shared/reconcile/traffic.ts reads the same).
  const candidates: { key: string; traffic: StepTraffic | null }[] = [
    { key: trafficKey(null), traffic: null },
    ...spec.steps.flatMap((s) => (s.traffic ? [{ key: trafficKey(s.traffic), traffic: s.traffic }] : [])),
  ];
  const carried = candidates.filter((c) => view.converged.includes(c.key));
  // Two routings the router satisfies at once (a step asking what another asks): the current step's first.
  const current = state.release?.kind === 'release' ? spec.steps[state.release.stepIndex]?.traffic : undefined;
  const chosen = carried.find((c) => current !== undefined && c.key === trafficKey(current)) ?? carried.find((c) => c.traffic !== null) ?? carried[0];
  if (!chosen) return unknown('none of the spec\'s routings: a change is being written, or someone else changed the router');
  const steps = spec.steps.flatMap((s, i) => (s.traffic && trafficKey(s.traffic) === chosen.key ? [i + 1] : []));
  return {
    text: chosen.traffic === null ? 'the original routing (nothing to the canary)' : `${describeTraffic(chosen.traffic)} to the canary`,
    weight: chosen.traffic === null ? 0 : chosen.traffic.weight,
    steps,
    pending: view.pending[chosen.key] ?? null,
  };
}

/**
 * A Traffic cause is the planner's words for what the router lacks (shared/rollout/routing.ts
 * `wait`). The grace period counts from the last change asked of the router, `state.traffic.since`
 * (Kruise's LastUpdateTime + gracePeriodSeconds), so what is left of it is drawn here, as the
 * timed pause's countdown is drawn from its `until`.
 */
function waiting(routing: TrafficRouting, state: ReleaseState, now: Date): TrafficPanel['waiting'] {
  const cause = state.cause ?? null;
  if (cause?.kind !== 'Traffic') return null;
  const since = state.traffic?.since;
  const end = since ? new Date(Date.parse(since) + routing.gracePeriodSeconds * 1000).toISOString() : null;
  return { text: cause.detail, graceLeftSeconds: secondsLeft(end, now) };
}
