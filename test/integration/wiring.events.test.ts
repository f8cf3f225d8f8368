// Our transition events as EventBridge delivers them (the AWS emulator: moto server, or LocalStack
// with AWS_ENDPOINT_URL), validated against the committed schema (schemas/rollout-event.schema.json);
// and the stack's notification rule pattern, on the same bus, selects approvals needed and failures
// only. The production composition root (buildAppDeps) publishes; the real control plane moves pods.
// Kept apart from wiring.test.ts, which other work moves to LocalStack.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { DeleteRuleCommand, PutRuleCommand, PutTargetsCommand, RemoveTargetsCommand } from '@aws-sdk/client-eventbridge';
import { CreateQueueCommand, DeleteQueueCommand, GetQueueAttributesCommand, SetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { AppsV1Api } from '@kubernetes/client-node';
import { notificationPattern } from '../../infra/constructs/RolloutNotifications.ts';
import { buildAppDeps, type AppDeps } from '../../shared/app/lambdaDeps.ts';
import { reconcile } from '../../shared/reconcile/reconcile.ts';
import { NOTIFY_EVENTS } from '../../shared/rollout/events.ts';
import { parseRollout } from '../../shared/rollout/spec.ts';
import type { ReleaseState, RolloutKey } from '../../shared/rollout/types.ts';
import { startAwsEmulator, type AwsEmulator, type Queue } from '../support/aws/emulator.ts';
import { EventSourceMappingPoller } from '../support/aws/sqsPoller.ts';
import { startDynalite, type DynaliteHarness } from '../../bench/testbed/dynalite.ts';
import { startTestCluster, type TestCluster } from '../../bench/testbed/kube.ts';
import { waitFor } from '../../bench/testbed/wait.ts';

const CLUSTER = 'local';
const schema = JSON.parse(readFileSync(new URL('../../schemas/rollout-event.schema.json', import.meta.url), 'utf8')) as Record<string, unknown>;

let aws: AwsEmulator;
let dynamo: DynaliteHarness;
let cluster: TestCluster;
let deps: AppDeps;
let notified: Queue;
let key: RolloutKey;
const cleanups: (() => Promise<unknown>)[] = [];

/** Every message waiting on `queue`: the EventBridge events as the bus delivered them. */
async function drain(queue: Queue): Promise<Record<string, unknown>[]> {
  const poller = new EventSourceMappingPoller(aws.sqs, queue, { region: aws.region, waitTimeSeconds: 0 });
  const out: Record<string, unknown>[] = [];
  for (;;) {
    const d = await poller.deliverOnce(async () => {});
    if (!d) return out;
    out.push(...d.event.Records.map((r) => JSON.parse(r.body) as Record<string, unknown>));
  }
}

async function passUntil(done: (s: ReleaseState) => boolean, what: string): Promise<void> {
  await waitFor(async () => {
    await reconcile(key, deps.reconcile);
    return done((await deps.store.load(key)).state.state);
  }, { message: what, timeoutMs: 60_000, intervalMs: 300 });
}

/** A queue receiving what the stack's notification rule pattern selects, on the emulator's bus. */
async function notificationQueue(): Promise<Queue> {
  const name = `${aws.eventBusName}-notify`;
  const { QueueUrl } = await aws.sqs.send(new CreateQueueCommand({ QueueName: name }));
  const url = QueueUrl as string;
  cleanups.push(() => aws.sqs.send(new DeleteQueueCommand({ QueueUrl: url })));
  const arn = (await aws.sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }))).Attributes?.QueueArn as string;
  const rule = await aws.eventBridge.send(new PutRuleCommand({ Name: name, EventBusName: aws.eventBusName, EventPattern: JSON.stringify(notificationPattern(aws.eventSource)) }));
  cleanups.push(() => aws.eventBridge.send(new DeleteRuleCommand({ Name: name, EventBusName: aws.eventBusName })));
  const policy = { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: { Service: 'events.amazonaws.com' }, Action: 'sqs:SendMessage', Resource: arn, Condition: { ArnEquals: { 'aws:SourceArn': rule.RuleArn } } }] };
  await aws.sqs.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: { Policy: JSON.stringify(policy) } }));
  await aws.eventBridge.send(new PutTargetsCommand({ Rule: name, EventBusName: aws.eventBusName, Targets: [{ Id: 'queue', Arn: arn }] }));
  cleanups.push(() => aws.eventBridge.send(new RemoveTargetsCommand({ Rule: name, EventBusName: aws.eventBusName, Ids: ['queue'] })));
  return { url, arn };
}

