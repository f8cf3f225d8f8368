// The four Lambda functions as `cdk deploy` ships them, run by a real Lambda runtime: each the
// asset of the synthesized stack (cloudAssembly.ts: infra/app.ts run as the CDK CLI runs it, so
// bundled by infra/bundling.ts through the stack's own asset bundling), with the handler, timeout,
// memory and environment the template gives it (variable names and literal values from the
// template; references resolved to the test bed's resources), and
//  - sweep, reconcile and api each under aws-lambda-rie + Node 22 + aws-lambda-ric (lambdaRuntime.ts);
//  - the watch-proxy created as a function in LocalStack's Lambda (zip upload), so the reconcile
//    starts it on demand with a real asynchronous Invoke, and LocalStack runs it with the same
//    runtime (scripts/localstack/plugins/rollouts_localstack/lambda_executor.py).
// AWS calls go to LocalStack, DynamoDB to dynalite (AWS_ENDPOINT_URL_DYNAMODB). The test plays
// what AWS would deliver: Scheduler ticks, the event-source mappings' SQS batches (sqsPoller.ts,
// from LocalStack's queues), and the Function URL in front of the api (functionUrl.ts, SigV4).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateFunctionCommand, DeleteFunctionCommand, GetFunctionCommand, LambdaClient, type Runtime } from '@aws-sdk/client-lambda';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { FunctionName } from '../../../infra/bundling.ts';
import { ENV } from '../../../shared/app/config.ts';
import type { DynaliteHarness } from '../../../bench/testbed/dynalite.ts';
import { waitFor } from '../../../bench/testbed/wait.ts';
import type { CloudAssembly } from './cloudAssembly.ts';
import type { AwsEmulator } from './emulator.ts';
import { startFunctionUrl, type Caller, type FunctionUrlServer } from './functionUrl.ts';
import { startLambdaRuntime, type InvokeResult, type LambdaRuntime } from './lambdaRuntime.ts';
import { EventSourceMappingPoller } from './sqsPoller.ts';
import { TEST_ACCOUNT } from './testAccount.ts';

/** Logical-id prefix of each function in the synthesized stack. */
const STACK_ID: Record<FunctionName, string> = { reconcile: 'Reconcile', sweep: 'Sweep', api: 'Api', 'watch-proxy': 'WatchProxy' };

export interface DeployedFunctionsOptions {
  /** The synthesized stack whose functions run (testDeployment.ts). */
  assembly: CloudAssembly;
  aws: AwsEmulator;
  dynamo: DynaliteHarness;
  /** Callers the Function URL accepts (SigV4). */
  callers: Caller[];
  /** Other values for variables the stack sets (e.g. a shorter resync period for a test); never new variables. */
  env?: Record<string, string>;
  /** The on-demand watcher's run time (the LocalStack function's timeout is 30 s more). Default 120 s. */
  watcherSeconds?: number;
}

export interface DeployedFunctions {
  sweep: LambdaRuntime;
  reconcile: LambdaRuntime;
  api: LambdaRuntime;
  /** The api behind a SigV4-verifying Function URL. */
  url: FunctionUrlServer;
  /** The watch-proxy's name in LocalStack's Lambda. */
  watchProxyName: string;
  /** The event-source mapping of each queue, delivering to the reconcile runtime. */
  work: EventSourceMappingPoller;
  trigger: EventSourceMappingPoller;
  /** Invokes the reconcile with an SQS batch as the mapping would; throws on a function error. */
  reconcileBatch(event: SQSEvent): Promise<SQSBatchResponse>;
  /** What the two event-source mappings deliver to the reconcile, until `until()` holds (a 3-minute safety net). */
  deliverUntil(until: () => Promise<boolean>, message: string): Promise<void>;
  /** One Scheduler tick to the sweep: {"scheduledTime": ...}, as the schedule's Input renders it. */
  tick(at?: Date): Promise<unknown>;
  stop(): Promise<void>;
}

