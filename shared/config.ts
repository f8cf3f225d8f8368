// Configuration of the deployed functions, read once at cold start from the environment and
// validated; the CDK stack sets exactly these variables (infra/ imports ENV to stay in sync).
import { z } from 'zod';
import { ConfigError } from './errors.ts';

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
} as const;

const schema = z.object({
  tableName: z.string().min(3),
  queueUrl: z.string().url(),
  triggerQueueUrl: z.string().url(),
  eventBusName: z.string().min(1),
  eventSource: z.string().min(1).default('serverless-rollouts'),
  maxBodyBytes: z.coerce.number().int().positive().default(256 * 1024),
  watchMarginSeconds: z.coerce.number().int().positive().default(20),
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
