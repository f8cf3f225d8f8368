// The JSON the AWS Load Balancer Controller reads from `alb.ingress.kubernetes.io/actions.<name>` and
// `conditions.<name>`, written as Argo Rollouts' ALB router writes it (rollout/trafficrouting/alb/alb.go
// of argoproj/argo-rollouts v1.9.1: getForwardActionString, getTrafficForwardActionString,
// getTrafficForwardConditionString; the structs of utils/ingress/ingress.go): the same keys, in the
// same order, so a team moving from Argo sees the same annotations. Kruise has no AWS provider.
import type { RouteMatch } from '../../rollout/trafficTypes.ts';

export const ALB_PREFIX = 'alb.ingress.kubernetes.io';
/** The Ingress backend port name that makes the controller read an action annotation (its magicServicePortUseAnnotation). */
export const USE_ANNOTATION = 'use-annotation';

export function actionKey(name: string): string {
  return `${ALB_PREFIX}/actions.${name}`;
}

export function conditionsKey(name: string): string {
  return `${ALB_PREFIX}/conditions.${name}`;
}

export interface TargetGroup {
  ServiceName: string;
  ServicePort: string;
  Weight: number;
}

export interface ForwardAction {
  Type: 'forward';
  ForwardConfig: { TargetGroups: TargetGroup[]; TargetGroupStickinessConfig?: { Enabled: boolean; DurationSeconds: number } };
}

export type Stickiness = ForwardAction['ForwardConfig']['TargetGroupStickinessConfig'];

function withStickiness(groups: TargetGroup[], stickiness: Stickiness): ForwardAction {
  return { Type: 'forward', ForwardConfig: { TargetGroups: groups, ...(stickiness ? { TargetGroupStickinessConfig: stickiness } : {}) } };
}

/** The weighted forward action: canary first, then stable at 100 − weight (Argo's getForwardActionString). */
export function weightedForward(stable: string, canary: string, port: string, weight: number, stickiness?: Stickiness): ForwardAction {
  return withStickiness([
    { ServiceName: canary, ServicePort: port, Weight: weight },
    { ServiceName: stable, ServicePort: port, Weight: 100 - weight },
  ], stickiness);
}

/** Everything to the canary (Argo's getTrafficForwardActionString, for a header route). */
export function canaryForward(canary: string, port: string, stickiness?: Stickiness): ForwardAction {
  return withStickiness([{ ServiceName: canary, ServicePort: port, Weight: 100 }], stickiness);
}

export type AlbCondition =
  | { field: 'http-header'; httpHeaderConfig: { httpHeaderName: string; values: string[] } }
  | { field: 'query-string'; queryStringConfig: { values: { key: string; value: string }[] } }
  | { field: 'path-pattern'; pathPatternConfig: { values: string[] } };

/**
 * A Gateway API PathPrefix as ALB path patterns: "/api" matches "/api" and "/api/…" but not "/apis",
 * where the pattern "/api*" would.
 */
function pathPatterns(path: NonNullable<RouteMatch['path']>): string[] {
  if (path.type === 'Exact') return [path.value];
  const base = path.value.replace(/\/+$/, '');
  return base === '' ? ['/*'] : [base, `${base}/*`];
}

/**
 * The conditions of one Kruise match (every part must hold, as the rule's conditions all must): a
 * header condition per header (Argo's upsertCondition), then the query parameters, then the path.
 */
export function matchConditions(match: RouteMatch): AlbCondition[] {
  const out: AlbCondition[] = match.headers.map((h) => ({ field: 'http-header', httpHeaderConfig: { httpHeaderName: h.name, values: [h.value] } }));
  if (match.queryParams.length > 0) out.push({ field: 'query-string', queryStringConfig: { values: match.queryParams.map((q) => ({ key: q.name, value: q.value })) } });
  if (match.path) out.push({ field: 'path-pattern', pathPatternConfig: { values: pathPatterns(match.path) } });
  return out;
}

/** How many values ALB evaluates for these conditions; a rule takes at most 5 (AWS quota "match evaluations per rule"). */
export function conditionValues(conditions: readonly AlbCondition[]): number {
  return conditions.reduce((n, c) => n + (c.field === 'http-header' ? c.httpHeaderConfig.values.length : c.field === 'query-string' ? c.queryStringConfig.values.length : c.pathPatternConfig.values.length), 0);
}