/** One function as the template declares it. */
interface DeployedFunction {
  /** Its asset: the bundle, as uploaded. */
  dir: string;
  handler: string;
  runtime: string;
  timeoutSeconds: number;
  memoryMb: number;
  variables: Record<string, unknown>;
}

/** Throws the function's error as Lambda's caller would see it (RIE sends no X-Amz-Function-Error). */
export function payloadOf<T>(result: InvokeResult, name: string): T {
  const p = result.payload as { errorType?: string; errorMessage?: string } | null;
  if (result.status !== 200 || (p && typeof p === 'object' && 'errorType' in p && 'errorMessage' in p)) {
    throw new Error(`${name} failed (${result.status}): ${p?.errorType ?? ''} ${p?.errorMessage ?? result.body}`);
  }
  return result.payload as T;
}

export async function startDeployedFunctions(opts: DeployedFunctionsOptions): Promise<DeployedFunctions> {
  const { aws, dynamo, assembly } = opts;
  const fn = (name: FunctionName) => deployedFunction(assembly, name);
  const watcherSeconds = opts.watcherSeconds ?? 120;
  const watchProxyName = `rollouts-watch-proxy-${Date.now().toString(36)}`;
  const scheduleGroup = 'rollouts-wakeups';
  // What each of the stack's references stands for on the test bed.
  const resolved: Record<string, string> = {
    [ENV.tableName]: dynamo.tableName,
    [ENV.queueUrl]: aws.work.url,
    [ENV.triggerQueueUrl]: aws.trigger.url,
    [ENV.triggerQueueArn]: aws.trigger.arn,
    [ENV.eventBusName]: aws.eventBusName,
    [ENV.wakeScheduleGroup]: scheduleGroup,
    [ENV.wakeScheduleRoleArn]: `arn:aws:iam::${TEST_ACCOUNT}:role/rollouts-wake-delivery`,
    [ENV.watchProxyFunction]: watchProxyName,
  };
  const overrides = { ...opts.env, [ENV.watcherSeconds]: String(watcherSeconds) };
  const environment = (name: FunctionName) => ({
    ...resolveEnvironment(name, fn(name).variables, resolved, overrides),
    // The test bed's endpoints (real Lambda has none: the SDK's defaults reach AWS).
    AWS_ENDPOINT_URL: aws.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
  });

  const started: { stop(): Promise<void> }[] = [];
  const lambda = new LambdaClient({ endpoint: aws.endpoint, region: aws.region, credentials: aws.credentials });
  try {
    const [sweep, reconcile, api] = await Promise.all((['sweep', 'reconcile', 'api'] as const).map(async (name) => {
      const { dir, handler, timeoutSeconds, memoryMb } = fn(name);
      const runtime = await startLambdaRuntime({ dir, handler, env: environment(name), functionName: `rollouts-${name}`, timeoutSeconds, memoryMb });
      started.push(runtime);
      return runtime;
    })) as [LambdaRuntime, LambdaRuntime, LambdaRuntime];

    const watchProxy = fn('watch-proxy');
    await lambda.send(new CreateFunctionCommand({
      FunctionName: watchProxyName,
      Runtime: watchProxy.runtime as Runtime,
      Handler: watchProxy.handler,
      Role: `arn:aws:iam::${TEST_ACCOUNT}:role/rollouts-watch-proxy`,
      Code: { ZipFile: zipDirectory(watchProxy.dir) },
      // Its deployed timeout is 15 minutes; the test's watcher runs watcherSeconds.
      Timeout: watcherSeconds + 30,
      MemorySize: watchProxy.memoryMb,
      Environment: { Variables: environment('watch-proxy') },
    }));
    started.push({ stop: async () => void (await lambda.send(new DeleteFunctionCommand({ FunctionName: watchProxyName })).catch(() => undefined)) });
    await waitFor(async () => (await lambda.send(new GetFunctionCommand({ FunctionName: watchProxyName }))).Configuration?.State === 'Active', { message: 'the watch-proxy function to be Active in LocalStack' });

    const url = await startFunctionUrl(async (event) => payloadOf(await api.invoke(event), 'api'), { callers: opts.callers, region: aws.region, functionName: 'rollouts-api' });
    started.push(url);
    const reconcileBatch = async (event: SQSEvent) => payloadOf<SQSBatchResponse>(await reconcile.invoke(event), 'reconcile');
    // The stack's mappings: batches of 5 from each queue.
    const work = new EventSourceMappingPoller(aws.sqs, aws.work, { region: aws.region, batchSize: 5 });
    const trigger = new EventSourceMappingPoller(aws.sqs, aws.trigger, { region: aws.region, batchSize: 5 });
    const deliverUntil = (until: () => Promise<boolean>, message: string) => waitFor(async () => {
      if (await until()) return true;
      await work.deliverOnce(reconcileBatch);
      await trigger.deliverOnce(reconcileBatch);
      return until();
    }, { message, timeoutMs: 180_000, intervalMs: 0 }).then(() => undefined);
    return {
      sweep, reconcile, api, url, watchProxyName, reconcileBatch, work, trigger, deliverUntil,
      tick: async (at = new Date()) => payloadOf(await sweep.invoke({ scheduledTime: at.toISOString().replace(/\.\d{3}Z$/, 'Z') }), 'sweep'),
      stop: async () => {
        await Promise.allSettled(started.reverse().map((s) => s.stop()));
        lambda.destroy();
      },
    };
  } catch (err) {
    await Promise.allSettled(started.reverse().map((s) => s.stop()));
    lambda.destroy();
    throw err;
  }
}

