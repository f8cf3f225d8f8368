// Configuration of the deployed functions, read once at cold start from the environment and
// validated; the CDK stack sets exactly these variables (infra/ imports ENV to stay in sync).
import * as z from 'zod';
import { parseAuthorization } from '../api/authorization.ts';
import { ConfigError } from '../errors.ts';

export const ENV = {
  tableName: 'ROLLOUTS_TABLE_NAME',
  /** SQS FIFO queue: MessageGroupId = rollout key (per-key order, 5-minute dedup). */
  queueUrl: 'ROLLOUTS_QUEUE_URL',
  /**
   * Standard SQS queue for delayed re-runs (FIFO has no per-message delay) and for watch-proxy events
   * routed by an EventBridge rule (an SQS-FIFO rule target only takes a static MessageGroupId, which
   * would serialise every rollout in one group). Reconcile is safe under concurrency, so no order is needed.
   */
  triggerQueueUrl: 'ROLLOUTS_TRIGGER_QUEUE_URL',
  eventBusName: 'ROLLOUTS_EVENT_BUS_NAME',
  /** Source of our EventBridge events. */
  eventSource: 'ROLLOUTS_EVENT_SOURCE',
  /** Largest API request body accepted, in bytes. */
  maxBodyBytes: 'ROLLOUTS_MAX_BODY_BYTES',
  /** watch-proxy: stop watching this many seconds before the Lambda timeout. */
  watchMarginSeconds: 'ROLLOUTS_WATCH_MARGIN_SECONDS',
  /** Every managed rollout, Healthy ones included, is reconciled at least this often (the resync). */
  resyncPeriodSeconds: 'ROLLOUTS_RESYNC_PERIOD_SECONDS',
  /** The sweep schedule's rate: each tick covers the resync turns of the interval before it. */
  sweepIntervalSeconds: 'ROLLOUTS_SWEEP_INTERVAL_SECONDS',
  /**
   * Wake-ups beyond SQS's 15-minute delay become one-off EventBridge Scheduler schedules in this
   * group, aimed at the trigger queue (its ARN) through this role. All three or none: without them
   * such wake-ups are found by the sweep (one-minute precision).
   */
  wakeScheduleGroup: 'ROLLOUTS_WAKE_SCHEDULE_GROUP',
  wakeScheduleRoleArn: 'ROLLOUTS_WAKE_SCHEDULE_ROLE_ARN',
  triggerQueueArn: 'ROLLOUTS_TRIGGER_QUEUE_ARN',
  /**
   * The API's authorization policy (JSON, shared/api/authorization.ts): which principals may use
   * which verbs on which clusters and namespaces, and the four-eyes rule. Unset: every IAM caller may do everything.
   */
  apiAuthorization: 'ROLLOUTS_API_AUTHORIZATION',
  /**
   * The watch-proxy function, started on demand (shared/watch/watcherDemand.ts): a reconcile pass
   * whose pods are moving makes sure one runs. Unset: no on-demand watcher (a scheduled one, or none).
   */
  watchProxyFunction: 'ROLLOUTS_WATCH_PROXY_FUNCTION',
  /** How long an on-demand watcher runs at most (its function's timeout minus the watch margin). */
  watcherSeconds: 'ROLLOUTS_WATCHER_SECONDS',
} as const;

/** Deployed defaults (infra/stack.ts passes the same values). */
export const DEFAULT_RESYNC_PERIOD_SECONDS = 300;
export const DEFAULT_SWEEP_INTERVAL_SECONDS = 60;

const schema = z.object({
  tableName: z.string().min(3),
  queueUrl: z.string().url(),
  triggerQueueUrl: z.string().url(),
  eventBusName: z.string().min(1),
  eventSource: z.string().min(1).default('serverless-rollouts'),
  maxBodyBytes: z.coerce.number().int().positive().default(256 * 1024),
  watchMarginSeconds: z.coerce.number().int().positive().default(20),
  resyncPeriodSeconds: z.coerce.number().int().min(1).max(86_400).default(DEFAULT_RESYNC_PERIOD_SECONDS),
  sweepIntervalSeconds: z.coerce.number().int().min(1).max(3600).default(DEFAULT_SWEEP_INTERVAL_SECONDS),
  wakeScheduleGroup: z.string().regex(/^[0-9a-zA-Z-_.]{1,64}$/, { error: 'must be a schedule group name' }).optional(),
  wakeScheduleRoleArn: z.string().regex(/^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/, { error: 'must be an IAM role ARN' }).optional(),
  triggerQueueArn: z.string().regex(/^arn:aws[a-z-]*:sqs:[a-z0-9-]+:\d{12}:[\w-]+$/, { error: 'must be an SQS queue ARN' }).optional(),
  apiAuthorization: z.string().transform((text, ctx) => {
    const parsed = parseAuthorization(text);
    if ('policy' in parsed) return parsed.policy;
    for (const problem of parsed.problems) ctx.addIssue({ code: 'custom', message: `invalid authorization policy: ${problem}` });
    return z.NEVER;
  }).optional(),
  watchProxyFunction: z.string().regex(/^(arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:)?[\w-]{1,64}$/, { error: 'must be a Lambda function name or ARN' }).optional(),
  watcherSeconds: z.coerce.number().int().min(120).max(900).default(880),
}).refine((c) => c.resyncPeriodSeconds >= c.sweepIntervalSeconds, {
  path: ['resyncPeriodSeconds'],
  message: 'must be at least the sweep interval (ROLLOUTS_SWEEP_INTERVAL_SECONDS): a resync cannot come round more often than the sweep ticks',
}).refine((c) => [c.wakeScheduleGroup, c.wakeScheduleRoleArn, c.triggerQueueArn].every((v) => v === undefined) || [c.wakeScheduleGroup, c.wakeScheduleRoleArn, c.triggerQueueArn].every((v) => v !== undefined), {
  path: ['wakeScheduleGroup'],
  message: 'set all of ROLLOUTS_WAKE_SCHEDULE_GROUP, ROLLOUTS_WAKE_SCHEDULE_ROLE_ARN and ROLLOUTS_TRIGGER_QUEUE_ARN, or none',
});

export type Config = z.infer<typeof schema>;

/** Reads and validates the configuration; throws ConfigError naming every bad or missing variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const raw = Object.fromEntries(Object.entries(ENV).map(([key, name]) => [key, env[name] === '' ? undefined : env[name]]));
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => {
    const key = String(i.path[0]) as keyof typeof ENV;
    return `${ENV[key] ?? key}: ${i.message}`;
  });
  throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
}
