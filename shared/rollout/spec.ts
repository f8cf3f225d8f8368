// Rollout documents → validated, normalised RolloutSpec. Accepts Kruise `rollouts.kruise.io/v1beta1`
// (its fields but trafficRoutingRef, disableGenerateCanaryService and customNetworkRefs) and our `rollouts.serverless-rollouts.io/v1alpha1` (the same plus
// extensions). Every problem is reported at once, each with its path in the document.
import { ValidationError } from '../errors.ts';
import type { FieldIssue } from '../errors.ts';
import type { OurRolloutDoc, StepDoc } from './specSchema.ts';
import { kruiseRolloutSchema, ourRolloutSchema } from './specSchema.ts';
import { toFieldIssues } from './specIssues.ts';
import { crossFieldIssues, requestedDeploymentStrategy, workloadKindOf } from './specRules.ts';
import { workloadTypeOf } from './workloadKinds.ts';
import { type DeploymentStrategy, type IntOrPercent, type ReleaseWindow, type RolloutSpec, type Step, type StepPause } from './types.ts';
import { isRecord } from '../json.ts';
import { seconds, toGate, toLifecycle } from './checkSchema.ts';
import { rollingStyleOfDoc, toPodTemplateMetadataPatch, toStepTraffic, toTrafficRouting } from './trafficRules.ts';
import type { RollingStyle } from './trafficTypes.ts';
import { DEFAULT_SCALE_DOWN_DELAY_SECONDS } from './blueGreen.ts';

export const KRUISE_API_VERSION = 'rollouts.kruise.io/v1beta1';
export const ROLLOUTS_API_VERSION = 'rollouts.serverless-rollouts.io/v1alpha1';
export const ROLLOUT_KIND = 'Rollout';
export const DEFAULT_NAMESPACE = 'default';

export interface ParseContext {
  /** Cluster the Rollout belongs to (not part of the document). */
  cluster: string;
  /** Namespace to use when the document has none (then "default"). */
  namespace?: string;
}


function apiVersionIssue(apiVersion: unknown): FieldIssue {
  if (apiVersion === undefined) return { path: 'apiVersion', reason: 'required' };
  if (apiVersion === 'rollouts.kruise.io/v1alpha1') {
    return { path: 'apiVersion', reason: `Kruise v1alpha1 Rollouts are not supported; convert to ${KRUISE_API_VERSION}` };
  }
  return { path: 'apiVersion', reason: `must be ${ROLLOUTS_API_VERSION} or ${KRUISE_API_VERSION}` };
}

/**
 * Validates and normalises one Rollout document (already parsed from YAML/JSON). Throws
 * ValidationError listing every issue, sorted by path.
 */
export function parseRollout(doc: unknown, ctx: ParseContext): RolloutSpec {
  if (!isRecord(doc)) {
    throw new ValidationError([{ path: '(document)', reason: 'must be a mapping with apiVersion, kind, metadata and spec' }]);
  }
  // Another kind of object (e.g. the Deployment next to it in a bundle): say so rather than list
  // every field that a Rollout does not have.
  if (typeof doc.kind === 'string' && doc.kind !== ROLLOUT_KIND) {
    throw new ValidationError([{ path: 'kind', reason: `must be "${ROLLOUT_KIND}" (this document is a ${doc.kind})` }]);
  }
  const issues: FieldIssue[] = [];
  const apiVersion = doc.apiVersion;
  if (apiVersion !== KRUISE_API_VERSION && apiVersion !== ROLLOUTS_API_VERSION) issues.push(apiVersionIssue(apiVersion));
  // With an unknown apiVersion, check against the superset so the other problems still show up.
  const isKruise = typeof apiVersion === 'string' && apiVersion.startsWith('rollouts.kruise.io/');
  const result = (isKruise ? kruiseRolloutSchema : ourRolloutSchema).safeParse(doc, { reportInput: true });
  if (!result.success) issues.push(...result.error.issues.flatMap((i) => toFieldIssues(i, ROLLOUTS_API_VERSION)));
  issues.push(...crossFieldIssues(doc));
  if (issues.length > 0 || !result.success) {
    throw new ValidationError(issues.sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true })));
  }
  return toSpec(result.data, String(apiVersion), ctx, requestedDeploymentStrategy(doc), rollingStyleOfDoc(doc));
}


/**
 * Our apiVersion fails a batch that is not ready after 10 minutes unless told otherwise (the same
 * default as a Deployment's progressDeadlineSeconds), so a stuck release never hangs silently.
 * Kruise documents keep Kruise's behaviour: no deadline.
 */
export const DEFAULT_BATCH_DEADLINE_SECONDS = 600;

