// FleetRollout document → validated, normalised FleetSpec. Every problem is reported at once with its
// path in the document. The per-cluster policy is validated by parseRollout itself, on the member
// Rollout the fleet would apply (shared/fleet/member.ts), so a member spec is accepted exactly when a
// Rollout with that spec would be; its issues are reported under spec.template.
import { ValidationError, type FieldIssue } from '../errors.ts';
import { isRecord } from '../json.ts';
import { seconds, toGate } from '../rollout/checkSchema.ts';
import { ROLLOUTS_API_VERSION, ROLLOUT_KIND, parseRollout } from '../rollout/spec.ts';
import { toFieldIssues } from '../rollout/specIssues.ts';
import type { IntOrPercent, RolloutSpec } from '../rollout/types.ts';
import { WORKLOAD_TYPES, type WorkloadKind } from '../rollout/workloadKinds.ts';
import { toSelector } from './labels.ts';
import { fleetCrossFieldIssues, field, fleetWorkloadKind } from './rules.ts';
import { DEFAULT_UNREACHABLE_DEADLINE_SECONDS, FLEET_KIND, fleetDocumentSchema, type FleetDocument, type WaveDocument } from './schema.ts';
import type { FleetSpec, FleetWindow, MemberPolicy, WavePick, WaveSpec } from './types.ts';

/** Placeholders for what a member gets from its cluster and the fleet (validated at the fleet's own paths). */
const PLACEHOLDER_NAME = 'fleet-member';
const PLACEHOLDER_NAMESPACE = 'default';
/** Windows of the policy written without a zone are read in each member cluster's; UTC stands in to validate them. */
const PLACEHOLDER_ZONE = 'UTC';

export function parseFleetRollout(doc: unknown): FleetSpec {
  if (!isRecord(doc)) {
    throw new ValidationError([{ path: '(document)', reason: 'must be a mapping with apiVersion, kind, metadata and spec' }]);
  }
  if (typeof doc.kind === 'string' && doc.kind !== FLEET_KIND) {
    throw new ValidationError([{ path: 'kind', reason: `must be "${FLEET_KIND}" (this document is a ${doc.kind})` }]);
  }
  const issues: FieldIssue[] = [];
  if (doc.apiVersion !== ROLLOUTS_API_VERSION) {
    issues.push({ path: 'apiVersion', reason: doc.apiVersion === undefined ? 'required' : `must be ${ROLLOUTS_API_VERSION}` });
  }
  const result = fleetDocumentSchema.safeParse(doc, { reportInput: true });
  if (!result.success) issues.push(...result.error.issues.flatMap((i) => toFieldIssues(i, ROLLOUTS_API_VERSION)));
  issues.push(...fleetCrossFieldIssues(doc));
  const member = memberPolicy(doc, issues);
  if (issues.length > 0 || !result.success || member === null) {
    throw new ValidationError(dedupe(issues).sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true })));
  }
  return toFleetSpec(result.data, member);
}

/**
 * The member policy, validated as the Rollout each member would be, its issues (under
 * spec.template) added to `issues`; null when it has any.
 */
function memberPolicy(doc: Record<string, unknown>, issues: FieldIssue[]): { spec: RolloutSpec; localWindows: boolean[] } | null {
  const spec = field(doc, 'spec');
  const template = field(spec, 'template');
  const templateSpec = field(template, 'spec');
  if (!isRecord(templateSpec)) return null; // the schema says why
  const workload = field(spec, 'workload');
  const kind = fleetWorkloadKind(field(workload, 'kind'), field(workload, 'apiVersion'));
  const windows = templateSpec.releaseWindows;
  const localWindows = Array.isArray(windows) ? windows.map((w) => isRecord(w) && w.timeZone === undefined) : [];
  const memberDoc = {
    apiVersion: ROLLOUTS_API_VERSION,
    kind: ROLLOUT_KIND,
    metadata: { ...(isRecord(field(template, 'metadata')) ? field(template, 'metadata') as object : {}), name: PLACEHOLDER_NAME, namespace: PLACEHOLDER_NAMESPACE },
    spec: {
      ...templateSpec,
      ...(Array.isArray(windows) ? { releaseWindows: windows.map((w, i) => (localWindows[i] ? { ...w, timeZone: PLACEHOLDER_ZONE } : w)) } : {}),
      workloadRef: workloadRef(kind ?? 'Deployment', PLACEHOLDER_NAME),
    },
  };
  try {
    return { spec: parseRollout(memberDoc, { cluster: PLACEHOLDER_NAME }), localWindows };
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    issues.push(...err.issues.flatMap((i) => memberIssue(i, kind !== null)));
    return null;
  }
}

