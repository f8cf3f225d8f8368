// Makes the calls the planner asked for (shared/rollout/checkTypes.ts Invocation) and answers each
// with its recorded outcome; never throws: a call that cannot be made is a failed attempt (hooks)
// or an error of the check (gates), which the planner's retry and limits deal with. Calls of one
// pass run concurrently, at most MAX_CONCURRENT_CALLS at once.
//
// The providers that carry an SDK or a protocol stack (Lambda, CloudWatch, exec over WebSocket,
// SigV4 for Prometheus) are imported on their first call, not with this module: most passes of most
// rollouts call none of them, and every reconcile cold start would otherwise load and evaluate them
// (@aws-sdk/client-lambda and ws are ~150 KB of the reconcile bundle; scripts/bundle-report.mjs).
// esbuild puts each in a chunk of its own (infra/bundling.ts, splitting).
import type { Invocation, InvocationResult } from '../../rollout/checkTypes.ts';
import type { CallRunner } from '../../ports.ts';
import type { Clock } from '../../ports.ts';
import { callBody, errorText } from './callBody.ts';
import type { CloudWatchClientFor } from './cloudwatch.ts';
import type { KubeConfigFor } from './exec.ts';
import { httpGate, httpHook, type Fetch } from './http.ts';
import type { LambdaClientFor } from './lambda.ts';
import type { PrometheusOptions } from './prometheus.ts';

const MAX_CONCURRENT_CALLS = 8;

export interface CallRunnerOptions {
  clock: Clock;
  /** The cluster's KubeConfig, for exec hooks (RegisteredClusterProvider.kubeConfig). */
  kubeConfig?: KubeConfigFor;
  fetch?: Fetch;
  lambda?: LambdaClientFor;
  cloudWatch?: CloudWatchClientFor;
  prometheus?: PrometheusOptions;
}

export class AdapterCallRunner implements CallRunner {
  private lambda: LambdaClientFor | undefined;
  private cloudWatch: CloudWatchClientFor | undefined;

  constructor(private readonly opts: CallRunnerOptions) {
    this.lambda = opts.lambda;
    this.cloudWatch = opts.cloudWatch;
  }

  async run(cluster: string, namespace: string, calls: readonly Invocation[]): Promise<InvocationResult[]> {
    const results: InvocationResult[] = [];
    for (let i = 0; i < calls.length; i += MAX_CONCURRENT_CALLS) {
      results.push(...(await Promise.all(calls.slice(i, i + MAX_CONCURRENT_CALLS).map((c) => this.one(cluster, namespace, c)))));
    }
    return results;
  }

  private async one(cluster: string, namespace: string, call: Invocation): Promise<InvocationResult> {
    const body = callBody(call);
    if (call.type === 'check-gate') {
      const g = call.gate;
      const p = g.provider;
      const measurement = p.kind === 'http' ? await httpGate(p, body, g.timeoutSeconds, this.opts.fetch)
        : p.kind === 'lambda' ? await (await import('./lambda.ts')).lambdaGate(p, body, g.timeoutSeconds, await this.lambdaClients())
          : p.kind === 'cloudwatchAlarm' ? await (await import('./cloudwatch.ts')).alarmGate(p.alarms, g.timeoutSeconds, await this.cloudWatchClients())
            : await (await import('./prometheus.ts')).prometheusGate(p, g.timeoutSeconds, { ...this.opts.prometheus, ...(this.opts.fetch ? { fetch: this.opts.fetch } : {}) });
      return { type: 'check-gate', gate: g.name, stepIndex: call.context.step - 1, measurement, at: this.now() };
    }
    const t = call.hook.target;
    let outcome;
    if (t.kind === 'http') outcome = await httpHook(t, body, call.hook.timeoutSeconds, this.opts.fetch);
    else if (t.kind === 'lambda') outcome = await (await import('./lambda.ts')).lambdaHook(t, body, call.hook.timeoutSeconds, await this.lambdaClients());
    else if (!this.opts.kubeConfig) outcome = { result: 'failed' as const, retryable: false, output: 'exec hooks are not available here: no Kubernetes configuration for exec' };
    else {
      try {
        const { execHook } = await import('./exec.ts');
        outcome = await execHook(await this.opts.kubeConfig(cluster), namespace, call.container, call, t.command);
      } catch (err) {
        outcome = { result: 'failed' as const, retryable: true, output: `exec: ${errorText(err)}` };
      }
    }
    return { type: 'run-hook', phase: call.phase, pod: call.pod, attempt: call.attempt, outcome, at: this.now() };
  }

  private async lambdaClients(): Promise<LambdaClientFor> {
    this.lambda ??= (await import('./lambda.ts')).lambdaClients();
    return this.lambda;
  }

  private async cloudWatchClients(): Promise<CloudWatchClientFor> {
    this.cloudWatch ??= (await import('./cloudwatch.ts')).cloudWatchClients();
    return this.cloudWatch;
  }

  private now(): string {
    return this.opts.clock.now().toISOString();
  }
}
