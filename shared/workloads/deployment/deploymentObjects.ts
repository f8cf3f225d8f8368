// Typed reads of the Deployment and ReplicaSet fields the driver uses, from wire-format JSON.
import type { KubeObject } from '../../kube/types.ts';
import { isRecord } from './revision.ts';
import type { IntOrPercent } from '../../rollout/types.ts';

/** Where we keep the user's rollingUpdate strategy while a release holds the Deployment on Recreate. */
export const ORIGINAL_STRATEGY = 'rollouts.serverless-rollouts.io/original-strategy';
export const REVISION = 'deployment.kubernetes.io/revision';
export const DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';
/** Deployment annotations the native controller never copies onto ReplicaSets (annotationsToSkip). */
export const NOT_COPIED = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION,
  'deployment.kubernetes.io/revision-history',
  DESIRED_REPLICAS,
  MAX_REPLICAS,
  'deprecated.deployment.rollback.to',
]);
export const MAX_INT32 = 2147483647;

export interface Strategy {
  type?: string;
  rollingUpdate?: { maxSurge?: IntOrPercent; maxUnavailable?: IntOrPercent };
}

export function spec(o: KubeObject): Record<string, unknown> {
  return o.spec ?? {};
}

export function status(o: KubeObject): Record<string, unknown> {
  return o.status ?? {};
}

export function num(v: unknown, fallback = 0): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

export function replicasOf(o: KubeObject): number {
  return num(spec(o).replicas, 1);
}

export function templateOf(o: KubeObject): Record<string, unknown> {
  const t = spec(o).template;
  return isRecord(t) ? t : {};
}

export function strategyOf(d: KubeObject): Strategy {
  const s = spec(d).strategy;
  return isRecord(s) ? (s as Strategy) : {};
}

/** The user's strategy: the one saved while we hold the Deployment on Recreate, else the live one. */
export function userStrategy(d: KubeObject): Strategy {
  const saved = d.metadata.annotations?.[ORIGINAL_STRATEGY];
  if (saved) {
    try {
      const parsed: unknown = JSON.parse(saved);
      if (isRecord(parsed)) return parsed as Strategy;
    } catch {
      // A tampered annotation is reported as a problem by the view; fall through to the live value.
    }
  }
  return strategyOf(d);
}

export function inTakeover(d: KubeObject): boolean {
  return d.metadata.annotations?.[ORIGINAL_STRATEGY] !== undefined;
}

export function isControlledBy(child: KubeObject, owner: KubeObject): boolean {
  return (child.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.uid === owner.metadata.uid);
}

export function revisionNumber(rs: KubeObject): number {
  const n = Number(rs.metadata.annotations?.[REVISION] ?? '0');
  return Number.isInteger(n) ? n : 0;
}

export function images(template: Record<string, unknown>): Record<string, string> {
  const podSpec = isRecord(template.spec) ? template.spec : {};
  const containers = Array.isArray(podSpec.containers) ? podSpec.containers : [];
  const out: Record<string, string> = {};
  for (const c of containers) if (isRecord(c) && typeof c.name === 'string') out[c.name] = String(c.image ?? '');
  return out;
}

/** "a=b,c in (d,e)" from a LabelSelector; "" for an empty selector (which selects everything). */
export function selectorString(selector: unknown): string {
  if (!isRecord(selector)) return '';
  const parts: string[] = [];
  const labels = isRecord(selector.matchLabels) ? selector.matchLabels : {};
  for (const [k, v] of Object.entries(labels)) parts.push(`${k}=${String(v)}`);
  const exprs = Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [];
  for (const e of exprs) {
    if (!isRecord(e)) continue;
    const values = Array.isArray(e.values) ? e.values.map(String).join(',') : '';
    if (e.operator === 'In') parts.push(`${String(e.key)} in (${values})`);
    else if (e.operator === 'NotIn') parts.push(`${String(e.key)} notin (${values})`);
    else if (e.operator === 'Exists') parts.push(String(e.key));
    else if (e.operator === 'DoesNotExist') parts.push(`!${String(e.key)}`);
  }
  return parts.join(',');
}

export function condition(o: KubeObject, type: string): Record<string, unknown> | undefined {
  const conditions = status(o).conditions;
  if (!Array.isArray(conditions)) return undefined;
  return conditions.find((c): c is Record<string, unknown> => isRecord(c) && c.type === type);
}
