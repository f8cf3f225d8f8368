// The serverless shell wired end to end on real components: LocalStack for SQS and EventBridge,
// dynalite for DynamoDB, and the real local Kubernetes control plane. The handlers are the
// production ones over the production composition root (buildAppDeps); only the deliveries Lambda
// would make are played by the test:
// an event-source-mapping poller for SQS, a SigV4-verifying Function URL for the API, direct calls
// for the schedules.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { AppsV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { createApiHandler } from '../../functions/api/createHandler.ts';
import { createReconcileHandler } from '../../functions/reconcile/createHandler.ts';
import { createSweepHandler } from '../../functions/sweep/createHandler.ts';
import { createWatchProxyHandler } from '../../functions/watch-proxy/createHandler.ts';
import { buildAppDeps, type AppDeps } from '../../shared/app/lambdaDeps.ts';
import type { RolloutKey } from '../../shared/rollout/types.ts';
import { startAwsEmulator, type AwsEmulator } from '../support/aws/emulator.ts';
import { startFunctionUrl, type Caller, type FunctionUrlServer } from '../support/aws/functionUrl.ts';
import { lambdaContext } from '../support/aws/lambdaContext.ts';
import { signedFetch, unsignedFetch, type SignedFetchInit } from '../support/aws/sigv4.ts';
import { EventSourceMappingPoller, type SqsHandler } from '../support/aws/sqsPoller.ts';
import { startDynalite, type DynaliteHarness } from '../../bench/testbed/dynalite.ts';
import { testObservability } from '../support/fakes/observability.ts';
import { startTestCluster, type TestCluster } from '../../bench/testbed/kube.ts';
import { waitFor } from '../../bench/testbed/wait.ts';

const CLUSTER = 'local';
const caller: Caller = { accessKeyId: 'AKIDWIRINGTEST', secretAccessKey: 'wiring-test-secret', userArn: 'arn:aws:iam::123456789012:user/release-bot' };
const strategicMerge = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);

let aws: AwsEmulator;
let dynamo: DynaliteHarness;
let cluster: TestCluster;
let deps: AppDeps;
let url: FunctionUrlServer;
let work: EventSourceMappingPoller;
let reconcileHandler: SqsHandler;
let namespace: string;
let key: RolloutKey;

function call(init: Omit<SignedFetchInit, 'credentials' | 'region'>, as: Caller = caller) {
  return signedFetch(url.url, { ...init, credentials: as, region: aws.region });
}

async function state() {
  return (await deps.store.load(key)).state.state;
}

/** Messages waiting on the queue that carries our transition events, by detail-type. */
async function publishedTypes(): Promise<string[]> {
  const poller = new EventSourceMappingPoller(aws.sqs, aws.published, { region: aws.region, waitTimeSeconds: 0 });
  const types: string[] = [];
  for (;;) {
    const d = await poller.deliverOnce(async () => {});
    if (!d) return types;
    types.push(...d.event.Records.map((r) => String((JSON.parse(r.body) as Record<string, unknown>)['detail-type'])));
  }
}

before(async () => {
  [aws, dynamo, cluster] = await Promise.all([startAwsEmulator(), startDynalite(), startTestCluster({ podReadyDelayMs: 200 })]);
  deps = buildAppDeps(aws.config(dynamo.tableName), {
    clients: { dynamodb: dynamo.client, sqs: aws.sqs, eventBridge: aws.eventBridge },
    // The local control plane is a static-endpoint registration; its bearer token is the least-privilege one.
    clusterOptions: { staticTokens: { [CLUSTER]: cluster.rolloutsToken }, cache: new Map() },
  });
  const handler = createReconcileHandler(deps, testObservability());
  reconcileHandler = (event) => handler(event, lambdaContext('reconcile'));
  url = await startFunctionUrl(createApiHandler(deps, testObservability()), { callers: [caller], region: aws.region });
  work = new EventSourceMappingPoller(aws.sqs, aws.work, { region: aws.region });

  namespace = await cluster.createNamespace('wiring');
  key = { cluster: CLUSTER, namespace, name: 'web' };
  await cluster.createDeployment(namespace, 'web', { replicas: 2, image: 'registry.invalid/web:v1' });
  const apps = cluster.admin.makeApiClient(AppsV1Api);
  await waitFor(async () => (await apps.readNamespacedDeployment({ name: 'web', namespace })).status?.readyReplicas === 2, { message: 'deployment web ready' });
});

