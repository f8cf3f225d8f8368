// The Gateway API HTTPRoute rules a step asks for, ported from Kruise's gateway provider
// (pkg/trafficrouting/network/gateway/gateway.go of openkruise/rollouts): weights on the rules that
// route to the stable Service (stable 100−w, canary w), or, for matches, one extra rule per stable
// rule that sends matching requests to the canary Service alone. Pure functions of the route as the
// user wrote it; how we get back to that route from a live one is in httpRoute.ts.
import type { StepTraffic } from '../../rollout/trafficTypes.ts';
import type { HeaderModifier, RouteMatch } from '../../rollout/trafficTypes.ts';
import { isRecord } from '../../json.ts';
import { TrafficObjectError } from '../provider.ts';

export type Json = Record<string, unknown>;

/** Gateway API's limits on one HTTPRoute (its CRD: 16 rules, fewer than 128 matches in all). */
const MAX_RULES = 16;
const MAX_MATCHES = 127;
/** An HTTPRouteRule without matches matches every path (the CRD's default). */
const MATCH_ALL = { path: { type: 'PathPrefix', value: '/' } };

export interface ServicePair {
  stable: string;
  canary: string;
}

/** Whether a backendRef names this Service (kind and group default to Service and core, as the CRD defaults them). */
export function refersTo(ref: unknown, service: string): boolean {
  if (!isRecord(ref)) return false;
  const kind = ref.kind ?? 'Service';
  const group = ref.group ?? '';
  return kind === 'Service' && (group === '' || group === 'core') && ref.name === service && ref.namespace === undefined;
}

export function backendRefsOf(rule: Json): Json[] {
  return Array.isArray(rule.backendRefs) ? (rule.backendRefs as Json[]) : [];
}

/** A rule we added for matches: every backend is the canary Service. */
export function isCanaryRule(rule: Json, services: ServicePair): boolean {
  const refs = backendRefsOf(rule);
  return refs.length > 0 && refs.every((ref) => refersTo(ref, services.canary));
}

/** Weights: stable 100−w and canary w on every rule that routes to the stable Service (Kruise's generateCanaryWeight). */
function weightedRules(rules: readonly Json[], services: ServicePair, weight: number): Json[] {
  return rules.map((rule) => {
    const refs = backendRefsOf(rule);
    const stableAt = refs.findIndex((ref) => refersTo(ref, services.stable));
    if (stableAt < 0) return rule;
    const stableRef = refs[stableAt] as Json;
    const out = refs.map((ref, i) => (i === stableAt ? { ...ref, weight: 100 - weight } : ref));
    // Kruise appends the canary backend as a copy of the stable one, renamed.
    out.push({ ...structuredClone(stableRef), name: services.canary, weight });
    return { ...rule, backendRefs: out };
  });
}

function headerModifierFilter(modifier: HeaderModifier): Json {
  const filter: Json = {};
  if (modifier.set.length > 0) filter.set = modifier.set;
  if (modifier.add.length > 0) filter.add = modifier.add;
  if (modifier.remove.length > 0) filter.remove = modifier.remove;
  return { type: 'RequestHeaderModifier', requestHeaderModifier: filter };
}

/**
 * The canary's matches for one stable rule: each of the rule's own matches combined (AND) with each
 * step match that has no path; a step match with a path stands alone and goes on the first stable
 * rule only. Kruise's buildCanaryHeaderHttpRoutes indexes the path-less matches by their position in
 * the whole list (`matches[k]`), which mixes them up when a path match comes first; this uses the
 * path-less list itself.
 */
function canaryMatches(ruleMatches: readonly Json[], stepMatches: readonly RouteMatch[], withPaths: boolean): Json[] {
  const out: Json[] = [];
  if (withPaths) {
    for (const m of stepMatches.filter((s) => s.path)) out.push(gatewayMatch(m));
  }
  for (const base of ruleMatches) {
    for (const m of stepMatches.filter((s) => !s.path)) {
      const combined: Json = { ...structuredClone(base) };
      if (m.headers.length > 0) combined.headers = [...(Array.isArray(base.headers) ? base.headers : []), ...m.headers];
      if (m.queryParams.length > 0) combined.queryParams = [...(Array.isArray(base.queryParams) ? base.queryParams : []), ...m.queryParams];
      out.push(combined);
    }
  }
  return out;
}

function gatewayMatch(m: RouteMatch): Json {
  return {
    ...(m.path ? { path: { ...m.path } } : {}),
    ...(m.headers.length > 0 ? { headers: m.headers } : {}),
    ...(m.queryParams.length > 0 ? { queryParams: m.queryParams } : {}),
  };
}

/** The user's rules, then one canary rule per stable rule with the step's matches (Kruise's A/B testing). */
function matchedRules(rules: readonly Json[], services: ServicePair, traffic: StepTraffic): Json[] {
  const canaries: Json[] = [];
  let pathsPlaced = false;
  for (const rule of rules) {
    const stableRef = backendRefsOf(rule).find((ref) => refersTo(ref, services.stable));
    if (!stableRef) continue;
    const ruleMatches = Array.isArray(rule.matches) && rule.matches.length > 0 ? (rule.matches as Json[]) : [MATCH_ALL];
    const matches = canaryMatches(ruleMatches, traffic.matches, !pathsPlaced);
    pathsPlaced = true;
    if (matches.length === 0) continue;
    // A copy of the stable rule (its filters and timeouts) but its name, which must stay unique in the route.
    const { name: _name, ...copy } = structuredClone(rule);
    const filters = Array.isArray(copy.filters) ? [...(copy.filters as Json[])] : [];
    if (traffic.requestHeaderModifier) {
      if (filters.some((f) => f.type === 'RequestHeaderModifier')) {
        throw new TrafficObjectError('the HTTPRoute rule that routes to the stable Service already has a RequestHeaderModifier filter; Gateway API allows one per rule, so requestHeaderModifier cannot be added');
      }
      filters.push(headerModifierFilter(traffic.requestHeaderModifier));
    }
    canaries.push({
      ...copy,
      ...(filters.length > 0 ? { filters } : {}),
      matches,
      backendRefs: [{ ...structuredClone(stableRef), name: services.canary }],
    });
  }
  return [...rules, ...canaries];
}

/** The rules for a step, from the user's own rules; matches take precedence over the weight (Kruise). */
export function stepRules(original: readonly Json[], services: ServicePair, traffic: StepTraffic | null): Json[] {
  let rules: Json[];
  if (traffic === null) rules = [...original];
  else if (traffic.matches.length > 0) rules = matchedRules(original, services, traffic);
  else rules = weightedRules(original, services, traffic.weight ?? 0);
  const matches = rules.reduce((n, r) => n + (Array.isArray(r.matches) ? r.matches.length : 1), 0);
  if (rules.length > MAX_RULES || matches > MAX_MATCHES) {
    throw new TrafficObjectError(
      `the HTTPRoute would have ${rules.length} rules and ${matches} matches with the step's canary rules, over Gateway API's limits (${MAX_RULES} rules, ${MAX_MATCHES} matches); split the route or use fewer matches`,
    );
  }
  return rules;
}
