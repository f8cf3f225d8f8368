// Least privilege, read back from the template: what each role may do, on what, and no wildcard
// resource except the ones AWS requires (each listed below with its reason).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { asList, grantsOf, renderResource, statementsOf } from './grants.ts';
import { ACCOUNT, FULL_CONTEXT, REGION, logicalId, synth } from '../../infra/synth.ts';

/** Actions allowed on Resource "*", and why AWS leaves no narrower choice. */
const WILDCARD_ALLOWED: Record<string, string> = {
  'xray:PutTraceSegments': 'X-Ray has no resource-level permissions; active tracing needs it on "*"',
  'xray:PutTelemetryRecords': 'X-Ray has no resource-level permissions; active tracing needs it on "*"',
};

const { template } = synth(FULL_CONTEXT);
const role = (prefix: string) => logicalId(template, 'AWS::IAM::Role', prefix);
const PARTNER_ROLE = 'arn:aws:iam::210987654321:role/rollouts-access';
const cluster = (name: string, region = REGION) => `arn:aws:eks:${region}:${ACCOUNT}:cluster/${name}`;
const DIRECT_CLUSTERS = [cluster('prod-eks'), cluster('staging-eks'), cluster('tokyo-eks', 'ap-northeast-1')].sort();
const LOGS_AND_TRACES = (logs: string) => ({
  'logs:CreateLogStream': [logs],
  'logs:PutLogEvents': [logs],
  'xray:PutTelemetryRecords': ['*'],
  'xray:PutTraceSegments': ['*'],
});
const TABLE_ITEMS = ['BatchWriteItem', 'DeleteItem', 'GetItem', 'PutItem', 'Query'];
/** The wake-up schedules' group (its physical name is generated at synth). */
const WAKE_GROUP = Object.values(template.findResources('AWS::Scheduler::ScheduleGroup')).map((r) => (r.Properties as { Name: string }).Name)[0];
/** The one partial wildcard: the schedules of that group, whose names (a hash per wake-up) are not known in advance. */
const WAKE_SCHEDULES = `arn:aws:scheduler:${REGION}:${ACCOUNT}:schedule/${WAKE_GROUP}/*`;
const SCHEDULE_ACTIONS = ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule', 'scheduler:UpdateSchedule'];
const perAction = (actions: string[], resource: string) => Object.fromEntries(actions.map((a) => [a, [resource]]));