after(async () => {
  await Promise.allSettled([url?.stop(), aws?.stop(), dynamo?.stop(), cluster?.stop()]);
});

describe('API through a SigV4 Function URL', () => {
  test('an unsigned request is refused with 403 before the function runs', async () => {
    const res = await unsignedFetch(url.url, { method: 'GET', path: '/v1/rollouts' });
    assert.equal(res.status, 403);
    assert.equal(url.invocations, 0);
  });

  test('a request signed with the wrong secret is refused with 403', async () => {
    const res = await call({ method: 'GET', path: '/v1/rollouts' }, { ...caller, secretAccessKey: 'not-the-secret' });
    assert.equal(res.status, 403);
    assert.match(String(res.json?.Message), /signature/);
    assert.equal(url.invocations, 0);
  });

  test('registering the cluster and applying a Rollout stores them and queues a reconcile on the FIFO queue', async () => {
    const reg = await call({ method: 'PUT', path: `/v1/clusters/${CLUSTER}`, body: JSON.stringify({ endpoint: { server: cluster.server, insecureSkipTlsVerify: true } }) });
    assert.equal(reg.status, 201, reg.text);
    const doc = {
      apiVersion: 'rollouts.kruise.io/v1beta1', kind: 'Rollout', metadata: { name: 'web' },
      spec: { workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, strategy: { canary: { steps: [{ replicas: 1, pause: {} }, { replicas: '100%' }] } } },
    };
    const res = await call({ method: 'PUT', path: `/v1/rollouts/${CLUSTER}/${namespace}/web`, body: JSON.stringify(doc) });
    assert.equal(res.status, 201, res.text);
    assert.equal((await deps.store.load(key)).spec?.specVersion, 1);

    const delivery = await work.deliverOnce(reconcileHandler);
    const record = delivery?.event.Records[0];
    assert.deepEqual(JSON.parse(record?.body ?? '{}'), { ...key, reason: 'api' });
    assert.equal(record?.attributes.MessageGroupId, `${CLUSTER}/${namespace}/web`);
    assert.equal(record?.eventSourceARN, aws.work.arn);
    assert.deepEqual(delivery?.response, { batchItemFailures: [] });

    const s = await state();
    assert.equal(s.phase, 'Healthy');
    assert.notEqual(s.stableRevision, null, 'the workload was adopted');
    const deployment = await cluster.admin.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: 'web', namespace });
    assert.equal(deployment.spec?.paused, true, 'the reconcile holds the Deployment');
    // The bus delivers to its rule's queue a moment later (LocalStack, as EventBridge, asynchronously).
    const seen: string[] = [];
    await waitFor(async () => { seen.push(...await publishedTypes()); return seen.includes('Workload Adopted'); }, { message: 'the transition event on the bus' });
  });

  test('a command is recorded on STATE with the signing principal and reaches the reconcile through the FIFO queue', async () => {
    const res = await call({ method: 'POST', path: `/v1/rollouts/${CLUSTER}/${namespace}/web/pause`, body: JSON.stringify({ commandId: 'wiring-pause-1' }) });
    assert.equal(res.status, 202, res.text);
    const recorded = (await state()).commands;
    assert.deepEqual(recorded.map((c) => [c.id, c.type, c.by]), [['wiring-pause-1', 'pause', caller.userArn]]);
    const again = await call({ method: 'POST', path: `/v1/rollouts/${CLUSTER}/${namespace}/web/pause`, body: JSON.stringify({ commandId: 'wiring-pause-1' }) });
    assert.deepEqual([again.status, again.json?.duplicate], [200, true]);

    await work.deliverUntil(reconcileHandler, async () => (await state()).userPaused, { message: 'the pause to be applied' });
    assert.equal((await call({ method: 'POST', path: `/v1/rollouts/${CLUSTER}/${namespace}/web/resume` })).status, 202);
    await work.deliverUntil(reconcileHandler, async () => !(await state()).userPaused, { message: 'the resume to be applied' });
  });

  test('bad requests answer 400 naming the field, 404 for an unknown rollout, 413 over the limit, and change nothing', async () => {
    const before = await deps.store.load(key);
    const malformed = await call({ method: 'PUT', path: `/v1/rollouts/${CLUSTER}/${namespace}/web`, body: '{"apiVersion": ' });
    assert.equal(malformed.status, 400);
    assert.equal((malformed.json?.error as { issues: { path: string }[] }).issues[0]?.path, '(body)');
    const badField = await call({ method: 'POST', path: `/v1/rollouts/${CLUSTER}/${namespace}/web/release`, body: JSON.stringify({ images: { app: 'has space' } }) });
    assert.equal(badField.status, 400);
    assert.deepEqual((badField.json?.error as { issues: unknown[] }).issues, [{ path: 'images.app', reason: '"has space" is not a valid image reference (expected [registry[:port]/]name[:tag][@algorithm:digest], e.g. nginx:1.28 or ghcr.io/org/app@sha256:…)' }]);
    const unknown = await call({ method: 'GET', path: `/v1/rollouts/${CLUSTER}/${namespace}/nope/status` });
    assert.equal(unknown.status, 404);
    const huge = await call({ method: 'PUT', path: `/v1/rollouts/${CLUSTER}/${namespace}/web`, body: JSON.stringify({ yaml: 'x'.repeat(70 * 1024) }) });
    assert.equal(huge.status, 413);
    assert.deepEqual(await deps.store.load(key), before);
    assert.equal(await work.receive(), null, 'nothing was queued');
  });
});

