// The stored SPEC is checked before a pass plans with it. The API only stores what parseRollout
// produced, but an item written by another version, restored from a backup or edited by hand may
// not have that shape, and planning with it would fail on every pass (or worse, act on garbage).
// Such a spec is a TerminalError: the rollout goes Degraded naming the field until it is applied again.
import * as z from 'zod';
import { TerminalError } from '../errors.ts';
import { RELEASE_STRATEGIES } from '../rollout/workloadType.ts';
import { WEEKDAYS, WORKLOAD_KINDS, type RolloutSpec } from '../rollout/types.ts';
import { formatPath } from '../rollout/specIssues.ts';

const intOrPercent = z.union([z.number().int().min(0), z.string().regex(/^\d+%$/)]);
const pause = z.discriminatedUnion('type', [
  z.object({ type: z.literal('approval') }),
  z.object({ type: z.literal('timed'), seconds: z.number().positive() }),
  z.object({ type: z.literal('none') }),
]);

const seconds = z.number().min(0);
const gate = z.object({
  name: z.string().min(1),
  provider: z.object({ kind: z.enum(['http', 'lambda', 'cloudwatchAlarm', 'prometheus']) }),
  intervalSeconds: seconds, initialDelaySeconds: seconds, count: z.number().int().min(1), failureLimit: z.number().int().min(0),
  consecutiveErrorLimit: z.number().int().min(0), timeoutSeconds: seconds,
});
const hook = z.object({
  target: z.object({ kind: z.enum(['exec', 'http', 'lambda']) }), timeoutSeconds: seconds, retries: z.number().int().min(0), backoffSeconds: seconds,
}).nullable();

/** Not strict: a newer version may add fields, which this one ignores. */
const storedSpec = z.object({
  cluster: z.string().min(1),
  namespace: z.string().min(1),
  name: z.string().min(1),
  apiVersion: z.string().min(1),
  workloadRef: z.object({ apiVersion: z.string().min(1), kind: z.enum(WORKLOAD_KINDS), name: z.string().min(1) }),
  paused: z.boolean(),
  steps: z.array(z.object({ replicas: intOrPercent, pause, gates: z.array(gate).optional() })).min(1),
  failureThreshold: intOrPercent.nullable(),
  progressDeadlineSeconds: z.number().positive().nullable(),
  rollbackOnFailure: z.boolean(),
  windows: z.array(z.object({ days: z.array(z.enum(WEEKDAYS)).min(1), start: z.string(), end: z.string(), timeZone: z.string().min(1) })),
  startAt: z.string().nullable(),
  deploymentStrategy: z.enum(RELEASE_STRATEGIES).nullable(),
  lifecycle: z.object({ preUpdate: hook, postUpdate: hook }).optional(),
  podUpdateTimeoutSeconds: z.number().positive().nullable().optional(),
  scaleDownDelaySeconds: z.number().int().min(0).optional(),
  /** A fleet member's: the fleet that owns it and its wave (shared/fleet/member.ts). */
  fleet: z.object({ name: z.string().min(1), wave: z.string().min(1).nullable() }).nullable().optional(),
});

/** The stored spec as it is, or a TerminalError naming what is wrong with it. */
export function checkStoredSpec(spec: unknown): RolloutSpec {
  const parsed = storedSpec.safeParse(spec);
  if (parsed.success) return spec as RolloutSpec;
  const issue = parsed.error.issues[0];
  const where = issue ? `${formatPath(issue.path)}: ${issue.message}` : 'unreadable';
  throw new TerminalError(`the stored Rollout is invalid (${where}); apply the Rollout again`);
}
