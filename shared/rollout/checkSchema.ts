// zod schemas of the hook and gate fields of our apiVersion (spec.lifecycle, spec.podUpdateTimeout,
// steps[].gates) and their normalisation into shared/rollout/checkTypes.ts. Every field is checked
// on its own here, with a reason a Rollout author can act on; specSchema.ts composes them.
import * as z from 'zod';
import { durationMs } from './duration.ts';
import { promqlProblem } from './promql.ts';
import { COMPARISON_OPS, type ComparisonOp, type Gate, type GateProvider, type Hook, type HookTarget, type LambdaTarget, type Lifecycle } from './checkTypes.ts';

/**
 * One call (a gate's check, a hook) never outlasts this: the reconcile function waits for it within
 * its own 30 s timeout (infra/stack.ts RECONCILE_TIMEOUT), with room for the rest of the pass.
 */
export const MAX_CALL_TIMEOUT_SECONDS = 20;
const MAX_RETRIES = 20;

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const LAMBDA_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const LAMBDA_QUALIFIER = /^(\$LATEST|[a-zA-Z0-9_-]{1,128})$/;
const LAMBDA_ARN = /^arn:aws[a-z-]*:lambda:([a-z0-9-]+):(\d{12}):function:([a-zA-Z0-9_-]{1,64})(?::(\$LATEST|[a-zA-Z0-9_-]{1,128}))?$/;
const LAMBDA_PARTIAL = /^(\d{12}):function:([a-zA-Z0-9_-]{1,64})(?::(\$LATEST|[a-zA-Z0-9_-]{1,128}))?$/;
const ALARM_ARN = /^arn:aws[a-z-]*:cloudwatch:([a-z0-9-]+):(\d{12}):alarm:(.+)$/;
const AMP_HOST = /^aps-workspaces\.([a-z0-9-]+)\.amazonaws\.com$/;
const CONDITION = /^\s*(<=|>=|==|!=|<|>)\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*$/;

function issue(ctx: z.RefinementCtx, message: string, input: unknown): void {
  ctx.addIssue({ code: 'custom', message, input });
}

/** A duration: "30s", "5m", "1h30m", or an integer of seconds. */
export function duration(opts: { min: number; max?: number }) {
  return z.union([z.number(), z.string()], { error: 'must be a duration such as "30s" or "5m", or a number of seconds' }).superRefine((v, ctx) => {
    const ms = typeof v === 'number' ? (Number.isInteger(v) ? v * 1000 : null) : durationMs(v);
    if (ms === null) return issue(ctx, 'must be a duration such as "30s", "5m" or "1h30m", or a whole number of seconds', v);
    if (ms < opts.min * 1000) return issue(ctx, opts.min === 0 ? 'must not be negative' : `must be at least ${opts.min}s`, v);
    if (opts.max !== undefined && ms > opts.max * 1000) issue(ctx, `must be at most ${opts.max}s`, v);
  });
}

/** Seconds of a duration the schema accepted. */
export function seconds(v: number | string): number {
  return typeof v === 'number' ? v : Math.ceil((durationMs(v) ?? 0) / 1000);
}

const httpUrl = z.string().superRefine((v, ctx) => {
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    return issue(ctx, 'must be an absolute http:// or https:// URL', v);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return issue(ctx, `must be an http:// or https:// URL, not ${url.protocol}`, v);
  if (url.username !== '' || url.password !== '') issue(ctx, 'must not carry credentials (user:password@): the Rollout is stored and shown as written', v);
});

const headers = z.record(z.string(), z.string({ error: 'must be a string' })).superRefine((h, ctx) => {
  for (const name of Object.keys(h)) if (!HEADER_NAME.test(name)) issue(ctx, `${JSON.stringify(name)} is not a valid HTTP header name`, h);
}).optional();

const httpTarget = z.strictObject({ url: httpUrl, headers });

const lambdaTarget = z.strictObject({
  functionName: z.string().refine((v) => LAMBDA_NAME.test(v) || LAMBDA_ARN.test(v) || LAMBDA_PARTIAL.test(v), {
    error: 'must be a Lambda function name (letters, digits, "-", "_", at most 64), a partial ARN "<account>:function:<name>" or a full ARN "arn:aws:lambda:<region>:<account>:function:<name>"',
  }),
  qualifier: z.string().regex(LAMBDA_QUALIFIER, { error: 'must be $LATEST, a version number or an alias name' }).optional(),
});

