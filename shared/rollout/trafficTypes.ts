// The normalised form of Kruise v1beta1's traffic and rolling-style fields (api/v1beta1/rollout_types.go
// and trafficrouting.go of openkruise/rollouts): what a RolloutSpec carries once parseRollout has
// validated them. Pure data. How each provider turns them into objects is shared/traffic/; how the
// planner will use them is docs/traffic.md.

/**
 * How pods of the new revision come to exist (Kruise's GetRollingStyle):
 * - InPlace: the workload itself moves batch by batch (Kruise's "partition" style; for a Deployment our
 *   MinReadySeconds or Partition strategy). Also what Kruise does with enableExtraWorkloadForCanary on
 *   any kind but a Deployment (its IsRealPartition).
 * - CanaryWorkload: `enableExtraWorkloadForCanary: true` on a Deployment: a `<name>-canary` Deployment
 *   from the new template, scaled per step; the workload is updated only at the end.
 * - BlueGreen: `strategy.blueGreen` (Deployment and CloneSet): the new revision beside the old at full
 *   size, traffic switched by steps.
 */
export const ROLLING_STYLES = ['InPlace', 'CanaryWorkload', 'BlueGreen'] as const;
export type RollingStyle = (typeof ROLLING_STYLES)[number];

/**
 * The ingress controllers an `ingress.classType` may name. Kruise's default is nginx (its Lua script
 * writes ingress-nginx canary annotations); aws-alb is ours: the AWS Load Balancer Controller's
 * weighted forward action, as Argo Rollouts' ALB router writes it (Kruise has no AWS provider).
 */
export const INGRESS_CLASS_TYPES = ['nginx', 'aws-alb'] as const;
export type IngressClassType = (typeof INGRESS_CLASS_TYPES)[number];

/** Where the weights and matches are written: one object of one provider. */
export type TrafficProvider =
  | { type: 'gateway'; httpRouteName: string }
  | { type: 'ingress'; classType: IngressClassType; name: string };

/** `trafficRoutings[0]` (Kruise accepts exactly one). */
export interface TrafficRouting {
  /** The stable Service; the canary Service is `<service>-canary` (shared/traffic/services.ts). */
  service: string;
  /** How long each routing or Service change is given to reach the proxy before the step goes on (Kruise default 3). */
  gracePeriodSeconds: number;
  provider: TrafficProvider;
}

/** Gateway API HTTPHeaderMatch / HTTPQueryParamMatch (Kruise embeds the v1beta1 types). */
export interface ValueMatch {
  type: 'Exact' | 'RegularExpression';
  name: string;
  value: string;
}

export interface PathMatch {
  type: 'Exact' | 'PathPrefix' | 'RegularExpression';
  value: string;
}

/** One Kruise HttpRouteMatch: every part must hold (AND); a step's matches are alternatives (OR). */
export interface RouteMatch {
  path?: PathMatch;
  headers: ValueMatch[];
  queryParams: ValueMatch[];
}

/** Gateway API HTTPHeaderFilter, applied to requests the canary receives. */
export interface HeaderModifier {
  set: { name: string; value: string }[];
  add: { name: string; value: string }[];
  remove: string[];
}

/**
 * What one step asks of the router. Kruise: a step with neither `traffic` nor `matches` puts the
 * original routing back (rollout_canary.go runs FinalisingTrafficRouting), so it has no StepTraffic.
 */
export interface StepTraffic {
  /** Percent of requests sent to the canary, 0–100; null when the step only matches. */
  weight: number | null;
  /** Requests matching any of these go to the canary; they take precedence over the weight. */
  matches: RouteMatch[];
  requestHeaderModifier: HeaderModifier | null;
}

/** `patchPodTemplateMetadata`: merged into the canary Deployment's pod template (CanaryWorkload only). */
export interface PodTemplateMetadataPatch {
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/**
 * What the reconcile read of the router and the two Services, as the planner needs it (absent from
 * the view without trafficRoutings). Level-based: everything here is read from the objects
 * themselves, so a pass after a crash or a lost STATE sees the same.
 */
export interface TrafficView {
  /** The router object, for reasons: "httproute/web", "ingress/web". */
  router: string;
  /** The pod label the Services tell revisions apart by (pod-template-hash for a Deployment). */
  revisionLabel: string;
  /** That label's value per revision id, for the revisions whose pods are known to carry one. */
  revisionValues: Record<string, string>;
  /** trafficKey() of each routing the router already carries with nothing left to write (of null and the steps'). */
  converged: string[];
  /** trafficKey() → why that routing is written but not live yet (a Gateway that has not accepted it). */
  pending: Record<string, string>;
  /** The label value our narrowing put on the stable Service's selector; null when it carries none of ours. */
  stableNarrowedTo: string | null;
  /** The label value the `<service>-canary` Service (ours) selects; null when there is none. */
  canarySelects: string | null;
  /** Why the router or the Services cannot carry the routing, naming the object; null when they can. */
  problem: string | null;
}

/** A canonical name of what a step asks of the router; 'original' for the user's own routing. */
export function trafficKey(traffic: StepTraffic | null): string {
  return traffic === null ? 'original' : JSON.stringify(traffic);
}

/** For people: "10%", "matches x-canary=yes", "the original routing". */
export function describeTraffic(traffic: StepTraffic | null): string {
  if (traffic === null) return 'the original routing';
  const parts: string[] = [];
  if (traffic.weight !== null) parts.push(`${traffic.weight}%`);
  if (traffic.matches.length > 0) {
    const one = (m: RouteMatch): string => [
      ...(m.path ? [`path ${m.path.value}`] : []),
      ...m.headers.map((h) => `${h.name}${h.type === 'Exact' ? '=' : '~'}${h.value}`),
      ...m.queryParams.map((q) => `?${q.name}${q.type === 'Exact' ? '=' : '~'}${q.value}`),
    ].join(' and ');
    parts.push(`matches ${traffic.matches.map(one).join(' or ')}`);
  }
  return parts.join(', ');
}