describe('watch events on the FIFO work queue', () => {
  test('a template change seen by the watch-proxy is queued on the FIFO work queue, and its reconcile starts the release', async () => {
    const stop = new AbortController();
    const proxy = createWatchProxyHandler(deps, testObservability(), { signal: stop.signal, windowMs: 200, refreshMs: 1000 })({}, lambdaContext('watch-proxy', { timeoutMs: 120_000 }));
    try {
      // The proxy's first listing replays the Deployment: its notice shows the watches are up. (The
      // work queue also carries our delayed re-runs, e.g. the look after the hold was written.)
      const bodies = () => work.deliveries.flatMap((d) => d.event.Records.map((r) => ({ body: JSON.parse(r.body) as Record<string, unknown>, record: r })));
      const notices = () => bodies().filter((b) => b.body.reason === 'watch');
      await work.deliverUntil(reconcileHandler, () => notices().length > 0, { message: 'the replay notice from the watch-proxy' });
      const first = notices()[0]!;
      assert.deepEqual({ ...first.body, causes: undefined }, { ...key, reason: 'watch', causes: undefined });
      assert.ok(Array.isArray(first.body.causes) && first.body.causes.length > 0, JSON.stringify(first.body));
      assert.equal(first.record.eventSourceARN, aws.work.arn);
      assert.equal(first.record.attributes.MessageGroupId, `${CLUSTER}/${namespace}/web`);
      assert.equal((await state()).release, null);

      await cluster.admin.makeApiClient(AppsV1Api).patchNamespacedDeployment(
        { name: 'web', namespace, body: { spec: { template: { spec: { containers: [{ name: 'app', image: 'registry.invalid/web:v2' }] } } } } },
        strategicMerge,
      );
      await work.deliverUntil(reconcileHandler, async () => (await state()).release !== null, { message: 'the release to start from a watch event' });
      const s = await state();
      assert.equal(s.phase, 'Progressing');
      assert.equal(s.release?.kind, 'release');
      // A delayed re-run of ours (the look after the hold) may reach the reconcile first and start the
      // release from the same template (level-triggered, as it should); the watch notice of the change
      // still arrives, and is what this test is about.
      const modified = () => notices().some((b) => (b.body.causes as string[] | undefined)?.some((r) => r.startsWith('Deployment web MODIFIED')));
      if (!modified()) await work.deliverUntil(reconcileHandler, () => modified(), { message: 'the watch notice of the template change' });
      assert.ok(modified(), JSON.stringify(notices().map((b) => b.body)));
      assert.deepEqual(await publishedTypes().then((types) => types.filter((t) => t === 'Workload Changed')), [], 'watch notices are not put on the bus');
    } finally {
      stop.abort();
      const stats = await proxy;
      assert.ok(stats.events > 0 && stats.changesSent > 0, JSON.stringify(stats));
    }
  });
});

