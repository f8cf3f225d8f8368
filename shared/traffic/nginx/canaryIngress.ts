// The ingress-nginx provider, Kruise's default (pkg/trafficrouting/network/ingress/ingress.go and
// lua_configuration/trafficrouting_ingress/nginx.lua of openkruise/rollouts): a second Ingress,
// `<ingress>-canary`, with the stable Ingress's hosts and paths pointed at the canary Service and
// ingress-nginx's canary annotations (canary-weight, canary-by-header[-value|-pattern],
// canary-by-cookie). The stable Ingress is never touched; the original routing is the canary Ingress
// deleted. Note: ingress-nginx is retired upstream (Kubernetes SIG Network, best-effort maintenance
// ended in March 2026); the provider exists for teams still on it, as Kruise's default.
import type { FieldIssue } from '../../errors.ts';
import type { KubeObject, KubeWrite, ObjectRef } from '../../kube/types.ts';
import { isRecord } from '../../json.ts';
import type { RouteMatch, StepTraffic, TrafficRouting } from '../../rollout/trafficTypes.ts';
import type { RolloutSpec } from '../../rollout/types.ts';
import { mergePatchDiff } from '../../workloads/common/mergePatch.ts';
import { canonicalJson } from '../../workloads/common/objects.ts';
import { MANAGED_BY, MANAGED_BY_LABEL, TrafficObjectError, canaryServiceName, isOurs, refOf, type RouterObservation, type RouterPlan, type TrafficProviderUnit } from '../provider.ts';

export const INGRESS = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', resource: 'ingresses' } as const;
const NGINX = 'nginx.ingress.kubernetes.io';
export const CANARY = `${NGINX}/canary`;
export const CANARY_WEIGHT = `${NGINX}/canary-weight`;
export const CANARY_BY_HEADER = `${NGINX}/canary-by-header`;
export const CANARY_BY_HEADER_VALUE = `${NGINX}/canary-by-header-value`;
export const CANARY_BY_HEADER_PATTERN = `${NGINX}/canary-by-header-pattern`;
export const CANARY_BY_COOKIE = `${NGINX}/canary-by-cookie`;
const CANARY_ANNOTATIONS = [CANARY_BY_COOKIE, CANARY_BY_HEADER, CANARY_BY_HEADER_PATTERN, CANARY_BY_HEADER_VALUE, CANARY_WEIGHT];
/** Kruise's Lua reads a header match of this name as a cookie match (its value is the cookie's name). */
export const COOKIE_MATCH_NAME = 'canary-by-cookie';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

type Json = Record<string, unknown>;

/** Kruise's defaultCanaryIngressName. */
export function canaryIngressName(routing: TrafficRouting): string {
  return `${routing.provider.type === 'ingress' ? routing.provider.name : ''}-canary`;
}

/** The annotations of the canary Ingress for a step (nginx.lua: weight, then each match's first header). */
export function canaryAnnotations(base: Record<string, string>, weight: number | null, matches: readonly RouteMatch[]): Record<string, string> {
  const out: Record<string, string> = { ...base, [CANARY]: 'true' };
  for (const key of CANARY_ANNOTATIONS) delete out[key];
  if (weight !== null) out[CANARY_WEIGHT] = String(weight);
  for (const match of matches) {
    const header = match.headers[0];
    if (!header) continue;
    if (header.name === COOKIE_MATCH_NAME) {
      out[CANARY_BY_COOKIE] = header.value;
    } else {
      out[CANARY_BY_HEADER] = header.name;
      out[header.type === 'RegularExpression' ? CANARY_BY_HEADER_PATTERN : CANARY_BY_HEADER_VALUE] = header.value;
    }
  }
  return out;
}

