// The AWS Load Balancer Controller provider: the user's own Ingress routes to the stable Service
// through an action (a path whose backend is `service: {name: <service>, port: {name: use-annotation}}`,
// as Argo Rollouts' ALB mode requires), and the release rewrites that action's annotation with a
// weighted forward to both Services. Matches become extra paths in front of the stable one, each
// with its own action (all to the canary) and conditions. Everything we change is recorded once in an
// annotation (the values we replaced), so the original routing is put back exactly, by any pass.
// The controller gives no signal that an ALB rule changed; the trafficRouting's gracePeriodSeconds
// is the wait for it (Argo verifies through the ELBv2 API instead; docs/traffic.md).
import type { FieldIssue } from '../../errors.ts';
import type { KubeObject, ObjectRef } from '../../kube/types.ts';
import { isRecord } from '../../json.ts';
import type { StepTraffic, TrafficRouting } from '../../rollout/trafficTypes.ts';
import type { RolloutSpec } from '../../rollout/types.ts';
import { mergePatchDiff } from '../../workloads/common/mergePatch.ts';
import { canonicalJson } from '../../workloads/common/objects.ts';
import { INGRESS } from '../nginx/canaryIngress.ts';
import { ANNOTATION_PREFIX, TrafficObjectError, canaryServiceName, refOf, type RouterObservation, type RouterPlan, type TrafficProviderUnit } from '../provider.ts';
import { USE_ANNOTATION, actionKey, canaryForward, conditionValues, conditionsKey, matchConditions, weightedForward, type Stickiness } from './albActions.ts';
import { albAnnotationProblem } from './annotationSchema.ts';

/** On the Ingress while it carries a release's routing: each annotation we set, with its value before (null: absent). */
export const ORIGINAL_ANNOTATIONS = `${ANNOTATION_PREFIX}/original-alb-annotations`;
/** ALB's quota of condition values ("match evaluations") per rule. */
const MAX_CONDITION_VALUES = 5;
/** An annotation name (after the prefix's "/") is at most 63 characters: "conditions." + the action name. */
const MAX_ACTION_NAME = 63 - 'conditions.'.length;

type Json = Record<string, unknown>;

/** The action of match `i`: a backend name that exists only as an annotation (like Argo's managed routes). */
export function matchActionName(routing: TrafficRouting, i: number): string {
  return `${canaryServiceName(routing)}-m${i}`;
}

function isMatchAction(name: unknown, routing: TrafficRouting): boolean {
  return typeof name === 'string' && name.startsWith(`${canaryServiceName(routing)}-m`) && /^\d+$/.test(name.slice(canaryServiceName(routing).length + 2));
}

function backendOf(path: Json): { name: unknown; portName: unknown } {
  const service = isRecord(path.backend) && isRecord(path.backend.service) ? path.backend.service : {};
  return { name: service.name, portName: isRecord(service.port) ? service.port.name : undefined };
}

function rulesOf(ingress: KubeObject): Json[] {
  return Array.isArray(ingress.spec?.rules) ? (ingress.spec.rules as Json[]) : [];
}

function pathsOf(rule: Json): Json[] {
  return isRecord(rule.http) && Array.isArray(rule.http.paths) ? (rule.http.paths as Json[]) : [];
}

function withPaths(rule: Json, paths: Json[]): Json {
  return { ...rule, http: { ...(rule.http as Json), paths } };
}

/** The Ingress as the user had it: our match paths out, the annotations we replaced back. */
export function originalIngress(ingress: KubeObject, routing: TrafficRouting): KubeObject {
  const annotations = { ...(ingress.metadata.annotations ?? {}) };
  const recorded = annotations[ORIGINAL_ANNOTATIONS];
  if (recorded !== undefined) {
    for (const [key, value] of Object.entries(JSON.parse(recorded) as Record<string, string | null>)) {
      if (value === null) delete annotations[key];
      else annotations[key] = value;
    }
    delete annotations[ORIGINAL_ANNOTATIONS];
  }
  const rules = rulesOf(ingress).map((rule) => (isRecord(rule.http) ? withPaths(rule, pathsOf(rule).filter((p) => !isMatchAction(backendOf(p).name, routing))) : rule));
  return { ...ingress, metadata: { ...ingress.metadata, annotations }, spec: { ...ingress.spec, rules } };
}

