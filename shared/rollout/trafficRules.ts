// Cross-field rules of Kruise v1beta1's rolling styles and traffic fields, ported from its webhook
// (pkg/webhook/rollout/validating/rollout_create_update_handler.go of openkruise/rollouts:
// validateRolloutSpecStrategy, validateRolloutSpecCanarySteps, validateRolloutSpecObjectRef) and
// GetRollingStyle/IsRealPartition (api/v1beta1/rollout_types.go). Like specRules.ts they read the raw
// document defensively so that every problem shows in one pass; the normalisation at the end runs
// only on a document the schema accepted.
import type { FieldIssue } from '../errors.ts';
import { isRecord } from '../json.ts';
import { percentValue } from './intOrPercent.ts';
import type { HeaderModifierDoc, RouteMatchDoc, TrafficRoutingDoc } from './trafficSchema.ts';
import type { HeaderModifier, PodTemplateMetadataPatch, RollingStyle, RouteMatch, StepTraffic, TrafficRouting } from './trafficTypes.ts';
import { knownWorkloadKinds, workloadKindOf, workloadTypeOf, type WorkloadKind } from './workloadKinds.ts';

/**
 * Kruise's PartitionReplicasLimitWithTraffic: in the partition style a step that routes traffic may
 * update at most this percent of the pods, so that the stable pods left can take all of the traffic
 * back on a rollback or a new release.
 */
export const PARTITION_PERCENT_LIMIT_WITH_TRAFFIC = 50;

function field(obj: unknown, key: string): unknown {
  return isRecord(obj) ? obj[key] : undefined;
}

/** `canary` or `blueGreen`: where the steps and trafficRoutings are. */
export type StrategyKey = 'canary' | 'blueGreen';

export function strategyKeyOf(strategy: unknown): StrategyKey {
  return field(strategy, 'blueGreen') !== undefined && field(strategy, 'canary') === undefined ? 'blueGreen' : 'canary';
}

function kindOf(doc: unknown): WorkloadKind | null {
  const ref = field(field(doc, 'spec'), 'workloadRef');
  const apiVersion = field(ref, 'apiVersion');
  const kind = field(ref, 'kind');
  return typeof apiVersion === 'string' && typeof kind === 'string' ? workloadKindOf(apiVersion, kind) : null;
}

/** Kruise's GetRollingStyle, with IsRealPartition: a canary workload only for the kinds that have one (WorkloadType.canaryWorkload). */
export function rollingStyleOfDoc(doc: unknown): RollingStyle {
  const strategy = field(field(doc, 'spec'), 'strategy');
  if (field(strategy, 'blueGreen') !== undefined) return 'BlueGreen';
  const extra = field(field(strategy, 'canary'), 'enableExtraWorkloadForCanary') === true;
  const kind = kindOf(doc);
  return extra && kind !== null && workloadTypeOf(kind).canaryWorkload ? 'CanaryWorkload' : 'InPlace';
}

function hasMatches(step: unknown): boolean {
  const matches = field(step, 'matches');
  return Array.isArray(matches) && matches.length > 0;
}

/** Whether a step routes traffic (Kruise: `Traffic != nil || len(Matches) > 0`). */
function routes(step: unknown): boolean {
  const traffic = field(step, 'traffic');
  return (traffic !== undefined && traffic !== null) || hasMatches(step);
}

function stepTrafficIssues(step: unknown, at: string, style: RollingStyle, key: StrategyKey, hasRouting: boolean): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const traffic = field(step, 'traffic');
  const weight = typeof traffic === 'string' ? percentValue(traffic) : null;
  if (weight !== null) {
    // Kruise: "0%" < traffic <= "100%" for a canary; blue-green also allows "0%" (new pods, no traffic yet).
    const min = style === 'BlueGreen' ? 0 : 1;
    if (weight < min || weight > 100) {
      issues.push({ path: `${at}.traffic`, reason: style === 'BlueGreen' ? 'must be from "0%" to "100%"' : 'must be from "1%" to "100%" ("0%" only in blueGreen steps)' });
    }
  }
  if (routes(step) && !hasRouting) {
    const which = hasMatches(step) ? 'matches' : 'traffic';
    issues.push({ path: `${at}.${which}`, reason: `has no effect without spec.strategy.${key}.trafficRoutings (Kruise ignores it silently); add the route to set, or remove it` });
  }
  const modifier = field(step, 'requestHeaderModifier');
  if (modifier !== undefined && modifier !== null && !routes(step)) {
    issues.push({ path: `${at}.requestHeaderModifier`, reason: 'applies to requests a step routes to the canary: give the step traffic or matches' });
  }
  const replicas = field(step, 'replicas');
  const percent = typeof replicas === 'string' ? percentValue(replicas) : null;
  if (style === 'InPlace' && routes(step) && percent !== null && percent > PARTITION_PERCENT_LIMIT_WITH_TRAFFIC && percent <= 100) {
    issues.push({
      path: `${at}.replicas`,
      reason: `must be at most ${PARTITION_PERCENT_LIMIT_WITH_TRAFFIC}% in a step that routes traffic (traffic or matches) when the workload is updated in place: ` +
        'the stable pods left must be able to take all of the traffic back (Kruise\'s partition limit); route traffic in an earlier step, ' +
        'give replicas as a number of pods, or use enableExtraWorkloadForCanary: true',
    });
  }
  return issues;
}