/** A Rollout issue of the member document, at its place in the FleetRollout (null: the fleet reports it itself). */
function memberIssue(issue: FieldIssue, kindKnown: boolean): FieldIssue[] {
  const { path } = issue;
  if (path.startsWith('spec.workloadRef') || path === 'metadata.name' || path === 'metadata.namespace' || path === 'kind' || path === 'apiVersion') return [];
  // Kind-specific rules mean nothing while spec.workload.kind is itself wrong.
  if (!kindKnown && /^spec\.(deploymentStrategy|onDeletePolicy|lifecycle\.preUpdate)/.test(path)) return [];
  if (path === 'spec' || path.startsWith('spec.') || path.startsWith('spec[')) return [{ path: `spec.template.${path}`, reason: issue.reason }];
  if (path.startsWith('metadata')) return [{ path: `spec.template.${path}`, reason: issue.reason }];
  return [{ path: 'spec.template.spec', reason: `${path}: ${issue.reason}` }];
}

function workloadRef(kind: WorkloadKind, name: string): { apiVersion: string; kind: string; name: string } {
  return { apiVersion: WORKLOAD_TYPES[kind].apiVersion, kind: WORKLOAD_TYPES[kind].kind, name };
}

function dedupe(issues: FieldIssue[]): FieldIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const key = `${i.path}\u0000${i.reason}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function toFleetSpec(data: FleetDocument, member: { spec: RolloutSpec; localWindows: boolean[] }): FleetSpec {
  const { workload, waves } = data.spec;
  const kind = fleetWorkloadKind(workload.kind, workload.apiVersion);
  // Guaranteed by fleetCrossFieldIssues; the check keeps the types honest.
  if (kind === null) throw new Error('parseFleetRollout: validated document has no workload kind');
  const { cluster: _cluster, namespace: _namespace, name: _name, windows, fleet: _fleet, ...policy } = member.spec;
  return {
    apiVersion: ROLLOUTS_API_VERSION,
    name: data.metadata.name,
    workload: { namespace: workload.namespace, kind, apiVersion: WORKLOAD_TYPES[kind].apiVersion, name: workload.name },
    clusterSelector: toSelector(data.spec.clusterSelector),
    member: { ...policy, workloadRef: { ...policy.workloadRef, name: workload.name } } satisfies MemberPolicy,
    windows: windows.map((w, i): FleetWindow => ({ ...w, timeZone: member.localWindows[i] ? null : w.timeZone })),
    waves: waves.map(toWave),
    maxFailures: (data.spec.maxFailures ?? 0) as IntOrPercent,
    rollbackOnFailure: data.spec.rollbackOnFailure ?? false,
    unreachableDeadlineSeconds: data.spec.unreachableDeadline === undefined ? DEFAULT_UNREACHABLE_DEADLINE_SECONDS : seconds(data.spec.unreachableDeadline),
  };
}

function toWave(w: WaveDocument): WaveSpec {
  return {
    name: w.name,
    pick: toPick(w),
    maxConcurrency: (w.maxConcurrency ?? 1) as IntOrPercent,
    sortingLabelKey: w.sortingLabelKey ?? null,
    after: {
      bakeSeconds: w.after?.bake === undefined ? 0 : seconds(w.after.bake),
      approval: w.after?.approval ?? false,
      gates: (w.after?.gates ?? []).map(toGate),
    },
  };
}

function toPick(w: WaveDocument): WavePick {
  if (w.selector !== undefined) return { type: 'selector', selector: toSelector(w.selector) };
  if (w.count !== undefined) return { type: 'count', count: w.count };
  if (w.percent !== undefined) return { type: 'percent', percent: typeof w.percent === 'number' ? w.percent : Number.parseInt(w.percent, 10) };
  return { type: 'rest' };
}