/** The stable target group's port: from the user's action if it names one, else the stable Service's only port. */
function servicePort(action: Json | null, routing: TrafficRouting, stableService: KubeObject | null): string {
  const groups = action ? goField(goField(action, 'forwardConfig'), 'targetGroups') : undefined;
  if (Array.isArray(groups)) {
    const stable = groups.find((g) => goField(g, 'serviceName') === routing.service);
    const port = goField(stable, 'servicePort');
    if (typeof port === 'number' || typeof port === 'string') return String(port);
  }
  const ports = Array.isArray(stableService?.spec?.ports) ? (stableService.spec.ports as Json[]) : [];
  if (ports.length === 1 && typeof ports[0]?.port === 'number') return String(ports[0].port);
  throw new TrafficObjectError(
    `the ALB target groups need the port of Service ${routing.service}: name it in ${actionKey(routing.service)} (targetGroups[].servicePort), or give the Service exactly one port (it has ${ports.length})`,
  );
}

/** A key of a Go-decoded JSON object (encoding/json matches keys case-insensitively). */
function goField(obj: unknown, key: string): unknown {
  if (!isRecord(obj)) return undefined;
  if (key in obj) return obj[key];
  const found = Object.keys(obj).find((k) => k.toLowerCase() === key.toLowerCase());
  return found === undefined ? undefined : obj[found];
}

function stickinessOf(action: Json | null): Stickiness {
  const config = goField(goField(action, 'forwardConfig'), 'targetGroupStickinessConfig');
  const enabled = goField(config, 'enabled');
  const duration = goField(config, 'durationSeconds');
  return enabled === true && typeof duration === 'number' ? { Enabled: true, DurationSeconds: duration } : undefined;
}

/** The Ingress a step asks for. */
export function desiredIngress(ingress: KubeObject, routing: TrafficRouting, traffic: StepTraffic | null, stableService: KubeObject | null): KubeObject {
  const original = originalIngress(ingress, routing);
  if (traffic === null) return original;
  const routed = rulesOf(original).some((rule) => pathsOf(rule).some((p) => backendOf(p).name === routing.service && backendOf(p).portName === USE_ANNOTATION));
  if (!routed) {
    throw new TrafficObjectError(
      `Ingress ${ingress.metadata.name} has no path whose backend is Service ${routing.service} with port name ${USE_ANNOTATION}: ` +
        `the AWS Load Balancer Controller splits traffic only through the action ${actionKey(routing.service)} of such a path (as Argo Rollouts' ALB mode requires)`,
    );
  }
  const originalAnnotations = original.metadata.annotations ?? {};
  const userAction = originalAnnotations[actionKey(routing.service)];
  const action = userAction === undefined ? null : (JSON.parse(userAction) as Json);
  const port = servicePort(action, routing, stableService);
  const stickiness = stickinessOf(action);
  const canary = canaryServiceName(routing);
  const set: Record<string, string> = {};
  let rules = rulesOf(original);
  if (traffic.matches.length > 0) {
    // Matches take precedence over the weight (Kruise); the stable action stays the user's.
    const names = traffic.matches.map((_, i) => matchActionName(routing, i));
    traffic.matches.forEach((m, i) => {
      set[actionKey(names[i] as string)] = JSON.stringify(canaryForward(canary, port, stickiness));
      set[conditionsKey(names[i] as string)] = JSON.stringify(matchConditions(m));
    });
    rules = rules.map((rule) => withPaths(rule, pathsOf(rule).flatMap((p) => {
      const b = backendOf(p);
      if (b.name !== routing.service || b.portName !== USE_ANNOTATION) return [p];
      // In front of the stable path (the controller orders an Ingress's rules by its paths).
      const extra = names.map((name) => ({ path: p.path, pathType: p.pathType, backend: { service: { name, port: { name: USE_ANNOTATION } } } }));
      return [...extra, p];
    })));
  } else {
    set[actionKey(routing.service)] = JSON.stringify(weightedForward(routing.service, canary, port, traffic.weight ?? 0, stickiness));
  }
  for (const [key, value] of Object.entries(set)) {
    const problem = albAnnotationProblem(key.includes('/conditions.') ? 'conditions' : 'action', value);
    if (problem) throw new TrafficObjectError(`${key} would not load in the AWS Load Balancer Controller: ${problem}`);
  }
  const recorded = ingress.metadata.annotations?.[ORIGINAL_ANNOTATIONS];
  const before: Record<string, string | null> = recorded === undefined ? {} : (JSON.parse(recorded) as Record<string, string | null>);
  for (const key of Object.keys(set)) if (!(key in before)) before[key] = originalAnnotations[key] ?? null;
  const annotations = { ...originalAnnotations, ...set, [ORIGINAL_ANNOTATIONS]: JSON.stringify(before) };
  return { ...original, metadata: { ...original.metadata, annotations }, spec: { ...original.spec, rules } };
}

