// `cdklocal deploy` of the real stack into real LocalStack, as README "Deploying to AWS" has a user
// do it: `cdklocal bootstrap`, then `cdklocal deploy` of the stack as `cdk synth` makes it
// (testDeployment.ts: the cdk.json app, cdk-nag, the four bundles, an EKS cluster and two clusters
// behind roles in other accounts). Then what CloudFormation created, read back from each service's
// own API: the queues and their dead-letter queues, the bus rule's target, the schedules, the
// functions and their event sources, and the IAM policies. Last, the deployed functions run: the
// sweep answers a tick against the deployed table, the API a SigV4 request on its Function URL.
//
// What LocalStack cannot create it deploys as a "fallback" (nothing behind the resource, the stack
// still CREATE_COMPLETE); the first test names exactly those resources.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CloudFormationClient, DescribeStackEventsCommand, DescribeStackResourcesCommand, DescribeStacksCommand, type StackResource } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient, DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, ListRulesCommand } from '@aws-sdk/client-eventbridge';
import { GetRoleCommand, GetRolePolicyCommand, IAMClient, ListAttachedRolePoliciesCommand, ListRolePoliciesCommand } from '@aws-sdk/client-iam';
import { GetFunctionCommand, GetFunctionEventInvokeConfigCommand, GetFunctionUrlConfigCommand, InvokeCommand, LambdaClient, ListEventSourceMappingsCommand } from '@aws-sdk/client-lambda';
import { GetScheduleCommand, GetScheduleGroupCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { EVENT_SOURCE } from '../../infra/stack.ts';
import { registerExitCleanup } from '../../shared/adapters/local/controlplane/exitCleanup.ts';
import { ENV } from '../../shared/app/config.ts';
import { STACK_NAME, type CloudAssembly } from '../support/aws/cloudAssembly.ts';
import { startLocalStack, type LocalStack } from '../support/aws/localstack.ts';
import { signedRequestVia } from '../support/aws/sigv4.ts';
import { ALPHA, BETA, EDGE, listedSecretArn, testDeployment } from '../support/aws/testDeployment.ts';

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
const CDKLOCAL = path.join(REPO_ROOT, 'node_modules/aws-cdk-local/bin/cdklocal');

let assembly: CloudAssembly;
let localstack: LocalStack;
let home: string;
let clients: ReturnType<typeof makeClients>;
/** Logical id → the deployed resource. */
let deployed: Map<string, StackResource>;
let outputs: Record<string, string>;

function makeClients(ls: LocalStack) {
  const config = { endpoint: ls.endpoint, region: ls.region, credentials: ls.credentials };
  return {
    cloudformation: new CloudFormationClient(config), sqs: new SQSClient(config), events: new EventBridgeClient(config),
    scheduler: new SchedulerClient(config), lambda: new LambdaClient(config), iam: new IAMClient(config), dynamodb: new DynamoDBClient(config),
    cloudwatch: new CloudWatchClient(config),
  };
}

/** The CLI as a user runs it, against this LocalStack; resolves with its output, rejects on a non-zero exit. */
function cdklocal(args: string[]): Promise<string> {
  // cdklocal keeps only the AWS_ENDPOINT_URL* variables of ours (it drops the other AWS_*) and
  // starts the CDK CLI through its `#!/usr/bin/env node`: Node 22 first on PATH.
  const env: NodeJS.ProcessEnv = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AWS_') && !k.startsWith('CDK_'))),
    PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
    HOME: home, // ~/.cdk (its caches) stays in the test's temp dir
    AWS_ENDPOINT_URL: localstack.endpoint,
    AWS_ENDPOINT_URL_S3: localstack.endpoint,
    AWS_ACCESS_KEY_ID: localstack.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: localstack.credentials.secretAccessKey,
    CDK_DISABLE_VERSION_CHECK: '1', // no npm registry look-up for a newer CLI
    CDK_DISABLE_CLI_TELEMETRY: '1',
  };
  return new Promise((resolve, reject) => {
    // A process group of its own: cdklocal runs the CDK CLI as a child, and a dying test kills both.
    const child = spawn(process.execPath, [CDKLOCAL, ...args, '--no-notices', '--ci'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const cancel = registerExitCleanup(() => {
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        // Already gone.
      }
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      cancel();
      if (code === 0) resolve(output);
      else reject(new Error(`cdklocal ${args.join(' ')} exited ${code}:\n${output.slice(-8000)}`));
    });
  });
}

/** The physical id of our resource `<path><8-hex hash>` (CDK's logical ids), e.g. QueuesWork → QueuesWork4F2460A8. */
function physical(logicalPrefix: string, type: string): string {
  const id = new RegExp(`^${logicalPrefix}[0-9a-f]*[0-9A-F]{8}$`);
  const matches = [...deployed.values()].filter((r) => r.ResourceType === type && id.test(r.LogicalResourceId ?? ''));
  assert.equal(matches.length, 1, `one ${type} ${logicalPrefix}*: ${matches.map((m) => m.LogicalResourceId).join(', ')}`);
  return matches[0]?.PhysicalResourceId as string;
}

async function queue(logicalPrefix: string): Promise<Record<string, string>> {
  const url = physical(logicalPrefix, 'AWS::SQS::Queue');
  return (await clients.sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }))).Attributes ?? {};
}

