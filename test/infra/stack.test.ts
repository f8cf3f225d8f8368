// The deployed shape, asserted property by property on the synthesized template.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Match } from 'aws-cdk-lib/assertions';
import { BUNDLE_RUNTIME_ENV } from '../../infra/bundling.ts';
import { ENV } from '../../shared/app/config.ts';
import { STATE_TABLE } from '../../shared/adapters/dynamodb/table.ts';
import { logicalId, resources, synth } from '../../infra/synth.ts';

const { template } = synth();

describe('StateTable', () => {
  it('is on demand, with point-in-time recovery, deletion protection and the TTL attribute of STATE_TABLE', () => {
    assert.equal(STATE_TABLE.billingMode, 'PAY_PER_REQUEST');
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      BillingMode: STATE_TABLE.billingMode,
      TimeToLiveSpecification: { AttributeName: STATE_TABLE.timeToLiveAttribute, Enabled: true },
      Replicas: [Match.objectLike({
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
      })],
    });
  });

  it('has exactly the keys and the sparse due index STATE_TABLE declares', () => {
    const t = STATE_TABLE;
    const [table] = Object.values(resources(template, 'AWS::DynamoDB::GlobalTable'));
    const p = table?.Properties as Record<string, unknown>;
    assert.deepEqual(p.KeySchema, [
      { AttributeName: t.partitionKey.name, KeyType: 'HASH' },
      { AttributeName: t.sortKey.name, KeyType: 'RANGE' },
    ]);
    assert.deepEqual(p.GlobalSecondaryIndexes, [{
      IndexName: t.dueIndex.name,
      KeySchema: [
        { AttributeName: t.dueIndex.partitionKey.name, KeyType: 'HASH' },
        { AttributeName: t.dueIndex.sortKey.name, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: t.dueIndex.projectionType },
    }]);
    assert.deepEqual(
      (p.AttributeDefinitions as Array<{ AttributeName: string; AttributeType: string }>).map((a) => `${a.AttributeName}:${a.AttributeType}`).sort(),
      [t.partitionKey, t.sortKey, t.dueIndex.partitionKey, t.dueIndex.sortKey].map((a) => `${a.name}:${a.type}`).sort(),
    );
  });

  it('is retained when the stack is deleted', () => {
    template.hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });
});

describe('ReconcileQueues', () => {
  const workDlq = logicalId(template, 'AWS::SQS::Queue', 'QueuesWorkDlq');
  const triggerDlq = logicalId(template, 'AWS::SQS::Queue', 'QueuesTriggerDlq');

  it('makes the work queue high-throughput FIFO with explicit deduplication ids, dead-lettering to a FIFO queue', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      FifoQueue: true,
      ContentBasedDeduplication: false,
      DeduplicationScope: 'messageGroup',
      FifoThroughputLimit: 'perMessageGroupId',
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [workDlq, 'Arn'] }, maxReceiveCount: 5 },
    });
    template.hasResourceProperties('AWS::SQS::Queue', { FifoQueue: true, RedrivePolicy: Match.absent(), MessageRetentionPeriod: 14 * 24 * 3600 });
  });

  it('makes the trigger queue a standard queue with its own dead-letter queue', () => {
    const trigger = resources(template, 'AWS::SQS::Queue')[logicalId(template, 'AWS::SQS::Queue', 'QueuesTrigger2')];
    assert.equal(trigger?.Properties?.FifoQueue, undefined);
    assert.deepEqual(trigger?.Properties?.RedrivePolicy, { deadLetterTargetArn: { 'Fn::GetAtt': [triggerDlq, 'Arn'] }, maxReceiveCount: 5 });
  });

  it('hides a received message for 6 times the reconcile timeout', () => {
    const fn = resources(template, 'AWS::Lambda::Function')[logicalId(template, 'AWS::Lambda::Function', 'ReconcileFunction')];
    const timeout = fn?.Properties?.Timeout as number;
    for (const prefix of ['QueuesWork4', 'QueuesTrigger2']) {
      const q = resources(template, 'AWS::SQS::Queue')[logicalId(template, 'AWS::SQS::Queue', prefix)];
      assert.equal(q?.Properties?.VisibilityTimeout, timeout * 6);
    }
  });

  it('encrypts every queue and refuses requests without TLS', () => {
    const queues = resources(template, 'AWS::SQS::Queue');
    for (const [id, q] of Object.entries(queues)) assert.equal(q.Properties?.SqsManagedSseEnabled, true, id);
    const policies = Object.values(resources(template, 'AWS::SQS::QueuePolicy'));
    for (const id of Object.keys(queues)) {
      const guarded = policies.some((p) => {
        const props = p.Properties as { Queues: Array<{ Ref: string }>; PolicyDocument: { Statement: Array<Record<string, unknown>> } };
        return props.Queues.some((q) => q.Ref === id) && props.PolicyDocument.Statement.some((s) =>
          s.Effect === 'Deny' && JSON.stringify(s.Condition) === JSON.stringify({ Bool: { 'aws:SecureTransport': 'false' } }));
      });
      assert.ok(guarded, `${id} has no Deny on aws:SecureTransport=false`);
    }
  });
});

