// The Gateway API provider: one HTTPRoute in the Rollout's namespace, named by
// trafficRoutings[0].gateway.httpRouteName, whose rules route to the stable Service. Each pass
// computes the step's rules from the route as the user wrote it, so the result never depends on
// what an earlier step (or a crashed pass) left: the user's route is the live one with our canary
// rules and canary backends taken out and the stable weights we replaced put back, which an
// annotation on the route records the first time we change it.
import type { FieldIssue } from '../../errors.ts';
import type { KubeObject, KubeWrite, ObjectRef } from '../../kube/types.ts';
import { isRecord } from '../../json.ts';
import type { StepTraffic, TrafficRouting } from '../../rollout/trafficTypes.ts';
import type { RolloutSpec } from '../../rollout/types.ts';
import { mergePatchDiff } from '../../workloads/common/mergePatch.ts';
import { canonicalJson } from '../../workloads/common/objects.ts';
import { ANNOTATION_PREFIX, TrafficObjectError, canaryServiceName, refOf, type RouterObservation, type RouterPlan, type TrafficProviderUnit } from '../provider.ts';
import { backendRefsOf, isCanaryRule, refersTo, stepRules, type Json, type ServicePair } from './httpRouteRules.ts';

export const HTTP_ROUTE = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', resource: 'httproutes' } as const;
/**
 * On the route while it carries a release's routing: the weight each rule's stable backend had
 * before (JSON: rule index → weight, or null when it had none). Its presence is also the mark that
 * the route has changes of ours to take out.
 */
export const ORIGINAL_WEIGHTS_ANNOTATION = `${ANNOTATION_PREFIX}/original-weights`;

function rulesOf(route: KubeObject): Json[] {
  const rules = route.spec?.rules;
  return Array.isArray(rules) ? (rules as Json[]) : [];
}

function servicesOf(routing: TrafficRouting): ServicePair {
  return { stable: routing.service, canary: canaryServiceName(routing) };
}

type Weights = Record<string, number | null>;

/** The stable backends' weights of the user's rules, by rule index (only rules that route to the stable Service). */
function stableWeights(rules: readonly Json[], services: ServicePair): Weights {
  const out: Weights = {};
  rules.forEach((rule, i) => {
    const ref = backendRefsOf(rule).find((r) => refersTo(r, services.stable));
    if (ref) out[String(i)] = typeof ref.weight === 'number' ? ref.weight : null;
  });
  return out;
}

/** The route's rules as the user wrote them: our canary rules and backends out, the recorded stable weights back. */
export function originalRules(route: KubeObject, services: ServicePair): Json[] {
  const recorded = route.metadata.annotations?.[ORIGINAL_WEIGHTS_ANNOTATION];
  const weights: Weights = recorded === undefined ? {} : (JSON.parse(recorded) as Weights);
  return rulesOf(route)
    .filter((rule) => !isCanaryRule(rule, services))
    .map((rule, i) => {
      const refs = backendRefsOf(rule);
      if (refs.length === 0) return rule;
      const kept = refs.filter((ref) => !refersTo(ref, services.canary)).map((ref) => {
        if (!refersTo(ref, services.stable) || !(String(i) in weights)) return ref;
        const { weight: _weight, ...rest } = ref;
        const original = weights[String(i)];
        return original === null || original === undefined ? rest : { ...rest, weight: original };
      });
      return { ...rule, backendRefs: kept };
    });
}

/** The route a step asks for: rules, and the annotation that records what we replaced while they are ours. */
export function desiredRoute(route: KubeObject, routing: TrafficRouting, traffic: StepTraffic | null): KubeObject {
  const services = servicesOf(routing);
  const original = originalRules(route, services);
  if (!original.some((rule) => backendRefsOf(rule).some((ref) => refersTo(ref, services.stable)))) {
    throw new TrafficObjectError(`HTTPRoute ${route.metadata.name} has no rule with a backendRef to Service ${services.stable}; the release has no traffic to shift`);
  }
  const annotations = { ...(route.metadata.annotations ?? {}) };
  if (traffic === null) delete annotations[ORIGINAL_WEIGHTS_ANNOTATION];
  else annotations[ORIGINAL_WEIGHTS_ANNOTATION] ??= JSON.stringify(stableWeights(original, services));
  const metadata = { ...route.metadata, annotations };
  if (Object.keys(annotations).length === 0) delete (metadata as { annotations?: unknown }).annotations;
  return { ...route, metadata, spec: { ...route.spec, rules: stepRules(original, services, traffic) } };
}

/**
 * Whether every Gateway the route is attached to has accepted its current generation (each parent's
 * Accepted condition, with observedGeneration); a reason naming the first that has not, else null.
 */
