// Checks that compare fields of a Rollout document. They read the raw document defensively (any field
// may be missing or malformed, which the schema reports) so that every problem is listed in one pass.
import type { FieldIssue } from '../errors.ts';
import { isPercent, percentValue, replicasProblem } from './intOrPercent.ts';
import { unsupported } from './specIssues.ts';
import type { DeploymentStrategy, IntOrPercent } from './types.ts';
import { strategyKeyOf, trafficIssues } from './trafficRules.ts';
import { parseClock } from './windows.ts';
import { knownWorkloadKinds, workloadKindOf, workloadTypeOf } from './workloadKinds.ts';

export { workloadKindOf };

const ROLLBACK_IN_BATCH = 'rollouts.kruise.io/rollback-in-batch';
/** Kruise's per-Rollout style annotation (v1alpha1 era): "partition" selects its partition style. */
export const ROLLING_STYLE = 'rollouts.kruise.io/rolling-style';
const ROLLING_STYLE_PATH = `metadata.annotations[${JSON.stringify(ROLLING_STYLE)}]`;

function field(obj: unknown, key: string): unknown {
  return typeof obj === 'object' && obj !== null && !Array.isArray(obj) ? (obj as Record<string, unknown>)[key] : undefined;
}

function workloadRefIssues(ref: unknown): FieldIssue[] {
  const apiVersion = field(ref, 'apiVersion');
  const kind = field(ref, 'kind');
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || workloadKindOf(apiVersion, kind)) return [];
  const types = knownWorkloadKinds().map(workloadTypeOf);
  const supported = types.map((t) => `${t.apiVersion} ${t.kind}`).join(', ');
  const knownKind = types.some((t) => t.kind === kind);
  return [{
    path: knownKind ? 'spec.workloadRef.apiVersion' : 'spec.workloadRef.kind',
    reason: `unsupported workloadRef ${apiVersion} ${kind}; supported: ${supported}`,
  }];
}

/**
 * Steps must not go backwards. Like Kruise's `validateRolloutSpecCanarySteps`, only ADJACENT steps of
 * the SAME type (int vs percent) are compared: 5 → "10%" → 3 is accepted, because an int and a percent
 * cannot be ordered without knowing the replica count (and Kruise clamps/never moves back anyway).
 * Values that are invalid on their own are skipped: they already have an issue.
 */
export function decreasingStepIssues(replicas: readonly unknown[], pathOf: (index: number) => string): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (let i = 1; i < replicas.length; i++) {
    const prev = replicas[i - 1];
    const curr = replicas[i];
    if (!isValidReplicas(prev) || !isValidReplicas(curr) || isPercent(prev) !== isPercent(curr)) continue;
    if (magnitude(curr) < magnitude(prev)) {
      issues.push({ path: pathOf(i), reason: `must not be less than the previous step (${String(prev)}): steps never go backwards` });
    }
  }
  return issues;
}

function isValidReplicas(v: unknown): v is IntOrPercent {
  return (typeof v === 'number' || typeof v === 'string') && replicasProblem(v) === null;
}

function magnitude(v: IntOrPercent): number {
  return isPercent(v) ? (percentValue(v) ?? 0) : v;
}

function stepIssues(strategy: unknown): FieldIssue[] {
  if (strategy !== undefined && field(strategy, 'canary') === undefined && field(strategy, 'blueGreen') === undefined) {
    return [{ path: 'spec.strategy.canary', reason: 'required' }];
  }
  const key = strategyKeyOf(strategy);
  const steps = field(field(strategy, key), 'steps');
  if (!Array.isArray(steps)) return [];
  return decreasingStepIssues(steps.map((s) => field(s, 'replicas')), (i) => `spec.strategy.${key}.steps[${i}].replicas`);
}

function windowIssues(windows: unknown): FieldIssue[] {
  if (!Array.isArray(windows)) return [];
  return windows.flatMap((w, i): FieldIssue[] => {
    const start = field(w, 'start');
    const end = field(w, 'end');
    if (typeof start !== 'string' || typeof end !== 'string') return [];
    const s = parseClock(start, false);
    const e = parseClock(end, true);
    if (s === null || e === null || e > s) return [];
    return [{
      path: `spec.releaseWindows[${i}].end`,
      reason: `must be after start (${start}); a window cannot cross midnight: split it in two (use "24:00" for end of day)`,
    }];
  });
}

function annotationIssues(doc: Record<string, unknown>): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const annotations = field(field(doc, 'metadata'), 'annotations');
  if (field(annotations, ROLLBACK_IN_BATCH) === 'true') {
    issues.push({ path: `metadata.annotations[${JSON.stringify(ROLLBACK_IN_BATCH)}]`, reason: unsupported('rollback in batches') });
  }
  const style = field(annotations, ROLLING_STYLE);
  if (typeof style !== 'string') return issues;
  // Kruise v1beta1 reads enableExtraWorkloadForCanary; the annotation is what its v1alpha1 conversion
  // writes beside it (api/v1alpha1/conversion.go), so the two must agree.
  const extra = field(field(field(field(doc, 'spec'), 'strategy'), 'canary'), 'enableExtraWorkloadForCanary') === true;
  if (style.toLowerCase() === 'canary') {
    if (!extra) issues.push({ path: ROLLING_STYLE_PATH, reason: 'says "canary" but spec.strategy.canary.enableExtraWorkloadForCanary is not true: Kruise v1beta1 reads the field; set it, or remove the annotation' });
  } else if (rollingStyleOf(style) === null) {
    issues.push({ path: ROLLING_STYLE_PATH, reason: 'must be "partition" (or leave it out for the MinReadySeconds strategy)' });
  } else if (extra) {
    issues.push({ path: ROLLING_STYLE_PATH, reason: 'says "partition" but spec.strategy.canary.enableExtraWorkloadForCanary is true; keep one' });
  }
  return issues;
}

