// zod schemas for Rollout documents: structure plus checks that look at one field at a time. Checks
// that compare fields (step order, window start/end, workloadRef kind) live in specRules.ts so they
// run even when an unrelated field is malformed. Every object is strict: unknown fields are errors.
import * as z from 'zod';
import { replicasProblem, thresholdProblem } from './intOrPercent.ts';
import { unsupported } from './specIssues.ts';
import { DEPLOYMENT_STRATEGIES, ON_DELETE_POLICIES, WEEKDAYS } from './types.ts';
import { isKnownTimeZone, parseClock } from './windows.ts';
import { gatesSchema, lifecycleSchema, podUpdateTimeoutSchema } from './checkSchema.ts';
import { patchPodTemplateMetadata, stepTrafficFields, trafficRoutings } from './trafficSchema.ts';

/** Kruise's CRD limit on `steps`. */
export const MAX_STEPS = 50;
const MAX_INT32 = 2_147_483_647;

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export const dnsSubdomain = z.string().refine((s) => s.length <= 253 && DNS1123_SUBDOMAIN.test(s), {
  error: 'must be a DNS-1123 subdomain: lowercase letters, digits, "-" and ".", starting and ending with a letter or digit, at most 253 characters',
});
export const dnsLabel = z.string().refine((s) => s.length <= 63 && DNS1123_LABEL.test(s), {
  error: 'must be a DNS-1123 label: lowercase letters, digits and "-", starting and ending with a letter or digit, at most 63 characters',
});

/** An IntOrString field with a rule from intOrPercent.ts. */
export function intOrPercent(problem: (v: number | string) => string | null) {
  return z
    .union([z.number(), z.string()], { error: 'must be an integer or a percent string such as "50%"' })
    .superRefine((v, ctx) => {
      const reason = problem(v);
      if (reason) ctx.addIssue({ code: 'custom', message: reason, input: v });
    });
}

/** `false` is Kruise's default and harmless; `true` asks for a feature we do not have. */
function onlyFalse(feature: string) {
  return z.boolean().refine((v) => !v, { error: unsupported(feature) }).optional();
}

// Kruise v1beta1 RolloutPause is a struct, not a pointer: `pause:` (null) and `pause: {}` both mean
// "wait for approval".
const pause = z
  .strictObject({
    duration: z
      .number()
      .int()
      .min(0, { error: 'must be >= 0 seconds (0 = no pause)' })
      .max(MAX_INT32, { error: `must be <= ${MAX_INT32} seconds` })
      .optional(),
  })
  .nullable()
  .optional();

const kruiseStep = z.strictObject({ replicas: intOrPercent(replicasProblem), pause, ...stepTrafficFields });
/** Our apiVersion's step: Kruise's plus gates. */
const step = kruiseStep.extend({ gates: gatesSchema });

function stepsOf<S extends z.ZodType>(stepSchema: S) {
  return z
    .array(stepSchema)
    .min(1, { error: 'at least one step is required' })
    .max(MAX_STEPS, { error: `at most ${MAX_STEPS} steps are allowed (Kruise limit)` });
}

function canaryOf<S extends z.ZodType>(stepSchema: S) {
  return z.strictObject({
    steps: stepsOf(stepSchema),
    failureThreshold: intOrPercent(thresholdProblem).nullable().optional(),
    enableExtraWorkloadForCanary: z.boolean().optional(),
    trafficRoutings: trafficRoutings.optional(),
    patchPodTemplateMetadata: patchPodTemplateMetadata.nullable().optional(),
  });
}

/**
 * Seconds from the new revision at full size to the old one scaled down (Argo Rollouts'
 * blueGreen.scaleDownDelaySeconds, an int32 there too); our apiVersion only: Kruise has no such field.
 */
const scaleDownDelaySeconds = z
  .number()
  .int()
  .min(0, { error: 'must be >= 0 seconds (0 scales the old revision down as soon as the new one is Available)' })
  .max(MAX_INT32, { error: `must be <= ${MAX_INT32} seconds` });

/** Kruise's BlueGreenStrategy: the canary's fields but the canary Deployment's; ours adds scaleDownDelaySeconds. */
function blueGreenOf<S extends z.ZodType>(stepSchema: S, ours: boolean) {
  return z.strictObject({
    steps: stepsOf(stepSchema),
    failureThreshold: intOrPercent(thresholdProblem).nullable().optional(),
    trafficRoutings: trafficRoutings.optional(),
    ...(ours ? { scaleDownDelaySeconds: scaleDownDelaySeconds.optional() } : {}),
  });
}

const clock = (allowEndOfDay: boolean) =>
  z.string().refine((s) => parseClock(s, allowEndOfDay) !== null, {
    error: allowEndOfDay ? 'must be a time "HH:MM" from 00:00 to 24:00' : 'must be a time "HH:MM" from 00:00 to 23:59',
  });

const releaseWindow = z.strictObject({
  days: z
    .array(z.enum(WEEKDAYS, { error: `must be one of ${WEEKDAYS.join(', ')}` }))
    .min(1, { error: 'list at least one day' }),
  start: clock(false),
  end: clock(true),
  timeZone: z.string().refine(isKnownTimeZone, { error: 'unknown IANA time zone (e.g. "Europe/Paris", "UTC")' }),
});

function specFieldsOf<S extends z.ZodType>(stepSchema: S, ours: boolean) {
  return {
    workloadRef: z.strictObject({ apiVersion: z.string(), kind: z.string(), name: dnsSubdomain }),
    strategy: z.strictObject({
      paused: z.boolean().optional(),
      // Both optional here; specRules.ts requires exactly one of them.
      canary: canaryOf(stepSchema).optional(),
      blueGreen: blueGreenOf(stepSchema, ours).optional(),
    }),
    disabled: onlyFalse('disabling a Rollout, disabled: true'),
  };
}

const extensionFields = {
  progressDeadlineSeconds: z
    .number()
    .int()
    .positive({ error: 'must be > 0 seconds' })
    .optional(),
  rollbackOnFailure: z.boolean().optional(),
  releaseWindows: z.array(releaseWindow).optional(),
  startAt: z.iso
    .datetime({ offset: true, error: 'must be an RFC 3339 instant such as "2026-03-02T09:00:00Z" or "2026-03-02T10:00:00+01:00"' })
    .optional(),
  deploymentStrategy: z.enum(DEPLOYMENT_STRATEGIES).optional(),
  onDeletePolicy: z.enum(ON_DELETE_POLICIES).optional(),
  lifecycle: lifecycleSchema,
  podUpdateTimeout: podUpdateTimeoutSchema,
};

const metadata = z.strictObject({
  name: dnsSubdomain,
  namespace: dnsLabel.optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
});

function documentSchema<S extends z.ZodRawShape>(specShape: S) {
  return z.strictObject({
    // apiVersion is checked by parseRollout before the schema is chosen.
    apiVersion: z.unknown(),
    kind: z.literal('Rollout', { error: 'must be "Rollout"' }),
    metadata,
    spec: z.strictObject(specShape),
  });
}

export const kruiseRolloutSchema = documentSchema(specFieldsOf(kruiseStep, false));
export const ourRolloutSchema = documentSchema({ ...specFieldsOf(step, true), ...extensionFields });

export type OurRolloutDoc = z.output<typeof ourRolloutSchema>;
export type StepDoc = z.output<typeof step>;