before(async () => {
  [aws, dynamo, cluster] = await Promise.all([startAwsEmulator(), startDynalite(), startTestCluster({ podReadyDelayMs: 200 })]);
  deps = buildAppDeps(aws.config(dynamo.tableName), {
    clients: { dynamodb: dynamo.client, sqs: aws.sqs, eventBridge: aws.eventBridge },
    clusterOptions: { staticTokens: { [CLUSTER]: cluster.rolloutsToken }, cache: new Map() },
  });
  notified = await notificationQueue();
  const namespace = await cluster.createNamespace('events');
  key = { cluster: CLUSTER, namespace, name: 'web' };
  await cluster.createDeployment(namespace, 'web', { replicas: 2, image: 'registry.invalid/web:v1' });
  await deps.store.putCluster({ name: CLUSTER, endpoint: { server: cluster.server, insecureSkipTlsVerify: true } });
  const doc = {
    apiVersion: 'rollouts.kruise.io/v1beta1', kind: 'Rollout', metadata: { name: 'web', namespace },
    spec: { workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, strategy: { canary: { steps: [{ replicas: 1, pause: {} }, { replicas: '100%' }] } } },
  };
  await deps.store.putSpec(key, parseRollout(doc, { cluster: CLUSTER }), doc, 0);
});

after(async () => {
  for (const undo of cleanups.reverse()) await undo().catch(() => undefined);
  await Promise.allSettled([aws?.stop(), dynamo?.stop(), cluster?.stop()]);
});

describe('transition events on EventBridge', () => {
  test('a release, an approval and a deleted workload: every event delivered validates against the committed schema', async () => {
    await passUntil((s) => s.phase === 'Healthy' && s.stableRevision !== null, 'the Deployment to be adopted');
    const apps = cluster.admin.makeApiClient(AppsV1Api);
    await apps.patchNamespacedDeployment({ name: 'web', namespace: key.namespace, body: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'registry.invalid/web:v2' }] });
    await passUntil((s) => s.release?.stepState === 'StepPaused', 'the release to wait for approval');
    await deps.store.recordCommand(key, { type: 'approve', id: 'events-approve', at: new Date().toISOString(), by: 'arn:aws:iam::123456789012:user/release-bot' });
    await passUntil((s) => s.phase === 'Completed', 'the release to complete');
    await apps.deleteNamespacedDeployment({ name: 'web', namespace: key.namespace });
    await passUntil((s) => s.phase === 'Degraded', 'the rollout to be Degraded');

    const delivered = await waitFor(async () => {
      const got = await drain(aws.published);
      return got.some((e) => e['detail-type'] === 'Rollout Degraded') ? got : null;
    }, { message: 'the events on the inspection queue', timeoutMs: 30_000, intervalMs: 500 });
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    addFormats.default(ajv);
    const validate = ajv.compile(schema);
    const types = delivered.map((e) => String(e['detail-type']));
    for (const t of ['Workload Adopted', 'Release Started', 'Awaiting Approval', 'Step Approved', 'Release Completed', 'Rollout Degraded']) assert.ok(types.includes(t), `${t} in ${types.join(', ')}`);
    for (const e of delivered) {
      assert.ok(validate(e), `${String(e['detail-type'])}: ${JSON.stringify(validate.errors)}\n${JSON.stringify(e)}`);
      assert.equal((e.detail as { type: string }).type, e['detail-type']);
    }
    const degraded = delivered.find((e) => e['detail-type'] === 'Rollout Degraded')?.detail as { reason: string; cause: { kind: string } };
    assert.deepEqual([degraded.reason, degraded.cause.kind], [`Deployment ${key.namespace}/web not found`, 'WorkloadMissing']);
  });

  test('the notification rule selects approvals needed and failures, nothing else', async () => {
    const notices = await waitFor(async () => {
      const got = await drain(notified);
      return got.length >= 2 ? got : null;
    }, { message: 'the notifications', timeoutMs: 30_000, intervalMs: 500 });
    assert.deepEqual(notices.map((e) => e['detail-type']), ['Awaiting Approval', 'Rollout Degraded']);
    assert.ok(notices.every((e) => NOTIFY_EVENTS.includes(e['detail-type'] as never)));
  });
});