/** A role's inline policies as deployed, flattened to "effect action → resources" (conditions kept). */
async function deployedGrants(roleLogicalPrefix: string): Promise<Record<string, { resources: string[]; condition?: unknown }>> {
  const RoleName = physical(roleLogicalPrefix, 'AWS::IAM::Role');
  const names = (await clients.iam.send(new ListRolePoliciesCommand({ RoleName }))).PolicyNames ?? [];
  const attached = (await clients.iam.send(new ListAttachedRolePoliciesCommand({ RoleName }))).AttachedPolicies ?? [];
  assert.deepEqual(attached, [], `${RoleName} has no managed policies`);
  const grants: Record<string, { resources: string[]; condition?: unknown }> = {};
  for (const PolicyName of names) {
    const doc = JSON.parse(decodeURIComponent((await clients.iam.send(new GetRolePolicyCommand({ RoleName, PolicyName }))).PolicyDocument ?? '{}')) as {
      Statement: { Effect: string; Action: string | string[]; Resource: string | string[]; Condition?: unknown }[];
    };
    for (const s of doc.Statement) {
      for (const action of [s.Action].flat()) {
        const key = `${s.Effect} ${action}`;
        grants[key] = { resources: [...new Set([...(grants[key]?.resources ?? []), ...[s.Resource].flat()])].sort(), ...(s.Condition ? { condition: s.Condition } : {}) };
      }
    }
  }
  return grants;
}

before(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'rollouts-cdklocal-'));
  [assembly, localstack] = await Promise.all([testDeployment(), startLocalStack()]);
  clients = makeClients(localstack);
  await cdklocal(['bootstrap', `aws://${assembly.account}/${assembly.region}`]);
  // The stack exactly as synthesized: `--app <cloud assembly>` deploys it without synthesizing again.
  await cdklocal(['deploy', '--app', assembly.dir, STACK_NAME, '--require-approval', 'never']);
  const [stack] = (await clients.cloudformation.send(new DescribeStacksCommand({ StackName: STACK_NAME }))).Stacks ?? [];
  outputs = Object.fromEntries((stack?.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
  const resources = (await clients.cloudformation.send(new DescribeStackResourcesCommand({ StackName: STACK_NAME }))).StackResources ?? [];
  deployed = new Map(resources.map((r) => [r.LogicalResourceId as string, r]));
});