function toSpec(data: OurRolloutDoc, apiVersion: string, ctx: ParseContext, requested: DeploymentStrategy | null, rollingStyle: RollingStyle): RolloutSpec {
  const { workloadRef, strategy } = data.spec;
  const kind = workloadKindOf(workloadRef.apiVersion, workloadRef.kind);
  const body = strategy.canary ?? strategy.blueGreen;
  // Both are guaranteed by crossFieldIssues; the checks keep the types honest.
  if (kind === null || body === undefined) throw new Error('parseRollout: validated document is incomplete');
  const routing = body.trafficRoutings?.[0];
  // The kind's strategies, the default first; none when it moves pods one way.
  const offered = workloadTypeOf(kind).strategies;
  const podMetadata = strategy.canary?.patchPodTemplateMetadata;
  return {
    cluster: ctx.cluster,
    namespace: data.metadata.namespace ?? ctx.namespace ?? DEFAULT_NAMESPACE,
    name: data.metadata.name,
    apiVersion,
    workloadRef: { apiVersion: workloadRef.apiVersion, kind, name: workloadRef.name },
    paused: strategy.paused ?? false,
    steps: normaliseSteps(body.steps, routing !== undefined),
    failureThreshold: body.failureThreshold == null ? null : (body.failureThreshold as IntOrPercent),
    progressDeadlineSeconds: data.spec.progressDeadlineSeconds ?? (apiVersion === ROLLOUTS_API_VERSION ? DEFAULT_BATCH_DEADLINE_SECONDS : null),
    rollbackOnFailure: data.spec.rollbackOnFailure ?? false,
    windows: (data.spec.releaseWindows ?? []).map((w): ReleaseWindow => ({ ...w, days: [...w.days] })),
    startAt: data.spec.startAt === undefined ? null : new Date(data.spec.startAt).toISOString(),
    // A canary-Deployment release is a strategy of its own (WorkloadType.canaryWorkload; rollingStyleOfDoc
    // gives CanaryWorkload only to such kinds, and deploymentStrategy is refused beside it: trafficRules.ts).
    deploymentStrategy: rollingStyle === 'CanaryWorkload' ? 'CanaryWorkload' : offered.length === 0 ? null : (requested ?? offered[0] ?? null),
    onDeletePolicy: workloadTypeOf(kind).onDelete ? (data.spec.onDeletePolicy ?? 'Automatic') : null,
    ...(data.spec.lifecycle ? { lifecycle: toLifecycle(data.spec.lifecycle) } : {}),
    ...(data.spec.podUpdateTimeout === undefined ? {} : { podUpdateTimeoutSeconds: seconds(data.spec.podUpdateTimeout) }),
    ...(rollingStyle === 'InPlace' ? {} : { rollingStyle }),
    // Argo's default in our apiVersion; a Kruise document keeps Kruise's behaviour (no delay) and cannot set it.
    ...(rollingStyle === 'BlueGreen' ? { scaleDownDelaySeconds: scaleDownDelayOf(strategy.blueGreen) ?? (apiVersion === ROLLOUTS_API_VERSION ? DEFAULT_SCALE_DOWN_DELAY_SECONDS : 0) } : {}),
    ...(routing ? { trafficRouting: toTrafficRouting(routing) } : {}),
    ...(podMetadata ? { patchPodTemplateMetadata: toPodTemplateMetadataPatch(podMetadata) } : {}),
  };
}

/** Only our apiVersion's schema has the field (specSchema.ts blueGreenOf). */
function scaleDownDelayOf(blueGreen: unknown): number | undefined {
  const value = isRecord(blueGreen) ? blueGreen.scaleDownDelaySeconds : undefined;
  return typeof value === 'number' ? value : undefined;
}

/**
 * Kruise pause semantics → StepPause: no `pause` (or `pause: {}`) waits for approval; a duration is
 * a timed pause, 0 meaning none; and the last step never pauses when its replicas is the literal
 * "100%" (Kruise `doCanaryPaused`; an int equal to N or "0100%" still pauses, as in Kruise).
 */
export function normaliseSteps(steps: readonly StepDoc[], routed = false): Step[] {
  return steps.map((s, i): Step => {
    const replicas = s.replicas as IntOrPercent;
    const isFinal = i === steps.length - 1 && replicas === '100%';
    const gates = (s.gates ?? []).map(toGate);
    const traffic = routed ? toStepTraffic(s) : undefined;
    return { replicas, pause: isFinal ? { type: 'none' } : toPause(s.pause?.duration), ...(gates.length > 0 ? { gates } : {}), ...(traffic ? { traffic } : {}) };
  });
}

function toPause(duration: number | undefined): StepPause {
  if (duration === undefined) return { type: 'approval' };
  return duration === 0 ? { type: 'none' } : { type: 'timed', seconds: duration };
}

/** Short label for a step's pause: "approval", "<n>s" or "none" (CLI tables, plan JSON). */
export function stepPauseLabel(pause: StepPause): string {
  switch (pause.type) {
    case 'approval':
      return 'approval';
    case 'timed':
      return `${pause.seconds}s`;
    case 'none':
      return 'none';
  }
}