const alarmName = z.string().superRefine((v, ctx) => {
  if (v.startsWith('arn:')) {
    if (!ALARM_ARN.test(v)) issue(ctx, 'unknown alarm ARN format: must be arn:aws:cloudwatch:<region>:<account>:alarm:<name>', v);
    return;
  }
  // eslint-disable-next-line no-control-regex
  if (v.length === 0 || v.length > 255 || /[\u0000-\u001f\u007f]/.test(v) || v.trim() !== v) {
    issue(ctx, 'must be a CloudWatch alarm name (1 to 255 characters, no control characters, no leading or trailing spaces) or an alarm ARN', v);
  }
});

const prometheus = z.strictObject({
  url: httpUrl,
  query: z.string().superRefine((v, ctx) => {
    const problem = promqlProblem(v);
    if (problem) issue(ctx, problem, v);
  }),
  condition: z.string().regex(CONDITION, { error: `must be a comparison and a number, such as "< 0.05" (one of ${COMPARISON_OPS.join(' ')})` }),
  sigv4: z.strictObject({ region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, { error: 'must be an AWS region such as "eu-west-1"' }).optional() }).optional(),
}).superRefine((p, ctx) => {
  const problem = sigv4RegionProblem(p);
  if (problem) ctx.addIssue({ code: 'custom', message: problem, path: ['sigv4', 'region'], input: p.sigv4 });
});

const gate = z.strictObject({
  name: z.string().refine((s) => s.length <= 63 && DNS1123_LABEL.test(s), { error: 'must be a DNS-1123 label: lowercase letters, digits and "-", at most 63 characters' }),
  interval: duration({ min: 1, max: 3600 }).optional(),
  initialDelay: duration({ min: 0, max: 3600 }).optional(),
  timeout: duration({ min: 1, max: MAX_CALL_TIMEOUT_SECONDS }).optional(),
  count: z.number().int().min(1, { error: 'must be at least 1 check' }).max(1000).optional(),
  failureLimit: z.number().int().min(0, { error: 'must be >= 0' }).max(1000).optional(),
  consecutiveErrorLimit: z.number().int().min(0, { error: 'must be >= 0' }).max(1000).optional(),
  http: httpTarget.optional(),
  lambda: lambdaTarget.optional(),
  cloudwatchAlarm: z.strictObject({ alarmNames: z.array(alarmName).min(1, { error: 'name at least one alarm' }).max(100) }).optional(),
  prometheus: prometheus.optional(),
}).superRefine((g, ctx) => {
  const kinds = GATE_KINDS.filter((k) => g[k] !== undefined);
  if (kinds.length !== 1) issue(ctx, `a gate has exactly one of ${GATE_KINDS.join(', ')} (this one has ${kinds.length === 0 ? 'none' : kinds.join(' and ')})`, g);
});

const GATE_KINDS = ['http', 'lambda', 'cloudwatchAlarm', 'prometheus'] as const;

export const gatesSchema = z.array(gate).max(10, { error: 'at most 10 gates per step' }).superRefine((gates, ctx) => {
  const seen = new Set<string>();
  for (const [i, g] of gates.entries()) {
    if (seen.has(g.name)) ctx.addIssue({ code: 'custom', message: `gate name ${JSON.stringify(g.name)} is used twice in this step`, path: [i, 'name'], input: g.name });
    seen.add(g.name);
  }
}).optional();

const hook = z.strictObject({
  exec: z.strictObject({
    command: z.array(z.string()).min(1, { error: 'must name the program to run' }).refine((c) => (c[0] ?? '') !== '', { error: 'the first element (the program) must not be empty' }),
    container: z.string().refine((s) => DNS1123_LABEL.test(s), { error: 'must be a container name (DNS-1123 label)' }).optional(),
  }).optional(),
  http: httpTarget.optional(),
  lambda: lambdaTarget.optional(),
  timeout: duration({ min: 1, max: MAX_CALL_TIMEOUT_SECONDS }).optional(),
  retries: z.number().int().min(0, { error: 'must be >= 0' }).max(MAX_RETRIES, { error: `must be at most ${MAX_RETRIES}` }).optional(),
  backoff: duration({ min: 0, max: 300 }).optional(),
}).superRefine((h, ctx) => {
  const kinds = HOOK_KINDS.filter((k) => h[k] !== undefined);
  if (kinds.length !== 1) issue(ctx, `a hook has exactly one of ${HOOK_KINDS.join(', ')} (this one has ${kinds.length === 0 ? 'none' : kinds.join(' and ')})`, h);
});

const HOOK_KINDS = ['exec', 'http', 'lambda'] as const;

export const lifecycleSchema = z.strictObject({ preUpdate: hook.optional(), postUpdate: hook.optional() }).optional();
export const podUpdateTimeoutSchema = duration({ min: 1 }).optional();