export function routePending(route: KubeObject): string | null {
  const generation = route.metadata.generation ?? 0;
  const parents = isRecord(route.status) && Array.isArray(route.status.parents) ? (route.status.parents as Json[]) : [];
  if (parents.length === 0) return `HTTPRoute ${route.metadata.name}: no Gateway has accepted it yet`;
  for (const parent of parents) {
    const conditions = Array.isArray(parent.conditions) ? (parent.conditions as Json[]) : [];
    const accepted = conditions.find((c) => c.type === 'Accepted');
    const name = isRecord(parent.parentRef) ? String(parent.parentRef.name) : '?';
    if (!accepted || accepted.status !== 'True' || (typeof accepted.observedGeneration === 'number' && accepted.observedGeneration < generation)) {
      return `HTTPRoute ${route.metadata.name}: Gateway ${name} has not accepted generation ${generation} yet`;
    }
  }
  return null;
}

function routeWrites(route: KubeObject, desired: KubeObject, namespace: string, what: string): KubeWrite[] {
  const before = { annotations: route.metadata.annotations ?? {}, rules: rulesOf(route) };
  const after = { annotations: desired.metadata.annotations ?? {}, rules: rulesOf(desired) };
  if (canonicalJson(before) === canonicalJson(after)) return [];
  const annotations = (mergePatchDiff(before.annotations, after.annotations) ?? {}) as Record<string, string | null>;
  return [{
    verb: 'patch', ref: refOf(route, namespace), patchType: 'merge',
    // A merge patch replaces the rules list whole: exactly the desired rules, nothing merged into them.
    patch: { ...(Object.keys(annotations).length > 0 ? { metadata: { annotations } } : {}), spec: { rules: after.rules } },
    ...(route.metadata.resourceVersion ? { resourceVersion: route.metadata.resourceVersion } : {}),
    reason: `HTTPRoute ${route.metadata.name}: ${what}`,
  }];
}

function describe(traffic: StepTraffic | null, routing: TrafficRouting): string {
  if (traffic === null) return `routes as before the release (the canary's rules and weights taken out)`;
  if (traffic.matches.length > 0) return `sends requests matching ${traffic.matches.length} match(es) to Service ${canaryServiceName(routing)}`;
  return `weights ${routing.service} ${100 - (traffic.weight ?? 0)}, ${canaryServiceName(routing)} ${traffic.weight ?? 0}`;
}

function specIssues(spec: RolloutSpec): FieldIssue[] {
  const at = spec.rollingStyle === 'BlueGreen' ? 'spec.strategy.blueGreen' : 'spec.strategy.canary';
  return spec.steps.flatMap((step, i): FieldIssue[] => {
    if (!step.traffic?.requestHeaderModifier || step.traffic.matches.length > 0) return [];
    return [{
      path: `${at}.steps[${i}].requestHeaderModifier`,
      reason: 'the Gateway API provider sets it as a filter of the canary\'s match rules; a step with a weight only has no rule of its own: give the step matches',
    }];
  });
}

export const gatewayProvider: TrafficProviderUnit = {
  type: 'gateway',
  router: HTTP_ROUTE,
  watches: [{ ...HTTP_ROUTE, routingOf: (obj) => obj.metadata.name }],
  rbac: {
    reconcile: [{ apiGroup: 'gateway.networking.k8s.io', resource: 'httproutes', verbs: ['get', 'list', 'watch', 'patch'] }],
    view: [{ apiGroup: 'gateway.networking.k8s.io', resource: 'httproutes', verbs: ['get', 'list'] }],
  },
  specIssues,
  objectsToRead(routing: TrafficRouting, namespace: string): ObjectRef[] {
    if (routing.provider.type !== 'gateway') return [];
    return [{ apiVersion: HTTP_ROUTE.apiVersion, kind: HTTP_ROUTE.kind, namespace, name: routing.provider.httpRouteName }];
  },
  plan(observed: RouterObservation, routing: TrafficRouting, traffic: StepTraffic | null): RouterPlan {
    if (routing.provider.type !== 'gateway') throw new TrafficObjectError('the gateway provider was given an ingress routing');
    const route = observed.objects.get(routing.provider.httpRouteName) ?? null;
    if (route === null) {
      if (traffic === null) return { writes: [], pending: null };
      throw new TrafficObjectError(`HTTPRoute ${routing.provider.httpRouteName} not found in the Rollout's namespace`);
    }
    const writes = routeWrites(route, desiredRoute(route, routing, traffic), route.metadata.namespace ?? '', describe(traffic, routing));
    return { writes, pending: writes.length > 0 ? null : routePending(route) };
  },
};
