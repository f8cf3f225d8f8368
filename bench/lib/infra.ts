// What the deployed stack contains, read from the synthesized CloudFormation template (CDK app,
// bundling skipped) rather than retyped: each function's memory, timeout and architecture, the
// Scheduler rates and their targets, the SQS event source mappings, the alarms.
import { FUNCTION_NAMES, type FunctionName } from '../../infra/bundling.ts';
import { ENV, loadConfig } from '../../shared/app/config.ts';
import { resources, synth } from '../../infra/synth.ts';

export interface InfraFunction {
  name: FunctionName;
  memoryMb: number;
  timeoutSeconds: number;
  architecture: string;
}

export interface InfraSchedule {
  target: FunctionName;
  expression: string;
  /** Invocations per 730-hour month. */
  perMonth: number;
}

export interface InfraValues {
  source: string;
  functions: Record<string, InfraFunction>;
  schedules: InfraSchedule[];
  eventSources: { queue: string; batchSize: number; maxConcurrency: number | null; batchingWindowSeconds: number | null }[];
  alarms: number;
  /** watch-proxy: it stops this long before its timeout (shared/app/config.ts default). */
  watchMarginSeconds: number;
  /** Every managed rollout is reconciled at least this often (ROLLOUTS_RESYNC_PERIOD_SECONDS of the sweep). */
  resyncPeriodSeconds: number;
  /** How the watch-proxy runs: launched by the reconcile while releases move pods, or on a schedule. */
  watchProxyMode: 'on-demand' | 'always' | 'none';
  /** on-demand: how long one launched watcher runs at most (the reconcile's ROLLOUTS_WATCHER_SECONDS). */
  watcherSeconds: number | null;
}

export const HOURS_PER_MONTH = 730;

/** `context`: deploy parameters (CDK context) other than the defaults, e.g. { watchProxyMode: 'always' }. */
export function readInfra(context: Record<string, unknown> = {}): InfraValues {
  const { template } = synth(context);
  const functions: Record<string, InfraFunction> = {};
  const idOf: Record<string, FunctionName> = {};
  let sweepEnv: Record<string, string> = {};
  let reconcileEnv: Record<string, string> = {};
  for (const [id, r] of Object.entries(resources(template, 'AWS::Lambda::Function'))) {
    const name = FUNCTION_NAMES.find((n) => id.startsWith(`${pascal(n)}Function`));
    if (!name) continue;
    const p = r.Properties as { MemorySize: number; Timeout: number; Architectures?: string[]; Environment?: { Variables?: Record<string, string> } };
    functions[name] = { name, memoryMb: p.MemorySize, timeoutSeconds: p.Timeout, architecture: p.Architectures?.[0] ?? 'x86_64' };
    idOf[id] = name;
    if (name === 'sweep') sweepEnv = p.Environment?.Variables ?? {};
    if (name === 'reconcile') reconcileEnv = p.Environment?.Variables ?? {};
  }
  const schedules: InfraSchedule[] = [];
  for (const r of Object.values(resources(template, 'AWS::Scheduler::Schedule'))) {
    const p = r.Properties as { ScheduleExpression: string; Target: { Arn: { 'Fn::GetAtt'?: [string, string] } } };
    const target = idOf[p.Target.Arn['Fn::GetAtt']?.[0] ?? ''];
    if (!target) continue;
    schedules.push({ target, expression: p.ScheduleExpression, perMonth: (HOURS_PER_MONTH * 3600) / rateSeconds(p.ScheduleExpression) });
  }
  const eventSources = Object.values(resources(template, 'AWS::Lambda::EventSourceMapping')).map((r) => {
    const p = r.Properties as { BatchSize: number; EventSourceArn: { 'Fn::GetAtt'?: [string, string] }; ScalingConfig?: { MaximumConcurrency?: number }; MaximumBatchingWindowInSeconds?: number };
    return { queue: p.EventSourceArn['Fn::GetAtt']?.[0] ?? '?', batchSize: p.BatchSize, maxConcurrency: p.ScalingConfig?.MaximumConcurrency ?? null, batchingWindowSeconds: p.MaximumBatchingWindowInSeconds ?? null };
  });
  const config = loadConfig({
    ROLLOUTS_TABLE_NAME: 'bench', ROLLOUTS_QUEUE_URL: 'https://q.invalid/q.fifo', ROLLOUTS_TRIGGER_QUEUE_URL: 'https://q.invalid/t', ROLLOUTS_EVENT_BUS_NAME: 'bench',
    [ENV.resyncPeriodSeconds]: sweepEnv[ENV.resyncPeriodSeconds], [ENV.sweepIntervalSeconds]: sweepEnv[ENV.sweepIntervalSeconds],
  });
  return {
    source: 'infra/stack.ts synthesized with the default deploy parameters (bundling skipped)',
    functions,
    schedules,
    eventSources,
    alarms: Object.keys(resources(template, 'AWS::CloudWatch::Alarm')).length,
    watchMarginSeconds: config.watchMarginSeconds,
    resyncPeriodSeconds: config.resyncPeriodSeconds,
    watchProxyMode: !functions['watch-proxy'] ? 'none' : reconcileEnv[ENV.watchProxyFunction] !== undefined ? 'on-demand' : 'always',
    watcherSeconds: reconcileEnv[ENV.watcherSeconds] === undefined ? null : Number(reconcileEnv[ENV.watcherSeconds]),
  };
}

/** Seconds between runs of a Scheduler `rate(...)` expression. */
export function rateSeconds(expression: string): number {
  const m = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression);
  if (!m) throw new Error(`not a rate expression: ${expression}`);
  const unit = { minute: 60, minutes: 60, hour: 3600, hours: 3600, day: 86_400, days: 86_400 }[m[2] as string] as number;
  return Number(m[1]) * unit;
}

function pascal(name: string): string {
  return name.split('-').map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join('');
}