export type GateDoc = z.output<typeof gate>;
type HookDoc = z.output<typeof hook>;
export type LifecycleDoc = z.output<typeof lifecycleSchema>;

// ---- Normalisation ---------------------------------------------------------------------------

const DEFAULTS = { intervalSeconds: 60, timeoutSeconds: 10, count: 1, failureLimit: 0, consecutiveErrorLimit: 4, hookTimeoutSeconds: 15, retries: 3, backoffSeconds: 5 };

export function toGate(g: GateDoc): Gate {
  return {
    name: g.name,
    provider: toProvider(g),
    intervalSeconds: g.interval === undefined ? DEFAULTS.intervalSeconds : seconds(g.interval),
    initialDelaySeconds: g.initialDelay === undefined ? 0 : seconds(g.initialDelay),
    count: g.count ?? DEFAULTS.count,
    failureLimit: g.failureLimit ?? DEFAULTS.failureLimit,
    consecutiveErrorLimit: g.consecutiveErrorLimit ?? DEFAULTS.consecutiveErrorLimit,
    timeoutSeconds: g.timeout === undefined ? DEFAULTS.timeoutSeconds : seconds(g.timeout),
  };
}

function toProvider(g: GateDoc): GateProvider {
  if (g.http) return { kind: 'http', url: g.http.url, headers: { ...g.http.headers } };
  if (g.lambda) return { kind: 'lambda', ...toLambda(g.lambda) };
  if (g.cloudwatchAlarm) return { kind: 'cloudwatchAlarm', alarms: g.cloudwatchAlarm.alarmNames.map(toAlarm) };
  const p = g.prometheus;
  if (!p) throw new Error('toGate: validated gate has no provider');
  const [, op, value] = CONDITION.exec(p.condition) ?? [];
  const region = p.sigv4 ? (p.sigv4.region ?? AMP_HOST.exec(new URL(p.url).hostname)?.[1] ?? null) : null;
  return { kind: 'prometheus', url: p.url, query: p.query, condition: { op: op as ComparisonOp, value: Number(value) }, sigv4: region === null ? null : { region } };
}

/** sigv4 without a region needs an AMP workspace URL to take it from. */
function sigv4RegionProblem(p: { url: string; sigv4?: { region?: string | undefined } | undefined }): string | null {
  if (p.sigv4 === undefined || p.sigv4.region !== undefined) return null;
  try {
    if (AMP_HOST.test(new URL(p.url).hostname)) return null;
  } catch {
    return null; // the URL has its own issue
  }
  return 'sigv4.region is required unless url is an Amazon Managed Prometheus workspace URL (https://aps-workspaces.<region>.amazonaws.com/workspaces/<id>)';
}

function toAlarm(name: string): { name: string; region: string | null } {
  const arn = ALARM_ARN.exec(name);
  return arn ? { name: arn[3] as string, region: arn[1] as string } : { name, region: null };
}

function toLambda(l: { functionName: string; qualifier?: string | undefined }): LambdaTarget {
  const arn = LAMBDA_ARN.exec(l.functionName);
  const partial = LAMBDA_PARTIAL.exec(l.functionName);
  const inName = arn?.[4] ?? partial?.[3];
  // The SDK takes an ARN (full or partial) without its qualifier as the function name.
  const functionName = inName === undefined ? l.functionName : l.functionName.slice(0, -(inName.length + 1));
  return { functionName, qualifier: l.qualifier ?? inName ?? null, region: arn?.[1] ?? null };
}

function toHook(h: HookDoc): Hook {
  return {
    target: toHookTarget(h),
    timeoutSeconds: h.timeout === undefined ? DEFAULTS.hookTimeoutSeconds : seconds(h.timeout),
    retries: h.retries ?? DEFAULTS.retries,
    backoffSeconds: h.backoff === undefined ? DEFAULTS.backoffSeconds : seconds(h.backoff),
  };
}

function toHookTarget(h: HookDoc): HookTarget {
  if (h.exec) return { kind: 'exec', command: [...h.exec.command], container: h.exec.container ?? null };
  if (h.http) return { kind: 'http', url: h.http.url, headers: { ...h.http.headers } };
  if (h.lambda) return { kind: 'lambda', ...toLambda(h.lambda) };
  throw new Error('toHook: validated hook has no target');
}

export function toLifecycle(doc: LifecycleDoc): Lifecycle {
  return { preUpdate: doc?.preUpdate ? toHook(doc.preUpdate) : null, postUpdate: doc?.postUpdate ? toHook(doc.postUpdate) : null };
}