describe('functions', () => {
  const names = ['Reconcile', 'Sweep', 'Api', 'WatchProxy'];

  it('runs all four on nodejs22.x, arm64, active tracing, with the ESM bundle handler', () => {
    for (const name of names) {
      const fn = resources(template, 'AWS::Lambda::Function')[logicalId(template, 'AWS::Lambda::Function', `${name}Function`)];
      assert.equal(fn?.Properties?.Runtime, 'nodejs22.x', name);
      assert.deepEqual(fn?.Properties?.Architectures, ['arm64'], name);
      assert.deepEqual(fn?.Properties?.TracingConfig, { Mode: 'Active' }, name);
      assert.equal(fn?.Properties?.Handler, 'index.handler', name);
    }
    template.resourceCountIs('AWS::Lambda::Function', 4);
  });

  it('gives every function the configuration shared/app/config.ts requires and the Powertools variables', () => {
    const services = new Set<unknown>();
    for (const name of names) {
      const fn = resources(template, 'AWS::Lambda::Function')[logicalId(template, 'AWS::Lambda::Function', `${name}Function`)];
      const vars = (fn?.Properties?.Environment as { Variables: Record<string, unknown> }).Variables;
      for (const key of [ENV.tableName, ENV.queueUrl, ENV.triggerQueueUrl, ENV.eventBusName, ENV.eventSource]) assert.ok(key in vars, `${name}: ${key}`);
      assert.match(String(vars.POWERTOOLS_SERVICE_NAME), /^rollouts-(reconcile|sweep|api|watch-proxy)$/);
      assert.equal(vars.POWERTOOLS_METRICS_NAMESPACE, 'ServerlessRollouts');
      assert.equal(vars.POWERTOOLS_LOG_LEVEL, 'INFO');
      assert.equal(vars[ENV.eventSource], 'serverless-rollouts');
      // The sweep's window is its schedule's rate; the resync period comes from the deploy parameters.
      assert.deepEqual([vars[ENV.sweepIntervalSeconds], vars[ENV.resyncPeriodSeconds]], ['60', '300'], name);
      // All three wake-up schedule settings, or loadConfig refuses them.
      for (const key of [ENV.wakeScheduleGroup, ENV.wakeScheduleRoleArn, ENV.triggerQueueArn]) assert.ok(key in vars, `${name}: ${key}`);
      assert.equal(vars.NODE_OPTIONS, BUNDLE_RUNTIME_ENV.NODE_OPTIONS);
      services.add(vars.POWERTOOLS_SERVICE_NAME);
    }
    assert.equal(services.size, names.length, 'each function is its own Powertools service');
  });

  it('writes each function to its own log group with a retention', () => {
    for (const name of names) {
      const fn = resources(template, 'AWS::Lambda::Function')[logicalId(template, 'AWS::Lambda::Function', `${name}Function`)];
      const logs = logicalId(template, 'AWS::Logs::LogGroup', `${name}Logs`);
      assert.deepEqual(fn?.Properties?.LoggingConfig, { LogGroup: { Ref: logs } });
      template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
    }
  });

  it('feeds reconcile from both queues in small batches that report partial failures', () => {
    const reconcile = logicalId(template, 'AWS::Lambda::Function', 'ReconcileFunction');
    for (const prefix of ['QueuesWork4', 'QueuesTrigger2']) {
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: reconcile },
        EventSourceArn: { 'Fn::GetAtt': [logicalId(template, 'AWS::SQS::Queue', prefix), 'Arn'] },
        BatchSize: 5,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: 10 },
      });
    }
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 2);
  });

  it('serves the API on a Function URL that AWS refuses to invoke without a SigV4 signature, and allows no CORS origin', () => {
    template.resourceCountIs('AWS::Lambda::Url', 1);
    template.hasResourceProperties('AWS::Lambda::Url', {
      AuthType: 'AWS_IAM',
      TargetFunctionArn: { 'Fn::GetAtt': [logicalId(template, 'AWS::Lambda::Function', 'ApiFunction'), 'Arn'] },
      Cors: Match.absent(),
    });
    // No resource policy opens it to anyone: callers need an identity policy of their own.
    template.resourceCountIs('AWS::Lambda::Permission', 0);
  });
});

