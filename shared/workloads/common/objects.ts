// Reads of wire-format Kubernetes objects shared by every workload driver (and the API's views).
// Pure and defensive: drivers see the apiserver's JSON, typed only as far as they use it.
import type { KubeObject, ObjectRef } from '../../kube/types.ts';
import { isRecord } from '../../json.ts';


/** JSON with sorted keys and without nulls/empty maps, so equal templates serialise equally. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(normalise(value));
}

function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalise);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = normalise(value[key]);
    if (v === null || v === undefined) continue;
    if (isRecord(v) && Object.keys(v).length === 0) continue;
    out[key] = v;
  }
  return out;
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

export function isControlledBy(child: KubeObject, owner: KubeObject): boolean {
  return (child.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.uid === owner.metadata.uid);
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

/** The reference of an observed object, for writes. */
export function objectRef(o: KubeObject): ObjectRef {
  return { apiVersion: o.apiVersion, kind: o.kind, namespace: o.metadata.namespace ?? 'default', name: o.metadata.name };
}