describe('sweep', () => {
  test('a due rollout is queued on the FIFO queue by the sweep tick', async () => {
    // The release started above is active, so its STATE is in the due-index.
    while (await work.deliverOnce(reconcileHandler)); // the watch notices the proxy sent before it stopped
    const sweep = createSweepHandler(deps, testObservability());
    const res = await sweep({ scheduledTime: new Date().toISOString() }, lambdaContext('sweep'));
    assert.ok(res.due >= 1, JSON.stringify(res));
    const event = await waitFor(() => work.receive(), { message: 'the sweep message on the FIFO queue' });
    const bodies = event.Records.map((r) => JSON.parse(r.body) as Record<string, unknown>);
    assert.deepEqual(bodies, [{ ...key, reason: 'sweep' }]);
    assert.equal(event.Records[0]?.attributes.MessageGroupId, `${CLUSTER}/${namespace}/web`);
  });
});

describe('terminal errors', () => {
  /** Messages waiting and in flight on a queue, as SQS counts them. */
  async function depth(queueUrl: string): Promise<number> {
    const out = await aws.sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }));
    return Number(out.Attributes?.ApproximateNumberOfMessages ?? 0) + Number(out.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
  }

  test('an invalid stored Rollout goes Degraded with the reason in one delivery; the message is consumed, not redelivered, and the DLQ stays empty', async () => {
    while (await work.deliverOnce(reconcileHandler)); // what the tests above left waiting
    const inFlightBefore = await depth(aws.work.url); // the sweep test's message, received and left in flight
    const broken: RolloutKey = { cluster: CLUSTER, namespace, name: 'broken' };
    // As another version (or a hand edit) might leave it: a SPEC with no steps, which this version cannot plan with.
    const spec = { ...(await deps.store.load(key)).spec!.spec, name: 'broken', workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'broken' }, steps: [] };
    await deps.store.putSpec(broken, spec as never, { kind: 'Rollout' }, 0);
    await deps.queue.enqueue(broken, { reason: 'api' });

    const delivery = await work.deliverOnce(reconcileHandler);
    assert.deepEqual(delivery?.response, { batchItemFailures: [] }, 'the handler reports no failure: SQS deletes the message');
    const s = (await deps.store.load(broken)).state.state;
    assert.equal(s.phase, 'Degraded');
    assert.equal(s.message, 'the stored Rollout is invalid (steps: Too small: expected array to have >=1 items); apply the Rollout again');
    assert.equal(await depth(aws.work.url), inFlightBefore, 'nothing of ours left on the work queue, in flight or waiting');
    assert.equal(await work.deliverOnce(reconcileHandler), null, 'no redelivery');
    assert.equal(await depth(aws.workDlq.url), 0, 'the DLQ stays empty');
    assert.equal(await depth(aws.triggerDlq.url), 0);
  });
});
