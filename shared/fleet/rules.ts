// Checks of a FleetRollout document that compare fields, read defensively from the raw document (any
// field may be malformed, which the schema reports) so that every problem is listed in one pass, as
// shared/rollout/specRules.ts does for Rollouts.
import type { FieldIssue } from '../errors.ts';
import { isRecord } from '../json.ts';
import { WORKLOAD_KINDS, WORKLOAD_TYPES, workloadKindOf, type WorkloadKind } from '../rollout/workloadKinds.ts';
import { sameSelector, selectorSchema, toSelector, type LabelSelector } from './labels.ts';

export function field(obj: unknown, key: string): unknown {
  return isRecord(obj) ? obj[key] : undefined;
}

/**
 * The product's kind of `spec.workload`: its kind name from the registry's table (Deployment,
 * AdvancedStatefulSet…), or a Kubernetes kind with its apiVersion, as a Rollout's workloadRef.
 */
export function fleetWorkloadKind(kind: unknown, apiVersion: unknown): WorkloadKind | null {
  if (typeof kind !== 'string') return null;
  if (apiVersion === undefined) return (WORKLOAD_KINDS as readonly string[]).includes(kind) ? kind as WorkloadKind : null;
  return typeof apiVersion === 'string' ? workloadKindOf(apiVersion, kind) : null;
}

function workloadIssues(workload: unknown): FieldIssue[] {
  const kind = field(workload, 'kind');
  const apiVersion = field(workload, 'apiVersion');
  if (typeof kind !== 'string' || (apiVersion !== undefined && typeof apiVersion !== 'string')) return [];
  if (fleetWorkloadKind(kind, apiVersion) !== null) return [];
  const names = WORKLOAD_KINDS.join(', ');
  const pairs = WORKLOAD_KINDS.map((k) => `${WORKLOAD_TYPES[k].apiVersion} ${WORKLOAD_TYPES[k].kind}`).join(', ');
  if (apiVersion === undefined) return [{ path: 'spec.workload.kind', reason: `unsupported workload kind ${kind}; supported: ${names} (or a kind with its apiVersion: ${pairs})` }];
  const knownKind = WORKLOAD_KINDS.some((k) => WORKLOAD_TYPES[k].kind === kind);
  return [{ path: knownKind ? 'spec.workload.apiVersion' : 'spec.workload.kind', reason: `unsupported workload ${apiVersion} ${kind}; supported: ${pairs}` }];
}

function parsedSelector(raw: unknown): LabelSelector | null {
  const r = selectorSchema.safeParse(raw);
  return r.success ? toSelector(r.data) : null;
}

function waveIssues(waves: unknown): FieldIssue[] {
  if (!Array.isArray(waves)) return [];
  const issues: FieldIssue[] = [];
  const names = new Map<string, number>();
  const selectors: { index: number; selector: LabelSelector }[] = [];
  for (const [i, w] of waves.entries()) {
    const name = field(w, 'name');
    if (typeof name === 'string') {
      const first = names.get(name);
      if (first === undefined) names.set(name, i);
      else issues.push({ path: `spec.waves[${i}].name`, reason: `"${name}" already names spec.waves[${first}]: wave names are unique` });
    }
    const selector = field(w, 'selector') === undefined ? null : parsedSelector(field(w, 'selector'));
    if (selector !== null) {
      const same = selectors.find((s) => sameSelector(s.selector, selector));
      if (same) issues.push({ path: `spec.waves[${i}].selector`, reason: `selects the same clusters as spec.waves[${same.index}].selector: a cluster belongs to one wave` });
      selectors.push({ index: i, selector });
    }
    const takesRest = isRecord(w) && w.selector === undefined && w.count === undefined && w.percent === undefined;
    if (takesRest && i < waves.length - 1) {
      issues.push({
        path: `spec.waves[${i}]`,
        reason: 'has no selector, count or percent, so it takes every cluster left and the waves after it would never get one: give it one, or make it the last wave',
      });
    }
  }
  return issues;
}

function templateIssues(template: unknown): FieldIssue[] {
  if (field(field(template, 'spec'), 'workloadRef') === undefined) return [];
  return [{ path: 'spec.template.spec.workloadRef', reason: 'is set by spec.workload (the same workload in every member cluster); remove it' }];
}

/** Every cross-field problem of a FleetRollout document (which may be otherwise malformed). */
export function fleetCrossFieldIssues(doc: Record<string, unknown>): FieldIssue[] {
  const spec = field(doc, 'spec');
  return [...workloadIssues(field(spec, 'workload')), ...waveIssues(field(spec, 'waves')), ...templateIssues(field(spec, 'template'))];
}