/** The function `name` of the synthesized stack: its asset directory and configuration. */
function deployedFunction(assembly: CloudAssembly, name: FunctionName): DeployedFunction {
  const functions = assembly.resources('AWS::Lambda::Function');
  const ids = Object.keys(functions).filter((k) => k.startsWith(`${STACK_ID[name]}Function`));
  if (ids.length !== 1) throw new Error(`expected one ${name} function in the stack, found ${ids.join(', ') || 'none'}`);
  const id = ids[0] as string;
  const p = functions[id]?.Properties as { Handler: string; Runtime: string; Timeout: number; MemorySize: number; Environment?: { Variables: Record<string, unknown> } };
  return { dir: assembly.functionCodeDir(id), handler: p.Handler, runtime: p.Runtime, timeoutSeconds: p.Timeout, memoryMb: p.MemorySize, variables: p.Environment?.Variables ?? {} };
}

/**
 * The function's environment as the template sets it: literals as they are, each reference (a
 * table name, queue URL, ...) replaced from `resolved`. A reference the test bed cannot stand for
 * fails here, naming the variable.
 */
function resolveEnvironment(name: FunctionName, variables: Record<string, unknown>, resolved: Record<string, string>, overrides: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(variables)) {
    if (key in overrides) out[key] = overrides[key] as string;
    else if (typeof value === 'string') out[key] = value;
    else if (key in resolved) out[key] = resolved[key] as string;
    else throw new Error(`the stack gives ${name} ${key} = ${JSON.stringify(value)}, which the test bed does not stand for`);
  }
  return out;
}

/** A zip of the directory's files at its root, as Lambda expects (Python's zipfile: no zip tool needed). */
function zipDirectory(dir: string): Uint8Array {
  const zip = path.join(os.tmpdir(), `rollouts-${path.basename(dir)}-${process.pid}.zip`);
  execFileSync('python3', ['-c', [
    'import os, sys, zipfile',
    'root, out = sys.argv[1], sys.argv[2]',
    'with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:',
    '    for d, _, files in os.walk(root):',
    '        for f in files: z.write(os.path.join(d, f), os.path.relpath(os.path.join(d, f), root))',
  ].join('\n'), dir, zip]);
  const bytes = fs.readFileSync(zip);
  fs.rmSync(zip, { force: true });
  return bytes;
}