describe('schedules', () => {
  const input = JSON.stringify({ scheduledTime: '<aws.scheduler.scheduled-time>' });
  const dlq = { Arn: { 'Fn::GetAtt': [logicalId(template, 'AWS::SQS::Queue', 'DeliveryDlq'), 'Arn'] } };

  it('ticks the sweep every minute with the scheduled time, bounded retries and a dead-letter queue', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(1 minute)',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: {
        Arn: { 'Fn::GetAtt': [logicalId(template, 'AWS::Lambda::Function', 'SweepFunction'), 'Arn'] },
        Input: input,
        RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 60 },
        DeadLetterConfig: dlq,
      },
    });
  });

  it('by default schedules no watch-proxy: the reconcile starts one for up to 15 minutes while pods move, knowing its name and run time', () => {
    template.resourceCountIs('AWS::Scheduler::Schedule', 1);
    const fns = resources(template, 'AWS::Lambda::Function');
    const watchProxy = logicalId(template, 'AWS::Lambda::Function', 'WatchProxyFunction');
    assert.equal(fns[watchProxy]?.Properties?.Timeout, 15 * 60);
    const vars = (fns[logicalId(template, 'AWS::Lambda::Function', 'ReconcileFunction')]?.Properties?.Environment as { Variables: Record<string, unknown> }).Variables;
    assert.deepEqual(vars[ENV.watchProxyFunction], { Ref: watchProxy });
    assert.equal(vars[ENV.watcherSeconds], String(15 * 60 - 20), 'the timeout less the watch margin the watch-proxy is given');
    const own = (fns[watchProxy]?.Properties?.Environment as { Variables: Record<string, unknown> }).Variables;
    assert.equal(own[ENV.watchMarginSeconds], '20');
  });

  it('with watchProxyMode always, starts a watch-proxy every 5 minutes that runs for 6, so two watchers overlap', () => {
    const always = synth({ watchProxyMode: 'always' }).template;
    const watchProxy = logicalId(always, 'AWS::Lambda::Function', 'WatchProxyFunction');
    always.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(5 minutes)',
      Target: { Arn: { 'Fn::GetAtt': [watchProxy, 'Arn'] }, Input: input, RetryPolicy: Match.objectLike({ MaximumRetryAttempts: 2 }), DeadLetterConfig: dlq },
    });
    assert.equal(resources(always, 'AWS::Lambda::Function')[watchProxy]?.Properties?.Timeout, 6 * 60);
    const vars = (resources(always, 'AWS::Lambda::Function')[logicalId(always, 'AWS::Lambda::Function', 'ReconcileFunction')]?.Properties?.Environment as { Variables: Record<string, unknown> }).Variables;
    assert.equal(vars[ENV.watchProxyFunction], undefined, 'no on-demand launches');
  });

  it('does not retry failed sweep or watch-proxy runs asynchronously: the next tick or launch replaces them', () => {
    for (const name of ['SweepFunction', 'WatchProxyFunction']) {
      template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: { Ref: logicalId(template, 'AWS::Lambda::Function', name) },
        MaximumRetryAttempts: 0,
      });
    }
  });
});

describe('RolloutEventBus', () => {
  it('creates the serverless-rollouts bus for transition events, with no archive and no rule routing watch notices (they go to the work queue)', () => {
    template.hasResourceProperties('AWS::Events::EventBus', { Name: 'serverless-rollouts' });
    template.resourceCountIs('AWS::Events::Rule', 0);
    template.resourceCountIs('AWS::Events::Archive', 0);
  });

  it('lets no service principal send to the trigger queue (Scheduler delivers wake-ups with its own role)', () => {
    const trigger = logicalId(template, 'AWS::SQS::Queue', 'QueuesTrigger2');
    for (const policy of Object.values(resources(template, 'AWS::SQS::QueuePolicy'))) {
      const queues = JSON.stringify(policy.Properties?.Queues);
      if (!queues.includes(trigger)) continue;
      const statements = (policy.Properties?.PolicyDocument as { Statement: { Effect: string }[] }).Statement;
      assert.deepEqual(statements.filter((s) => s.Effect === 'Allow'), [], 'only the TLS-only deny');
    }
  });
});

describe('outputs', () => {
  it('publishes the API URL, the bus, the table and the queue URLs', () => {
    for (const name of ['ApiUrl', 'ApiFunctionArn', 'EventBusName', 'EventBusArn', 'TableName', 'QueueUrl', 'TriggerQueueUrl', 'ReconcileRoleArn', 'WatchProxyRoleArn', 'ApiRoleArn']) {
      template.hasOutput(name, {});
    }
    template.hasOutput('ApiUrl', { Value: { 'Fn::GetAtt': [logicalId(template, 'AWS::Lambda::Url', 'ApiFunctionFunctionUrl'), 'FunctionUrl'] } });
  });
});