after(async () => {
  if (clients) for (const c of Object.values(clients)) c.destroy();
  await localstack?.stop();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

describe('cdklocal deploy of the stack into LocalStack', () => {
  test('the stack reaches CREATE_COMPLETE with every resource of the template; LocalStack has no provider for the dashboard and the EKS access entries only', async () => {
    const [stack] = (await clients.cloudformation.send(new DescribeStacksCommand({ StackName: STACK_NAME }))).Stacks ?? [];
    assert.equal(stack?.StackStatus, 'CREATE_COMPLETE');
    assert.deepEqual([...deployed.keys()].sort(), Object.keys(assembly.template.Resources).sort());
    for (const r of deployed.values()) assert.equal(r.ResourceStatus, 'CREATE_COMPLETE', `${r.LogicalResourceId}: ${r.ResourceStatusReason ?? ''}`);
    const events = (await clients.cloudformation.send(new DescribeStackEventsCommand({ StackName: STACK_NAME }))).StackEvents ?? [];
    const fallbacks = events.filter((e) => /not supported but was deployed as a fallback/.test(e.ResourceStatusReason ?? ''));
    // AWS::CloudWatch::Dashboard and AWS::EKS::AccessEntry have no resource provider in
    // localstack-core (EKS is not among its services at all): nothing stands behind them.
    assert.deepEqual(
      [...new Set(fallbacks.map((e) => `${e.ResourceType} ${e.LogicalResourceId}`))].sort(),
      Object.entries(assembly.template.Resources).filter(([, r]) => ['AWS::CloudWatch::Dashboard', 'AWS::EKS::AccessEntry'].includes(r.Type)).map(([id, r]) => `${r.Type} ${id}`).sort(),
    );
    assert.equal(Object.keys(assembly.resources('AWS::EKS::AccessEntry')).length, 3, 'prod-eks: reconcile, api and watch-proxy each have an access entry');
  });

  test('the queues: FIFO work queue and standard trigger queue, hidden 6× the reconcile timeout, dead-lettered after 5 receives into DLQs kept 14 days, SSE, TLS only; no service principal may send to the trigger queue', async () => {
    const [work, workDlq, trigger, triggerDlq, delivery] = await Promise.all(['QueuesWork', 'QueuesWorkDlq', 'QueuesTrigger', 'QueuesTriggerDlq', 'DeliveryDlq'].map((id) => queue(id)));
    const redrive = (q: Record<string, string> | undefined) => JSON.parse(q?.RedrivePolicy ?? '{}') as { deadLetterTargetArn?: string; maxReceiveCount?: number };
    assert.equal(work?.FifoQueue, 'true');
    assert.equal(work?.ContentBasedDeduplication, 'false');
    assert.equal(work?.DeduplicationScope, 'messageGroup');
    assert.equal(work?.FifoThroughputLimit, 'perMessageGroupId');
    assert.equal(trigger?.FifoQueue, undefined);
    for (const [q, dlq] of [[work, workDlq], [trigger, triggerDlq]] as const) {
      assert.equal(q?.VisibilityTimeout, String(30 * 6));
      assert.deepEqual(redrive(q), { deadLetterTargetArn: dlq?.QueueArn, maxReceiveCount: 5 });
    }
    assert.equal(workDlq?.FifoQueue, 'true', 'a FIFO queue dead-letters into a FIFO queue');
    for (const q of [work, workDlq, trigger, triggerDlq, delivery]) {
      assert.equal(q?.SqsManagedSseEnabled, 'true', q?.QueueArn);
      const policy = JSON.parse(q?.Policy ?? '{}') as { Statement: { Effect: string; Principal: unknown; Action: unknown; Condition?: unknown; Resource: string }[] };
      assert.ok(policy.Statement.some((s) => s.Effect === 'Deny' && s.Action === 'sqs:*' && JSON.stringify(s.Condition) === '{"Bool":{"aws:SecureTransport":"false"}}' && s.Resource === q?.QueueArn), `TLS only: ${q?.QueueArn}`);
    }
    for (const dlq of [workDlq, triggerDlq, delivery]) assert.equal(dlq?.MessageRetentionPeriod, String(14 * 86_400));
    // The watch-proxy's notices go to the work queue under its own role: no bus rule delivers here any more.
    const senders = (JSON.parse(trigger?.Policy ?? '{}') as { Statement: { Effect: string; Principal?: { Service?: string }; Condition?: unknown }[] }).Statement.filter((s) => s.Effect === 'Allow');
    assert.deepEqual(senders, []);
  });

  test('the bus carries transition events only: no rule of ours on it without notifications (watch notices go to the work queue)', async () => {
    assert.equal(outputs.EventBusName, EVENT_SOURCE);
    const rules = (await clients.events.send(new ListRulesCommand({ EventBusName: outputs.EventBusName }))).Rules ?? [];
    assert.deepEqual(rules.map((r) => r.Name), []);
  });

  test('the schedules: the sweep every minute with its scheduled time, through a role that may only invoke the sweep and dead-letter; the wake-up group for the reconcile\'s one-off schedules', async () => {
    const scheduleName = physical('SweepSchedule', 'AWS::Scheduler::Schedule');
    const schedule = await clients.scheduler.send(new GetScheduleCommand({ Name: scheduleName }));
    const sweep = (await clients.lambda.send(new GetFunctionCommand({ FunctionName: physical('SweepFunction', 'AWS::Lambda::Function') }))).Configuration;
    const delivery = await queue('DeliveryDlq');
    assert.equal(schedule.State, 'ENABLED');
    assert.equal(schedule.ScheduleExpression, 'rate(1 minute)');
    assert.equal(schedule.FlexibleTimeWindow?.Mode, 'OFF');
    assert.equal(schedule.Target?.Arn, sweep?.FunctionArn);
    assert.equal(schedule.Target?.Input, '{"scheduledTime":"<aws.scheduler.scheduled-time>"}');
    assert.equal(schedule.Target?.DeadLetterConfig?.Arn, delivery.QueueArn);
    assert.deepEqual(schedule.Target?.RetryPolicy, { MaximumEventAgeInSeconds: 60, MaximumRetryAttempts: 2 });
    const role = await clients.iam.send(new GetRoleCommand({ RoleName: schedule.Target?.RoleArn?.split('/').pop() }));
    assert.match(decodeURIComponent(role.Role?.AssumeRolePolicyDocument ?? ''), /"Service": ?"scheduler\.amazonaws\.com"/);
    assert.deepEqual(await deployedGrants('SchedulerRoleForTarget'), {
      'Allow lambda:InvokeFunction': { resources: [sweep?.FunctionArn] },
      'Allow sqs:SendMessage': { resources: [delivery.QueueArn] },
    });

    const group = await clients.scheduler.send(new GetScheduleGroupCommand({ Name: physical('WakeSchedulesGroup', 'AWS::Scheduler::ScheduleGroup') }));
    assert.equal(group.State, 'ACTIVE');
    const reconcile = (await clients.lambda.send(new GetFunctionCommand({ FunctionName: physical('ReconcileFunction', 'AWS::Lambda::Function') }))).Configuration;
    assert.equal(reconcile?.Environment?.Variables?.[ENV.wakeScheduleGroup], group.Name);
    const trigger = await queue('QueuesTrigger');
    assert.deepEqual(await deployedGrants('WakeSchedulesDeliveryRole'), { 'Allow sqs:SendMessage': { resources: [trigger.QueueArn] } });
  });

  test('the functions: Active on Node 22 and arm64 with active tracing; reconcile fed by both queues (batches of 5, partial failures, 10 at a time); the API behind an IAM Function URL; sweep and watch-proxy never retried; environments naming the deployed resources', async () => {
    const fn = async (prefix: string) => (await clients.lambda.send(new GetFunctionCommand({ FunctionName: physical(prefix, 'AWS::Lambda::Function') }))).Configuration;
    const [reconcile, sweep, api, watchProxy] = await Promise.all(['ReconcileFunction', 'SweepFunction', 'ApiFunction', 'WatchProxyFunction'].map(fn));
    const expected = { reconcile: [1024, 30], sweep: [256, 30], api: [512, 15], watchProxy: [256, 900] };
    for (const [name, f] of Object.entries({ reconcile, sweep, api, watchProxy })) {
      assert.equal(f?.State, 'Active', `${name}: ${f?.StateReason ?? ''}`);
      assert.equal(f?.Runtime, 'nodejs22.x');
      assert.deepEqual(f?.Architectures, ['arm64']);
      assert.equal(f?.Handler, 'index.handler');
      assert.equal(f?.TracingConfig?.Mode, 'Active');
      assert.deepEqual([f?.MemorySize, f?.Timeout], expected[name as keyof typeof expected], name);
    }

    const [work, trigger, table] = await Promise.all([queue('QueuesWork'), queue('QueuesTrigger'), clients.dynamodb.send(new DescribeTableCommand({ TableName: outputs.TableName }))]);
    const mappings = (await clients.lambda.send(new ListEventSourceMappingsCommand({ FunctionName: reconcile?.FunctionName }))).EventSourceMappings ?? [];
    assert.deepEqual(
      mappings.map((m) => [m.EventSourceArn, m.State, m.BatchSize, m.FunctionResponseTypes, m.ScalingConfig?.MaximumConcurrency]).sort(),
      [work.QueueArn, trigger.QueueArn].sort().map((arn) => [arn, 'Enabled', 5, ['ReportBatchItemFailures'], 10]),
    );
    const url = await clients.lambda.send(new GetFunctionUrlConfigCommand({ FunctionName: api?.FunctionName }));
    assert.equal(url.AuthType, 'AWS_IAM');
    assert.equal(outputs.ApiUrl, url.FunctionUrl);
    for (const f of [sweep, watchProxy]) {
      const config = await clients.lambda.send(new GetFunctionEventInvokeConfigCommand({ FunctionName: f?.FunctionName }));
      assert.equal(config.MaximumRetryAttempts, 0, f?.FunctionName);
    }

    assert.equal(table.Table?.TableStatus, 'ACTIVE');
    for (const f of [reconcile, sweep, api, watchProxy]) {
      const env = f?.Environment?.Variables ?? {};
      assert.equal(env[ENV.tableName], outputs.TableName);
      assert.equal(env[ENV.queueUrl], outputs.QueueUrl);
      assert.equal(env[ENV.triggerQueueUrl], outputs.TriggerQueueUrl);
      assert.equal(env[ENV.triggerQueueArn], trigger.QueueArn);
      assert.equal(env[ENV.eventBusName], outputs.EventBusName);
    }
    assert.equal(reconcile?.Environment?.Variables?.[ENV.watchProxyFunction], watchProxy?.FunctionName);
  });

  test('the alarms: one per dead-letter queue (any message visible) and one per function (any error), none breaching without data', async () => {
    const names = [...deployed.values()].filter((r) => r.ResourceType === 'AWS::CloudWatch::Alarm').map((r) => r.PhysicalResourceId as string);
    const alarms = (await clients.cloudwatch.send(new DescribeAlarmsCommand({ AlarmNames: names }))).MetricAlarms ?? [];
    const watched = alarms.map((a) => {
      assert.deepEqual([a.Threshold, a.ComparisonOperator, a.EvaluationPeriods, a.TreatMissingData, a.Period], [1, 'GreaterThanOrEqualToThreshold', 1, 'notBreaching', 300], a.AlarmName);
      return `${a.Namespace} ${a.MetricName} ${a.Dimensions?.map((d) => d.Value).join(',')}`;
    }).sort();
    const queueName = (arn: string | undefined) => arn?.split(':').pop();
    const [workDlq, triggerDlq, delivery] = await Promise.all(['QueuesWorkDlq', 'QueuesTriggerDlq', 'DeliveryDlq'].map((id) => queue(id)));
    assert.deepEqual(watched, [
      ...[workDlq, triggerDlq, delivery].map((q) => `AWS/SQS ApproximateNumberOfMessagesVisible ${queueName(q?.QueueArn)}`),
      ...['ReconcileFunction', 'SweepFunction', 'ApiFunction', 'WatchProxyFunction'].map((f) => `AWS/Lambda Errors ${physical(f, 'AWS::Lambda::Function')}`),
    ].sort());
  });

  test('IAM as deployed: each function may do what its job needs on the deployed resources only, and reach the listed clusters (DescribeCluster on the EKS one, GetSecretValue on the listed token secret, AssumeRole on the two cross-account roles)', async () => {
    const [work, trigger, table, bus] = await Promise.all([queue('QueuesWork'), queue('QueuesTrigger'), clients.dynamodb.send(new DescribeTableCommand({ TableName: outputs.TableName })), Promise.resolve(outputs.EventBusArn)]);
    const tableArn = table.Table?.TableArn as string;
    const watchProxy = (await clients.lambda.send(new GetFunctionCommand({ FunctionName: physical('WatchProxyFunction', 'AWS::Lambda::Function') }))).Configuration;
    const logGroup = (prefix: string) => `arn:aws:logs:${assembly.region}:${assembly.account}:log-group:${physical(prefix, 'AWS::Logs::LogGroup')}:*`;
    const clusters = {
      'Allow eks:DescribeCluster': { resources: [`arn:aws:eks:${assembly.region}:${assembly.account}:cluster/prod-eks`] },
      'Allow secretsmanager:GetSecretValue': { resources: [listedSecretArn(EDGE)] },
      'Allow sts:AssumeRole': { resources: [ALPHA.roleArn, BETA.roleArn].sort() },
    };
    const basics = (logs: string) => ({
      'Allow logs:CreateLogStream': { resources: [logGroup(logs)] },
      'Allow logs:PutLogEvents': { resources: [logGroup(logs)] },
      'Allow xray:PutTelemetryRecords': { resources: ['*'] },
      'Allow xray:PutTraceSegments': { resources: ['*'] },
    });
    const items = (ops: string[]) => Object.fromEntries(ops.map((op) => [`Allow dynamodb:${op}`, { resources: [tableArn] }]));
    const leaseOnly = { 'Allow dynamodb:UpdateItem': { resources: [tableArn], condition: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['WATCHER'] } } } };
    const putEvents = (source: string) => ({ 'Allow events:PutEvents': { resources: [bus], condition: { StringEquals: { 'events:source': source } } } });
    const poll = Object.fromEntries(['ChangeMessageVisibility', 'DeleteMessage', 'GetQueueAttributes', 'GetQueueUrl', 'ReceiveMessage'].map((a) => [`Allow sqs:${a}`, { resources: [trigger.QueueArn, work.QueueArn].sort() }]));
    const group = physical('WakeSchedulesGroup', 'AWS::Scheduler::ScheduleGroup');
    const wakeRole = (await clients.iam.send(new GetRoleCommand({ RoleName: physical('WakeSchedulesDeliveryRole', 'AWS::IAM::Role') }))).Role?.Arn;

    assert.deepEqual(await deployedGrants('ReconcileRole'), {
      ...basics('ReconcileLogs'), ...poll, ...items(['BatchWriteItem', 'DeleteItem', 'GetItem', 'PutItem', 'Query']), ...leaseOnly,
      'Allow sqs:SendMessage': { resources: [trigger.QueueArn] },
      ...putEvents(EVENT_SOURCE),
      ...Object.fromEntries(['CreateSchedule', 'DeleteSchedule', 'UpdateSchedule'].map((a) => [`Allow scheduler:${a}`, { resources: [`arn:aws:scheduler:${assembly.region}:${assembly.account}:schedule/${group}/*`] }])),
      'Allow iam:PassRole': { resources: [wakeRole], condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } } },
      'Allow lambda:InvokeFunction': { resources: [watchProxy?.FunctionArn] },
      ...clusters,
    });
    assert.deepEqual(await deployedGrants('SweepRole'), {
      ...basics('SweepLogs'),
      'Allow dynamodb:Query': { resources: [`${tableArn}/index/due`] },
      'Allow sqs:SendMessage': { resources: [work.QueueArn] },
    });
    assert.deepEqual(await deployedGrants('ApiRole'), {
      ...basics('ApiLogs'), ...items(['BatchWriteItem', 'DeleteItem', 'GetItem', 'PutItem', 'Query']),
      'Allow sqs:SendMessage': { resources: [work.QueueArn] },
      ...clusters,
    });
    assert.deepEqual(await deployedGrants('WatchProxyRole'), {
      ...basics('WatchProxyLogs'), ...items(['GetItem', 'Query']), ...leaseOnly, 'Allow sqs:SendMessage': { resources: [work.QueueArn] }, ...clusters,
    });
  });

  test('the deployed functions run in LocalStack: the sweep answers a tick against the deployed table, the API a SigV4-signed request on its Function URL', async () => {
    const tick = await clients.lambda.send(new InvokeCommand({ FunctionName: physical('SweepFunction', 'AWS::Lambda::Function'), Payload: JSON.stringify({ scheduledTime: '2026-12-01T10:00:00Z' }) }));
    assert.equal(tick.FunctionError, undefined, Buffer.from(tick.Payload ?? []).toString());
    assert.deepEqual(JSON.parse(Buffer.from(tick.Payload ?? []).toString()), { due: 0, resync: 0, enqueued: 0, truncated: false, scheduledTime: '2026-12-01T10:00:00Z' });

    const list = await signedRequestVia(localstack.endpoint, outputs.ApiUrl as string, { method: 'GET', path: '/v1/rollouts', credentials: localstack.credentials, region: assembly.region });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.json?.rollouts, []);
  });
});
