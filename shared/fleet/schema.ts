// zod schema of the FleetRollout document: structure and one-field checks, each with a reason a fleet
// author can act on, in the style of shared/rollout/specSchema.ts. The per-cluster policy
// (spec.template.spec) is a Rollout's spec and is validated by the Rollout parser itself (parse.ts);
// checks that compare fields live in rules.ts. Every object is strict: unknown fields are errors.
import * as z from 'zod';
import { duration, gatesSchema } from '../rollout/checkSchema.ts';
import { replicasProblem, thresholdProblem } from '../rollout/intOrPercent.ts';
import { dnsLabel, dnsSubdomain, intOrPercent } from '../rollout/specSchema.ts';
import { labelKeyProblem, labelsSchema, selectorSchema } from './labels.ts';

export const FLEET_KIND = 'FleetRollout';
/** Kubefleet's limit on stages (ClusterStagedUpdateStrategy), which is as many waves as anyone needs. */
export const MAX_WAVES = 31;
/** How long an unreachable member may hold its wave before it counts as failed, unless told otherwise. */
export const DEFAULT_UNREACHABLE_DEADLINE_SECONDS = 600;

/** A share of the clusters left: 1..100, written 25 or "25%". */
const percent = z.union([z.number(), z.string()], { error: 'must be a percent from 1 to 100, such as 25 or "25%"' }).superRefine((v, ctx) => {
  const reason = replicasProblem(typeof v === 'number' ? `${v}%` : v);
  if (reason) ctx.addIssue({ code: 'custom', message: typeof v === 'number' && !Number.isInteger(v) ? 'must be a whole percent from 1 to 100' : reason, input: v });
});

const labelKey = z.string().superRefine((k, ctx) => {
  const problem = labelKeyProblem(k);
  if (problem) ctx.addIssue({ code: 'custom', message: `must be a label key: ${problem}`, input: k });
});

const after = z.strictObject({
  bake: duration({ min: 0, max: 7 * 86_400 }).optional(),
  approval: z.boolean().optional(),
  gates: gatesSchema,
});

const wave = z.strictObject({
  name: dnsLabel,
  selector: selectorSchema.optional(),
  count: z.number().int({ error: 'must be a whole number of clusters' }).min(1, { error: 'must be at least 1 cluster' }).optional(),
  percent: percent.optional(),
  maxConcurrency: intOrPercent(replicasProblem).optional(),
  sortingLabelKey: labelKey.optional(),
  after: after.optional(),
}).superRefine((w, ctx) => {
  const picks = (['selector', 'count', 'percent'] as const).filter((k) => w[k] !== undefined);
  if (picks.length > 1) {
    ctx.addIssue({ code: 'custom', message: `a wave picks its clusters by one of selector, count or percent (this one has ${picks.join(' and ')})`, input: w });
  }
});

const workload = z.strictObject({
  namespace: dnsLabel,
  kind: z.string(),
  apiVersion: z.string().optional(),
  name: dnsSubdomain,
});

export const fleetDocumentSchema = z.strictObject({
  // apiVersion is checked by parseFleetRollout.
  apiVersion: z.unknown(),
  kind: z.literal(FLEET_KIND, { error: `must be "${FLEET_KIND}"` }),
  metadata: z.strictObject({
    name: dnsSubdomain,
    labels: z.record(z.string(), z.string()).optional(),
    annotations: z.record(z.string(), z.string()).optional(),
  }),
  spec: z.strictObject({
    workload,
    clusterSelector: selectorSchema,
    template: z.strictObject({
      metadata: z.strictObject({ labels: labelsSchema.optional(), annotations: z.record(z.string(), z.string()).optional() }).optional(),
      // A Rollout's spec: parse.ts validates it with the Rollout parser.
      spec: z.record(z.string(), z.unknown(), { error: 'must be a mapping: a Rollout\'s spec (strategy, deadlines, windows, hooks)' }),
    }),
    waves: z.array(wave).min(1, { error: 'at least one wave is required' }).max(MAX_WAVES, { error: `at most ${MAX_WAVES} waves are allowed` }),
    maxFailures: intOrPercent(thresholdProblem).optional(),
    rollbackOnFailure: z.boolean().optional(),
    unreachableDeadline: duration({ min: 30, max: 86_400 }).optional(),
  }),
});

export type FleetDocument = z.output<typeof fleetDocumentSchema>;
export type WaveDocument = z.output<typeof wave>;
