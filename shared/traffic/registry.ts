// The one list of traffic providers, one per ProviderType (the type below requires each), as
// shared/workloads/registry.ts lists the workload drivers. The RBAC manifest is generated from it
// (shared/traffic/rbac.ts, scripts/generate.ts), and the watch-proxy's targets (ROUTING_WATCHES,
// shared/watch/mapping.ts). The Services every provider routes between (shared/traffic/services.ts)
// take their own grant, SERVICES_RBAC, and their own watch, SERVICES_WATCH.
import type { FieldIssue } from '../errors.ts';
import type { TrafficRouting } from '../rollout/trafficTypes.ts';
import type { RolloutSpec } from '../rollout/types.ts';
import { albProvider } from './alb/albIngress.ts';
import { gatewayProvider } from './gateway/httpRoute.ts';
import { nginxProvider } from './nginx/canaryIngress.ts';
import { CANARY_SUFFIX, isOurs, type ProviderRbac, type ProviderType, type RouterResource, type TrafficProviderUnit, type TrafficWatch } from './provider.ts';

export const TRAFFIC_PROVIDERS: Readonly<{ [T in ProviderType]: TrafficProviderUnit }> = Object.freeze({
  gateway: gatewayProvider,
  nginx: nginxProvider,
  'aws-alb': albProvider,
});

/** The canary Service is created and deleted, the stable one narrowed and put back, by every provider. */
export const SERVICES_RBAC: ProviderRbac = {
  reconcile: [{ apiGroup: '', resource: 'services', verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] }],
  view: [{ apiGroup: '', resource: 'services', verbs: ['get', 'list'] }],
};

/**
 * What a routing's object is looked up by in the watch catalogue: the router of one provider (an
 * HTTPRoute name, an Ingress name), or the stable Service every provider routes from.
 */
export type RoutingSubject = ProviderType | 'service';

/** Services: the stable one by its name, our `<service>-canary` by the stable one's. */
export const SERVICES_WATCH: TrafficWatch = {
  apiVersion: 'v1', kind: 'Service', resource: 'services',
  routingOf: (obj) => (isOurs(obj) && obj.metadata.name.endsWith(CANARY_SUFFIX) ? obj.metadata.name.slice(0, -CANARY_SUFFIX.length) : obj.metadata.name),
};

/** A watch a routing takes, with the subject its `routingOf` names objects under. */
export interface RoutingWatch {
  readonly subject: RoutingSubject;
  readonly watch: TrafficWatch;
}

/** Every watch the routings take: the providers' in registry order, then the Services'. */
export const ROUTING_WATCHES: readonly RoutingWatch[] = Object.freeze([
  ...Object.values(TRAFFIC_PROVIDERS).flatMap((p) => p.watches.map((watch) => ({ subject: p.type, watch }))),
  { subject: 'service' as const, watch: SERVICES_WATCH },
]);

/** The names a Rollout's routing is found by, per subject: its router under its provider, its stable Service. */
export function routingNames(routing: TrafficRouting): { subject: RoutingSubject; name: string }[] {
  const router = routing.provider.type === 'gateway' ? routing.provider.httpRouteName : routing.provider.name;
  return [{ subject: providerTypeOf(routing), name: router }, { subject: 'service', name: routing.service }];
}

/** Every kind the providers read or write (their routers, their watches) and the Services: what a cluster client must know beyond Kubernetes' own. */
export const TRAFFIC_RESOURCES: readonly RouterResource[] = Object.freeze(dedupe([
  ...Object.values(TRAFFIC_PROVIDERS).flatMap((p) => [p.router, ...p.watches]),
  { apiVersion: 'v1', kind: 'Service', resource: 'services' },
]));

function dedupe(resources: readonly RouterResource[]): RouterResource[] {
  const byKind = new Map(resources.map((r) => [`${r.apiVersion}/${r.kind}`, { apiVersion: r.apiVersion, kind: r.kind, resource: r.resource }]));
  return [...byKind.values()];
}

export function providerTypeOf(routing: TrafficRouting): ProviderType {
  return routing.provider.type === 'gateway' ? 'gateway' : routing.provider.classType;
}

export function providerOf(routing: TrafficRouting): TrafficProviderUnit {
  return TRAFFIC_PROVIDERS[providerTypeOf(routing)];
}

/** What the Rollout's router cannot do of what its steps ask (none without traffic routing). */
export function providerIssues(spec: RolloutSpec): FieldIssue[] {
  return spec.trafficRouting ? providerOf(spec.trafficRouting).specIssues(spec) : [];
}