function plan(observed: RouterObservation, routing: TrafficRouting, traffic: StepTraffic | null): RouterPlan {
  if (routing.provider.type !== 'ingress') throw new TrafficObjectError('the aws-alb provider was given a gateway routing');
  const ingress = observed.objects.get(routing.provider.name) ?? null;
  if (ingress === null) {
    if (traffic === null) return { writes: [], pending: null };
    throw new TrafficObjectError(`Ingress ${routing.provider.name} not found in the Rollout's namespace`);
  }
  const desired = desiredIngress(ingress, routing, traffic, observed.stableService);
  const now = { annotations: ingress.metadata.annotations ?? {}, rules: rulesOf(ingress) };
  const want = { annotations: desired.metadata.annotations ?? {}, rules: rulesOf(desired) };
  if (canonicalJson(now) === canonicalJson(want)) return { writes: [], pending: null };
  const annotations = (mergePatchDiff(now.annotations, want.annotations) ?? {}) as Record<string, string | null>;
  const what = traffic === null ? 'routes as before the release'
    : traffic.matches.length > 0 ? `sends ${traffic.matches.length} match(es) to Service ${canaryServiceName(routing)}`
    : `forwards ${traffic.weight ?? 0}% to Service ${canaryServiceName(routing)}`;
  return {
    writes: [{
      verb: 'patch', ref: refOf(ingress, ''), patchType: 'merge',
      patch: { ...(Object.keys(annotations).length > 0 ? { metadata: { annotations } } : {}), ...(canonicalJson(now.rules) === canonicalJson(want.rules) ? {} : { spec: { rules: want.rules } }) },
      ...(ingress.metadata.resourceVersion ? { resourceVersion: ingress.metadata.resourceVersion } : {}),
      reason: `Ingress ${ingress.metadata.name}: ${what}`,
    }],
    pending: null,
  };
}

/** What an ALB rule cannot express, which would otherwise fail only in the controller's logs. */
function specIssues(spec: RolloutSpec): FieldIssue[] {
  const at = spec.rollingStyle === 'BlueGreen' ? 'spec.strategy.blueGreen' : 'spec.strategy.canary';
  const routing = spec.trafficRouting;
  return spec.steps.flatMap((step, i): FieldIssue[] => {
    const traffic = step.traffic;
    const issues: FieldIssue[] = [];
    if (!traffic || !routing) return issues;
    if (traffic.requestHeaderModifier) issues.push({ path: `${at}.steps[${i}].requestHeaderModifier`, reason: 'an ALB forward action cannot change request headers; remove it or use the Gateway API provider' });
    if (traffic.matches.length > 0 && matchActionName(routing, traffic.matches.length - 1).length > MAX_ACTION_NAME) {
      issues.push({ path: `${at}.trafficRoutings[0].service`, reason: `is too long for the ALB annotations of ${traffic.matches.length} match(es) ("conditions.<service>-canary-m<i>" must fit in 63 characters)` });
    }
    traffic.matches.forEach((m, j) => {
      const where = `${at}.steps[${i}].matches[${j}]`;
      const parts = [...m.headers.map((h, k) => [`headers[${k}]`, h] as const), ...m.queryParams.map((q, k) => [`queryParams[${k}]`, q] as const)];
      for (const [field, v] of parts) {
        if (v.type === 'RegularExpression') issues.push({ path: `${where}.${field}.type`, reason: 'ALB conditions match exact values (as Argo Rollouts\' ALB router); use Exact' });
        else if (/[*?]/.test(v.value)) issues.push({ path: `${where}.${field}.value`, reason: 'ALB reads "*" and "?" as wildcards, so this exact value cannot be matched exactly' });
      }
      if (m.path?.type === 'RegularExpression') issues.push({ path: `${where}.path.type`, reason: 'ALB path patterns are not regular expressions; use Exact or PathPrefix' });
      else if (m.path && /[*?]/.test(m.path.value)) issues.push({ path: `${where}.path.value`, reason: 'ALB reads "*" and "?" as wildcards in a path pattern' });
      if (conditionValues(matchConditions(m)) > MAX_CONDITION_VALUES) issues.push({ path: where, reason: `needs more than ${MAX_CONDITION_VALUES} condition values, ALB's limit per rule (a PathPrefix takes two)` });
    });
    return issues;
  });
}

export const albProvider: TrafficProviderUnit = {
  type: 'aws-alb',
  router: INGRESS,
  watches: [{ ...INGRESS, routingOf: (obj) => obj.metadata.name }],
  rbac: {
    reconcile: [{ apiGroup: 'networking.k8s.io', resource: 'ingresses', verbs: ['get', 'list', 'watch', 'patch'] }],
    view: [{ apiGroup: 'networking.k8s.io', resource: 'ingresses', verbs: ['get', 'list'] }],
  },
  specIssues,
  objectsToRead(routing: TrafficRouting, namespace: string): ObjectRef[] {
    if (routing.provider.type !== 'ingress') return [];
    return [{ apiVersion: INGRESS.apiVersion, kind: INGRESS.kind, namespace, name: routing.provider.name }];
  },
  plan,
};