/** The stable Ingress's rules kept to the paths that route to the stable Service, now routing to the canary one (Kruise's buildCanaryIngress). */
function canaryRules(stable: KubeObject, routing: TrafficRouting): Json[] {
  const rules = Array.isArray(stable.spec?.rules) ? (stable.spec.rules as Json[]) : [];
  const out: Json[] = [];
  for (const rule of rules) {
    const paths = isRecord(rule.http) && Array.isArray(rule.http.paths) ? (rule.http.paths as Json[]) : [];
    const canaryPaths = paths
      .filter((p) => isRecord(p.backend) && isRecord(p.backend.service) && p.backend.service.name === routing.service)
      .map((p) => {
        const backend = structuredClone(p.backend) as { service: Json };
        backend.service.name = canaryServiceName(routing);
        return { ...(p.path !== undefined ? { path: p.path } : {}), ...(p.pathType !== undefined ? { pathType: p.pathType } : {}), backend };
      });
    if (canaryPaths.length > 0) out.push({ ...(rule.host !== undefined ? { host: rule.host } : {}), http: { paths: canaryPaths } });
  }
  return out;
}

/** The canary Ingress for a step; owned by the stable Ingress, so it goes when that one goes. */
export function desiredCanaryIngress(stable: KubeObject, routing: TrafficRouting, weight: number | null, matches: readonly RouteMatch[]): KubeObject {
  const rules = canaryRules(stable, routing);
  if (rules.length === 0) {
    throw new TrafficObjectError(`Ingress ${stable.metadata.name} has no path whose backend is Service ${routing.service}; the release has no traffic to shift`);
  }
  const base = { ...(stable.metadata.annotations ?? {}) };
  delete base[LAST_APPLIED];
  const spec: Json = { rules };
  if (stable.spec?.ingressClassName !== undefined) spec.ingressClassName = stable.spec.ingressClassName;
  if (stable.spec?.tls !== undefined) spec.tls = structuredClone(stable.spec.tls);
  return {
    apiVersion: INGRESS.apiVersion,
    kind: INGRESS.kind,
    metadata: {
      name: canaryIngressName(routing),
      ...(stable.metadata.namespace ? { namespace: stable.metadata.namespace } : {}),
      labels: { ...(stable.metadata.labels ?? {}), [MANAGED_BY_LABEL]: MANAGED_BY },
      annotations: canaryAnnotations(base, weight, matches),
      ...(stable.metadata.uid ? { ownerReferences: [{ apiVersion: INGRESS.apiVersion, kind: INGRESS.kind, name: stable.metadata.name, uid: stable.metadata.uid }] } : {}),
    },
    spec,
  };
}

function plan(observed: RouterObservation, routing: TrafficRouting, traffic: StepTraffic | null): RouterPlan {
  if (routing.provider.type !== 'ingress') throw new TrafficObjectError('the nginx provider was given a gateway routing');
  const canary = observed.objects.get(canaryIngressName(routing)) ?? null;
  if (canary !== null && !isOurs(canary)) {
    throw new TrafficObjectError(`Ingress ${canary.metadata.name} exists and is not ours (no label ${MANAGED_BY_LABEL}=${MANAGED_BY}); the canary Ingress takes that name`);
  }
  if (traffic === null) {
    // The original routing: no canary Ingress (Kruise's Finalise deletes it).
    if (canary === null || canary.metadata.deletionTimestamp) return { writes: [], pending: null };
    return { writes: [{ verb: 'delete', ref: refOf(canary, ''), ...(canary.metadata.resourceVersion ? { resourceVersion: canary.metadata.resourceVersion } : {}), reason: `delete Ingress ${canary.metadata.name} (ingress-nginx routes as before the release)` }], pending: null };
  }
  const stable = observed.objects.get(routing.provider.name) ?? null;
  if (stable === null) throw new TrafficObjectError(`Ingress ${routing.provider.name} not found in the Rollout's namespace`);
  if (canary === null) {
    // Kruise creates the canary Ingress at weight 0 and sets the step's routing a grace period later,
    // once ingress-nginx has loaded the canary backend.
    const object = desiredCanaryIngress(stable, routing, 0, []);
    return { writes: [{ verb: 'create', object, reason: `create Ingress ${object.metadata.name} (ingress-nginx canary, weight 0)` }], pending: null };
  }
  const desired = desiredCanaryIngress(stable, routing, traffic.weight, traffic.matches);
  return { writes: canaryIngressWrites(canary, desired, traffic), pending: null };
}

