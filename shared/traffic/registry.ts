// The one list of traffic providers, one per ProviderType (the type below requires each), as
// shared/workloads/registry.ts lists the workload drivers. The RBAC manifest is generated from it
// (shared/traffic/rbac.ts, scripts/generate.ts); the watch catalogue is to be (docs/traffic.md, hand-over). The Services
// every provider routes between (shared/traffic/services.ts) take their own grant, SERVICES_RBAC.
import type { FieldIssue } from '../errors.ts';
import type { TrafficRouting } from '../rollout/trafficTypes.ts';
import type { RolloutSpec } from '../rollout/types.ts';
import { albProvider } from './alb/albIngress.ts';
import { gatewayProvider } from './gateway/httpRoute.ts';
import { nginxProvider } from './nginx/canaryIngress.ts';
import type { ProviderRbac, ProviderType, RouterResource, TrafficProviderUnit } from './provider.ts';

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