describe('IAM', () => {
  it('scopes every statement to our resources, the listed clusters or the listed roles; "*" only where AWS requires it', () => {
    const ids = new Set(Object.keys(template.toJSON().Resources as object));
    const allowedLiterals = new Set([...DIRECT_CLUSTERS, PARTNER_ROLE]);
    for (const { policy, statement } of statementsOf(template)) {
      for (const resource of asList(statement.Resource)) {
        const text = renderResource(resource, ids);
        if (text === WAKE_SCHEDULES) {
          assert.deepEqual(asList(statement.Action).sort(), SCHEDULE_ACTIONS, `${policy}: only schedule writes on the wake-up group`);
          continue;
        }
        if (text.includes('*')) {
          for (const action of asList(statement.Action)) {
            assert.ok(WILDCARD_ALLOWED[action], `${policy}: ${action} on ${text} is not an allowed wildcard`);
          }
          assert.equal(text, '*', `${policy}: partial wildcard ${text}`);
          continue;
        }
        const ours = /^<[A-Za-z0-9]+>(\/index\/[A-Za-z0-9_.-]+)?$/.test(text);
        assert.ok(ours || allowedLiterals.has(text), `${policy}: ${asList(statement.Action).join(',')} on ${text} is not one of our resources`);
      }
    }
  });

  it('grants reconcile table items, polling of both queues, sends to the trigger queue, its own event source and the listed clusters', () => {
    const polled = ['<QueuesTrigger>', '<QueuesWork>'];
    assert.deepEqual(grantsOf(template, role('ReconcileRole')), {
      ...perAction(TABLE_ITEMS.map((a) => `dynamodb:${a}`), '<StateTable>'),
      'eks:DescribeCluster': DIRECT_CLUSTERS,
      'events:PutEvents': ['<EventsBus>'],
      ...LOGS_AND_TRACES('<ReconcileLogs>'),
      // The event source mappings poll with the function's role.
      ...Object.fromEntries(['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage'].map((a) => [a, polled])),
      'sqs:SendMessage': ['<QueuesTrigger>'],
      'sts:AssumeRole': [PARTNER_ROLE],
      // Wake-ups beyond SQS's 15 minutes: schedules of the wake-up group, delivered with the delivery role.
      ...perAction(SCHEDULE_ACTIONS, WAKE_SCHEDULES),
      'iam:PassRole': ['<WakeSchedulesDeliveryRole>'],
      // The on-demand watcher: its lease item, and starting the watch-proxy.
      'dynamodb:UpdateItem': ['<StateTable>'],
      'lambda:InvokeFunction': ['<WatchProxyFunction>'],
    });
  });

  it('lets reconcile and the watch-proxy update the watcher lease item only (partition key WATCHER)', () => {
    const updates = statementsOf(template).filter(({ statement }) => asList(statement.Action).includes('dynamodb:UpdateItem'));
    assert.deepEqual(updates.map(({ roles }) => roles[0]?.replace(/[0-9A-F]{8}$/, '')).sort(), ['ReconcileRole', 'WatchProxyRole']);
    for (const { statement } of updates) {
      assert.deepEqual(asList(statement.Action), ['dynamodb:UpdateItem'], 'alone in its statement, so the condition covers nothing else');
      assert.deepEqual(statement.Condition, { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['WATCHER'] } });
    }
  });

  it('lets Scheduler, for this account and the wake-up group only, send wake-ups to the trigger queue, nothing else', () => {
    const id = role('WakeSchedulesDeliveryRole');
    assert.deepEqual(grantsOf(template, id), { 'sqs:SendMessage': ['<QueuesTrigger>'] });
    const trust = (template.toJSON().Resources[id].Properties.AssumeRolePolicyDocument.Statement as Array<Record<string, any>>)[0];
    assert.deepEqual(trust?.Principal, { Service: 'scheduler.amazonaws.com' });
    assert.equal(trust?.Condition.StringEquals['aws:SourceAccount'], ACCOUNT);
    assert.equal(renderResource(trust?.Condition.ArnLike['aws:SourceArn'], new Set()), WAKE_SCHEDULES);
    const passRole = statementsOf(template).find(({ statement }) => asList(statement.Action).includes('iam:PassRole'))?.statement as Record<string, any>;
    assert.deepEqual(passRole.Condition, { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } });
  });

  it('grants the sweep a Query of the due index and sends to the work queue, nothing else', () => {
    assert.deepEqual(grantsOf(template, role('SweepRole')), {
      'dynamodb:Query': ['<StateTable>/index/due'],
      ...LOGS_AND_TRACES('<SweepLogs>'),
      'sqs:SendMessage': ['<QueuesWork>'],
    });
  });

  it('grants the API table items, the work queue and the listed clusters (for the workload tree); no event bus access', () => {
    assert.deepEqual(grantsOf(template, role('ApiRole')), {
      // GetItem also reads the cluster registrations the workload route resolves.
      ...perAction(TABLE_ITEMS.map((a) => `dynamodb:${a}`), '<StateTable>'),
      'eks:DescribeCluster': DIRECT_CLUSTERS,
      ...LOGS_AND_TRACES('<ApiLogs>'),
      'sqs:SendMessage': ['<QueuesWork>'],
      'sts:AssumeRole': [PARTNER_ROLE],
    });
  });

  it('grants the watch-proxy table reads, sends to the work queue (its notices) and the listed clusters; no event bus', () => {
    assert.deepEqual(grantsOf(template, role('WatchProxyRole')), {
      'dynamodb:GetItem': ['<StateTable>'],
      'dynamodb:Query': ['<StateTable>'],
      'dynamodb:UpdateItem': ['<StateTable>'],
      'eks:DescribeCluster': DIRECT_CLUSTERS,
      ...LOGS_AND_TRACES('<WatchProxyLogs>'),
      'sqs:SendMessage': ['<QueuesWork>'],
      'sts:AssumeRole': [PARTNER_ROLE],
    });
  });

  it('lets only the reconcile put events, under its own source only', () => {
    const sources = statementsOf(template)
      .filter(({ statement }) => asList(statement.Action).includes('events:PutEvents'))
      .map(({ roles, statement }) => [roles[0], statement.Condition]);
    assert.deepEqual(sources, [[role('ReconcileRole'), { StringEquals: { 'events:source': 'serverless-rollouts' } }]]);
  });

  it('lets the Scheduler roles invoke only their own function and send only to the delivery dead-letter queue', () => {
    const always = synth({ ...FULL_CONTEXT, watchProxyMode: 'always' }).template;
    for (const [t, fn] of [[template, 'SweepFunction'], [always, 'SweepFunction'], [always, 'WatchProxyFunction']] as const) {
      const fnId = logicalId(t, 'AWS::Lambda::Function', fn);
      const schedulerRole = statementsOf(t).find(({ statement }) =>
        JSON.stringify(statement.Resource) === JSON.stringify({ 'Fn::GetAtt': [fnId, 'Arn'] }))?.roles[0];
      assert.ok(schedulerRole, `no role may invoke ${fn}`);
      const prefix = fn.replace('Function', '');
      assert.deepEqual(grantsOf(t, schedulerRole), {
        'lambda:InvokeFunction': [`<${prefix}Function>`],
        'sqs:SendMessage': ['<DeliveryDlq>'],
      });
    }
  });
});