/** Every cross-field problem of the rolling style and traffic fields of a Rollout document. */
export function trafficIssues(doc: Record<string, unknown>): FieldIssue[] {
  const spec = field(doc, 'spec');
  const strategy = field(spec, 'strategy');
  if (field(strategy, 'canary') !== undefined && field(strategy, 'blueGreen') !== undefined) {
    return [{ path: 'spec.strategy.blueGreen', reason: 'set canary or blueGreen, not both' }];
  }
  const key = strategyKeyOf(strategy);
  const style = rollingStyleOfDoc(doc);
  const issues: FieldIssue[] = [];
  const kind = kindOf(doc);
  if (style === 'BlueGreen' && kind !== null && !workloadTypeOf(kind).blueGreen) {
    // Kruise's blueGreenSupportWorkloadGVKs.
    const blueGreenKinds = knownWorkloadKinds().filter((k) => workloadTypeOf(k).blueGreen);
    issues.push({ path: 'spec.workloadRef.kind', reason: `blue-green releases ${blueGreenKinds.join(' and ')} workloads only (as Kruise), not a ${kind}` });
  }
  const body = field(strategy, key);
  if (field(body, 'patchPodTemplateMetadata') !== undefined && style !== 'CanaryWorkload') {
    issues.push({
      path: `spec.strategy.${key}.patchPodTemplateMetadata`,
      reason: 'applies to the canary Deployment only (enableExtraWorkloadForCanary: true on a Deployment); Kruise ignores it otherwise',
    });
  }
  if (field(spec, 'deploymentStrategy') !== undefined && style !== 'InPlace') {
    issues.push({ path: 'spec.deploymentStrategy', reason: `chooses how a Deployment is updated in place; a ${style === 'BlueGreen' ? 'blue-green' : 'canary-Deployment'} release does not update it in place` });
  }
  const hasRouting = Array.isArray(field(body, 'trafficRoutings')) && (field(body, 'trafficRoutings') as unknown[]).length > 0;
  const steps = field(body, 'steps');
  if (Array.isArray(steps)) {
    steps.forEach((step, i) => issues.push(...stepTrafficIssues(step, `spec.strategy.${key}.steps[${i}]`, style, key, hasRouting)));
  }
  return issues;
}

// ---- Normalisation (after validation) ----------------------------------------------------------

export function toTrafficRouting(doc: TrafficRoutingDoc): TrafficRouting {
  const provider: TrafficRouting['provider'] = doc.gateway
    ? { type: 'gateway', httpRouteName: doc.gateway.httpRouteName }
    : { type: 'ingress', classType: doc.ingress?.classType as 'nginx' | 'aws-alb', name: doc.ingress?.name ?? '' };
  return { service: doc.service, gracePeriodSeconds: doc.gracePeriodSeconds, provider };
}

function toMatch(m: RouteMatchDoc): RouteMatch {
  return {
    ...(m.path ? { path: { ...m.path } } : {}),
    headers: (m.headers ?? []).map((h) => ({ ...h })),
    queryParams: (m.queryParams ?? []).map((q) => ({ ...q })),
  };
}

function toModifier(m: HeaderModifierDoc): HeaderModifier {
  return { set: (m.set ?? []).map((h) => ({ ...h })), add: (m.add ?? []).map((h) => ({ ...h })), remove: [...(m.remove ?? [])] };
}

/** A validated step's traffic, or undefined when it routes nothing (the original routing). */
export function toStepTraffic(step: { traffic?: string | null; matches?: RouteMatchDoc[]; requestHeaderModifier?: HeaderModifierDoc | null }): StepTraffic | undefined {
  const matches = (step.matches ?? []).map(toMatch);
  if ((step.traffic === undefined || step.traffic === null) && matches.length === 0) return undefined;
  return {
    weight: typeof step.traffic === 'string' ? percentValue(step.traffic) : null,
    matches,
    requestHeaderModifier: step.requestHeaderModifier ? toModifier(step.requestHeaderModifier) : null,
  };
}

export function toPodTemplateMetadataPatch(doc: { labels?: Record<string, string>; annotations?: Record<string, string> }): PodTemplateMetadataPatch {
  return { labels: { ...(doc.labels ?? {}) }, annotations: { ...(doc.annotations ?? {}) } };
}