/** Kruise's rolling-style value → our strategy (Kruise compares it case-insensitively); null if not one we implement. */
function rollingStyleOf(value: string): DeploymentStrategy | null {
  return value.toLowerCase() === 'partition' ? 'Partition' : null;
}

/** The strategy the document asks for (field, else Kruise's annotation), or null when it names none. */
export function requestedDeploymentStrategy(doc: Record<string, unknown>): DeploymentStrategy | null {
  const fromField = field(field(doc, 'spec'), 'deploymentStrategy');
  if (fromField === 'MinReadySeconds' || fromField === 'Partition') return fromField;
  const style = field(field(field(doc, 'metadata'), 'annotations'), ROLLING_STYLE);
  return typeof style === 'string' ? rollingStyleOf(style) : null;
}

/** The strategy only means something for the kinds that offer several (WorkloadType.strategies); a field and an annotation must agree. */
function strategyIssues(doc: Record<string, unknown>): FieldIssue[] {
  const spec = field(doc, 'spec');
  const fromField = field(spec, 'deploymentStrategy');
  const style = field(field(field(doc, 'metadata'), 'annotations'), ROLLING_STYLE);
  const ref = field(spec, 'workloadRef');
  const apiVersion = field(ref, 'apiVersion');
  const kind = typeof apiVersion === 'string' ? workloadKindOf(apiVersion, String(field(ref, 'kind'))) : null;
  const issues: FieldIssue[] = [];
  if (kind !== null && workloadTypeOf(kind).strategies.length === 0) {
    const which = knownWorkloadKinds().filter((k) => workloadTypeOf(k).strategies.length > 0).map((k) => `${k}s`).join(', ');
    if (fromField !== undefined) issues.push({ path: 'spec.deploymentStrategy', reason: `applies to ${which} only; a ${kind} has one way of moving pods` });
    if (style !== undefined) issues.push({ path: ROLLING_STYLE_PATH, reason: `applies to ${which} only; a ${kind} has one way of moving pods` });
  }
  if ((fromField === 'MinReadySeconds' || fromField === 'Partition') && typeof style === 'string' && rollingStyleOf(style) !== null && rollingStyleOf(style) !== fromField) {
    issues.push({ path: 'spec.deploymentStrategy', reason: `is ${fromField} but the annotation ${ROLLING_STYLE} asks for ${rollingStyleOf(style) ?? style}; keep one` });
  }
  return issues;
}

/** spec.onDeletePolicy chooses who deletes the pods of an OnDelete workload: only kinds that can be OnDelete have it. */
function onDeletePolicyIssues(doc: Record<string, unknown>): FieldIssue[] {
  const spec = field(doc, 'spec');
  if (field(spec, 'onDeletePolicy') === undefined) return [];
  const ref = field(spec, 'workloadRef');
  const apiVersion = field(ref, 'apiVersion');
  const kind = typeof apiVersion === 'string' ? workloadKindOf(apiVersion, String(field(ref, 'kind'))) : null;
  if (kind === null || workloadTypeOf(kind).onDelete) return [];
  const which = knownWorkloadKinds().filter((k) => workloadTypeOf(k).onDelete).join(', ');
  return [{ path: 'spec.onDeletePolicy', reason: `applies to workloads that can use updateStrategy OnDelete (${which}); a ${kind} has no OnDelete strategy` }];
}

/**
 * A preUpdate must come before the very pod the batch replaces: the kind says whether it can, always,
 * never, or under one strategy (WorkloadType.preUpdate, e.g. a Deployment's needs Partition: with
 * MinReadySeconds the Deployment controller deletes old pods itself). postUpdate works everywhere.
 */
function hookIssues(doc: Record<string, unknown>): FieldIssue[] {
  const spec = field(doc, 'spec');
  if (field(field(spec, 'lifecycle'), 'preUpdate') === undefined) return [];
  const ref = field(spec, 'workloadRef');
  const apiVersion = field(ref, 'apiVersion');
  const kind = typeof apiVersion === 'string' ? workloadKindOf(apiVersion, String(field(ref, 'kind'))) : null;
  if (kind === null) return [];
  const type = workloadTypeOf(kind);
  const can = type.preUpdate;
  if (can.when === 'always' || (can.when !== 'never' && (requestedDeploymentStrategy(doc) ?? type.strategies[0]) === can.when)) return [];
  return [{ path: 'spec.lifecycle.preUpdate', reason: can.why }];
}

/** Every cross-field problem of a Rollout document (which may be otherwise malformed). */
export function crossFieldIssues(doc: Record<string, unknown>): FieldIssue[] {
  const spec = field(doc, 'spec');
  return [
    ...annotationIssues(doc),
    ...strategyIssues(doc),
    ...onDeletePolicyIssues(doc),
    ...hookIssues(doc),
    ...workloadRefIssues(field(spec, 'workloadRef')),
    ...stepIssues(field(spec, 'strategy')),
    ...windowIssues(field(spec, 'releaseWindows')),
    ...trafficIssues(doc),
  ];
}