function canaryIngressWrites(canary: KubeObject, desired: KubeObject, traffic: StepTraffic): KubeWrite[] {
  const now = { labels: canary.metadata.labels ?? {}, annotations: canary.metadata.annotations ?? {}, spec: canary.spec ?? {} };
  const want = { labels: desired.metadata.labels ?? {}, annotations: desired.metadata.annotations ?? {}, spec: desired.spec ?? {} };
  if (canonicalJson(now) === canonicalJson(want)) return [];
  const annotations = (mergePatchDiff(now.annotations, want.annotations) ?? {}) as Record<string, string | null>;
  const what = traffic.weight !== null ? `weight ${traffic.weight}` : '';
  const byMatch = traffic.matches.length > 0 ? 'header/cookie match' : '';
  return [{
    verb: 'patch', ref: refOf(canary, ''), patchType: 'merge',
    patch: { metadata: { labels: want.labels, annotations }, spec: { rules: (want.spec as Json).rules, ...('tls' in want.spec ? { tls: (want.spec as Json).tls } : {}) } },
    ...(canary.metadata.resourceVersion ? { resourceVersion: canary.metadata.resourceVersion } : {}),
    reason: `Ingress ${canary.metadata.name}: ingress-nginx canary ${[what, byMatch].filter(Boolean).join(' and ')}`,
  }];
}

/** What ingress-nginx's canary annotations cannot say, which Kruise's Lua would drop without a word. */
function specIssues(spec: RolloutSpec): FieldIssue[] {
  const at = spec.rollingStyle === 'BlueGreen' ? 'spec.strategy.blueGreen' : 'spec.strategy.canary';
  return spec.steps.flatMap((step, i): FieldIssue[] => {
    const issues: FieldIssue[] = [];
    const traffic = step.traffic;
    if (!traffic) return issues;
    if (traffic.requestHeaderModifier) {
      issues.push({ path: `${at}.steps[${i}].requestHeaderModifier`, reason: 'ingress-nginx canary annotations cannot change request headers; remove it or use the Gateway API provider' });
    }
    let headers = 0;
    let cookies = 0;
    traffic.matches.forEach((m, j) => {
      const where = `${at}.steps[${i}].matches[${j}]`;
      if (m.path || m.queryParams.length > 0) issues.push({ path: where, reason: 'ingress-nginx canary annotations match one header or one cookie, not a path or query parameters' });
      if (m.headers.length > 1) issues.push({ path: `${where}.headers`, reason: 'ingress-nginx canary annotations match one header per Ingress (canary-by-header); list one' });
      if (m.headers[0]?.name === COOKIE_MATCH_NAME) cookies++;
      else if (m.headers.length > 0) headers++;
    });
    if (headers > 1 || cookies > 1) {
      issues.push({ path: `${at}.steps[${i}].matches`, reason: 'ingress-nginx takes one canary-by-header and one canary-by-cookie per Ingress; these matches would overwrite each other' });
    }
    return issues;
  });
}

export const nginxProvider: TrafficProviderUnit = {
  type: 'nginx',
  router: INGRESS,
  // The stable Ingress (its paths feed the canary one) and ours, mapped back to the stable name.
  watches: [{ ...INGRESS, routingOf: (obj) => (isOurs(obj) && obj.metadata.name.endsWith('-canary') ? obj.metadata.name.slice(0, -'-canary'.length) : obj.metadata.name) }],
  rbac: {
    reconcile: [{ apiGroup: 'networking.k8s.io', resource: 'ingresses', verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] }],
    view: [{ apiGroup: 'networking.k8s.io', resource: 'ingresses', verbs: ['get', 'list'] }],
  },
  specIssues,
  objectsToRead(routing: TrafficRouting, namespace: string): ObjectRef[] {
    if (routing.provider.type !== 'ingress') return [];
    return [routing.provider.name, canaryIngressName(routing)].map((name) => ({ apiVersion: INGRESS.apiVersion, kind: INGRESS.kind, namespace, name }));
  },
  plan,
};
