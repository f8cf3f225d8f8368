// The four Lambda functions as `cdk deploy` ships them, run by a real Lambda runtime: each bundled
// by infra/bundling.ts bundleLambda (the stack's own bundler), with the environment the synthesized
// stack gives it (variable names and literal values from the template; references resolved to the
// test bed's resources), and
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
import { CreateFunctionCommand, DeleteFunctionCommand, GetFunctionCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { BUNDLE_HANDLER, bundleLambda, type FunctionName } from '../../../infra/bundling.ts';
import { ENV } from '../../../shared/config.ts';
import { synth } from '../../infra/synth.ts';
import type { DynaliteHarness } from '../dynalite.ts';
import { waitFor } from '../wait.ts';
import type { AwsEmulator } from './emulator.ts';
import { startFunctionUrl, type Caller, type FunctionUrlServer } from './functionUrl.ts';
import { startLambdaRuntime, type InvokeResult, type LambdaRuntime } from './lambdaRuntime.ts';
import { EventSourceMappingPoller } from './sqsPoller.ts';
import { TEST_ACCOUNT } from './testAccount.ts';

/** Logical-id prefix of each function in the synthesized stack. */
const STACK_ID: Record<FunctionName, string> = { reconcile: 'Reconcile', sweep: 'Sweep', api: 'Api', 'watch-proxy': 'WatchProxy' };

export interface DeployedFunctionsOptions {
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
  /** One Scheduler tick to the sweep: {"scheduledTime": ...}, as the schedule's Input renders it. */
  tick(at?: Date): Promise<unknown>;
  stop(): Promise<void>;
}

/** The four bundles, built once per test process (they do not depend on the test). */
let bundles: Promise<Record<FunctionName, string>> | undefined;

function bundleAll(): Promise<Record<FunctionName, string>> {
  bundles ??= (async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rollouts-bundles-'));
    process.once('exit', () => fs.rmSync(root, { recursive: true, force: true }));
    const names: FunctionName[] = ['reconcile', 'sweep', 'api', 'watch-proxy'];
    const dirs = await Promise.all(names.map(async (name) => {
      const dir = path.join(root, name);
      await bundleLambda(name, dir);
      return [name, dir] as const;
    }));
    return Object.fromEntries(dirs) as Record<FunctionName, string>;
  })();
  return bundles;
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
  const { aws, dynamo } = opts;
  const dirs = await bundleAll();
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
    ...deployedEnvironment(name, resolved, overrides),
    // The test bed's endpoints (real Lambda has none: the SDK's defaults reach AWS).
    AWS_ENDPOINT_URL: aws.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
  });

  const started: { stop(): Promise<void> }[] = [];
  const lambda = new LambdaClient({ endpoint: aws.endpoint, region: aws.region, credentials: aws.credentials });
  try {
    const [sweep, reconcile, api] = await Promise.all((['sweep', 'reconcile', 'api'] as const).map(async (name) => {
      const runtime = await startLambdaRuntime({ dir: dirs[name], handler: BUNDLE_HANDLER, env: environment(name), functionName: `rollouts-${name}`, timeoutSeconds: 30 });
      started.push(runtime);
      return runtime;
    })) as [LambdaRuntime, LambdaRuntime, LambdaRuntime];

    await lambda.send(new CreateFunctionCommand({
      FunctionName: watchProxyName,
      Runtime: 'nodejs22.x',
      Handler: BUNDLE_HANDLER,
      Role: `arn:aws:iam::${TEST_ACCOUNT}:role/rollouts-watch-proxy`,
      Code: { ZipFile: zipDirectory(dirs['watch-proxy']) },
      Timeout: watcherSeconds + 30,
      MemorySize: 256,
      Environment: { Variables: environment('watch-proxy') },
    }));
    started.push({ stop: async () => void (await lambda.send(new DeleteFunctionCommand({ FunctionName: watchProxyName })).catch(() => undefined)) });
    await waitFor(async () => (await lambda.send(new GetFunctionCommand({ FunctionName: watchProxyName }))).Configuration?.State === 'Active', { message: 'the watch-proxy function to be Active in LocalStack' });

    const url = await startFunctionUrl(async (event) => payloadOf(await api.invoke(event), 'api'), { callers: opts.callers, region: aws.region, functionName: 'rollouts-api' });
    started.push(url);
    const reconcileBatch = async (event: SQSEvent) => payloadOf<SQSBatchResponse>(await reconcile.invoke(event), 'reconcile');
    return {
      sweep, reconcile, api, url, watchProxyName, reconcileBatch,
      work: new EventSourceMappingPoller(aws.sqs, aws.work, { region: aws.region, batchSize: 5 }),
      trigger: new EventSourceMappingPoller(aws.sqs, aws.trigger, { region: aws.region, batchSize: 5 }),
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

/**
 * The function's environment as the synthesized stack (default deploy parameters) sets it:
 * literals as they are, each reference (a table name, queue URL, ...) replaced from `resolved`.
 * A reference the test bed cannot stand for fails here, naming the variable.
 */
function deployedEnvironment(name: FunctionName, resolved: Record<string, string>, overrides: Record<string, string>): Record<string, string> {
  template ??= synth().template;
  const functions = template.findResources('AWS::Lambda::Function') as Record<string, { Properties: { Environment?: { Variables: Record<string, unknown> } } }>;
  const id = Object.keys(functions).find((k) => k.startsWith(`${STACK_ID[name]}Function`));
  if (!id) throw new Error(`the stack has no ${name} function`);
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(functions[id]?.Properties.Environment?.Variables ?? {})) {
    if (key in overrides) out[key] = overrides[key] as string;
    else if (typeof value === 'string') out[key] = value;
    else if (key in resolved) out[key] = resolved[key] as string;
    else throw new Error(`the stack gives ${name} ${key} = ${JSON.stringify(value)}, which the test bed does not stand for`);
  }
  return out;
}
let template: ReturnType<typeof synth>['template'] | undefined;

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
