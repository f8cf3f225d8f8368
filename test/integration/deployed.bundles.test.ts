// One release through the four functions exactly as `cdk deploy` ships them (the assets and the
// environment of the synthesized stack, testDeployment.ts), each run by a real Lambda runtime
// (RIE + Node 22 + aws-lambda-ric; the watch-proxy inside LocalStack's Lambda): a Scheduler tick →
// the sweep bundle → the FIFO queue on LocalStack → the reconcile bundle, fed the batches LocalStack
// returns as the event-source mapping delivers them → dynalite and the real control plane, reached
// with a token the reconcile reads from Secrets Manager; the API bundle behind a SigV4 Function URL;
// the watch-proxy started on demand by the reconcile, sending its notices straight to the FIFO work
// queue. This is what catches bundling, ESM/CJS, environment and handler mistakes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { AppsV1Api, CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { DynamoStateStore } from '../../shared/adapters/dynamodb/stateStore.ts';
import { DynamoWatcherLease } from '../../shared/adapters/dynamodb/watcherLease.ts';
import { ENV } from '../../shared/app/config.ts';
import type { RolloutKey } from '../../shared/rollout/types.ts';
import type { CloudAssembly } from '../support/aws/cloudAssembly.ts';
import { startDeployedFunctions, type DeployedFunctions } from '../support/aws/deployedFunctions.ts';
import { startAwsEmulator, type AwsEmulator } from '../support/aws/emulator.ts';
import type { Caller } from '../support/aws/functionUrl.ts';
import { startLocalStack, type LocalStack } from '../support/aws/localstack.ts';
import { signedFetch, type SignedFetchInit } from '../support/aws/sigv4.ts';
import { EDGE, testDeployment } from '../support/aws/testDeployment.ts';
import { startDynalite, type DynaliteHarness } from '../../bench/testbed/dynalite.ts';
import { isPodReady, startTestCluster, type TestCluster } from '../../bench/testbed/kube.ts';
import { waitFor } from '../../bench/testbed/wait.ts';

const CLUSTER = EDGE.name;
const caller: Caller = { accessKeyId: 'AKIDDEPLOYEDTEST', secretAccessKey: 'deployed-test-secret', userArn: 'arn:aws:iam::000000000000:user/release-bot' };
const strategicMerge = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);

let localstack: LocalStack;
let aws: AwsEmulator;
let dynamo: DynaliteHarness;
let cluster: TestCluster;
let fns: DeployedFunctions;
let store: DynamoStateStore;
let namespace: string;
let key: RolloutKey;

function call(init: Omit<SignedFetchInit, 'credentials' | 'region'>) {
  return signedFetch(fns.url.url, { ...init, credentials: caller, region: aws.region });
}

async function state() {
  return (await store.load(key)).state.state;
}

before(async () => {
  let assembly: CloudAssembly;
  [assembly, localstack, dynamo, cluster] = await Promise.all([testDeployment(), startLocalStack(), startDynalite(), startTestCluster({ podReadyDelayMs: 300 })]);
  aws = await startAwsEmulator({ localstack });
  store = new DynamoStateStore({ client: dynamo.client, tableName: dynamo.tableName });
  // Every tick resyncs every rollout (period = interval), so the tick below is what starts the release.
  fns = await startDeployedFunctions({ assembly, aws, dynamo, callers: [caller], env: { [ENV.resyncPeriodSeconds]: '60', [ENV.sweepIntervalSeconds]: '60' } });
  namespace = await cluster.createNamespace('deployed');
  key = { cluster: CLUSTER, namespace, name: 'web' };
  await cluster.createDeployment(namespace, 'web', { replicas: 4, image: 'registry.invalid/web:v1' });
  const apps = cluster.admin.makeApiClient(AppsV1Api);
  await waitFor(async () => (await apps.readNamespacedDeployment({ name: 'web', namespace })).status?.readyReplicas === 4, { message: 'deployment web ready' });
});

after(async () => {
  await fns?.stop();
  await Promise.allSettled([aws?.stop(), dynamo?.stop(), cluster?.stop()]);
  await localstack?.stop();
});

describe('a release through the deployed bundles', () => {
  test('the API bundle registers the cluster with its token in Secrets Manager and stores the Rollout; the reconcile bundle adopts and holds the Deployment', async () => {
    const secrets = new SecretsManagerClient({ endpoint: aws.endpoint, region: aws.region, credentials: aws.credentials });
    const secret = await secrets.send(new CreateSecretCommand({ Name: EDGE.secretName, SecretString: cluster.rolloutsToken }));
    secrets.destroy();
    const reg = await call({ method: 'PUT', path: `/v1/clusters/${CLUSTER}`, body: JSON.stringify({ endpoint: { server: cluster.server, insecureSkipTlsVerify: true, tokenSecretArn: secret.ARN } }) });
    assert.equal(reg.status, 201, reg.text);
    const doc = {
      apiVersion: 'rollouts.kruise.io/v1beta1', kind: 'Rollout', metadata: { name: 'web' },
      spec: { workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, strategy: { canary: { steps: [{ replicas: 1, pause: {} }, { replicas: '100%' }] } } },
    };
    const put = await call({ method: 'PUT', path: `/v1/rollouts/${CLUSTER}/${namespace}/web`, body: JSON.stringify(doc) });
    assert.equal(put.status, 201, put.text);

    await fns.deliverUntil(async () => (await state()).stableRevision !== null, 'the Deployment to be adopted');
    assert.equal((await state()).phase, 'Healthy');
    const deployment = await cluster.admin.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: 'web', namespace });
    assert.equal(deployment.spec?.paused, true, 'held by the reconcile bundle, with the token from the secret');
    assert.match(fns.reconcile.output(), /REPORT RequestId/, 'it ran in the Lambda runtime');
  });

  test('a template change is started by the sweep bundle\'s tick, paused for approval, approved through the API, and Completed', async () => {
    await cluster.admin.makeApiClient(AppsV1Api).patchNamespacedDeployment(
      { name: 'web', namespace, body: { spec: { template: { spec: { containers: [{ name: 'app', image: 'registry.invalid/web:v2' }] } } } } },
      strategicMerge,
    );
    const swept = await fns.tick() as { resync: number; enqueued: number };
    assert.ok(swept.resync >= 1 && swept.enqueued >= 1, JSON.stringify(swept));
    await fns.deliverUntil(async () => (await state()).release !== null, 'the release to start from the tick');

    await fns.deliverUntil(async () => (await state()).release?.stepState === 'StepPaused', 'step 1 to wait for approval');
    const approve = await call({ method: 'POST', path: `/v1/rollouts/${CLUSTER}/${namespace}/web/approve`, body: JSON.stringify({ commandId: 'deployed-approve-1' }) });
    assert.equal(approve.status, 202, approve.text);
    await fns.deliverUntil(async () => (await state()).phase === 'Completed', 'the release to complete');

    const history = await store.listHistory(key);
    assert.ok(history.some((h) => h.type === 'Release Completed'), history.map((h) => h.type).join(', '));
    const pods = (await cluster.admin.makeApiClient(CoreV1Api).listNamespacedPod({ namespace, labelSelector: 'app=web' })).items.filter((p) => !p.metadata?.deletionTimestamp);
    assert.deepEqual(pods.map((p) => `${p.spec?.containers[0]?.image} ${isPodReady(p)}`), Array(4).fill('registry.invalid/web:v2 true'));
  });

  test('the reconcile bundle started the watch-proxy on demand, whose notices came straight to the work queue, with no replay of what existed', async () => {
    const lease = await new DynamoWatcherLease({ client: dynamo.client, tableName: dynamo.tableName }).read();
    assert.ok(lease.generation >= 1, JSON.stringify(lease));
    const notices = fns.work.deliveries.flatMap((d) => d.event.Records)
      .map((r) => JSON.parse(r.body) as { reason?: string; causes?: string[] })
      .filter((b) => b.reason === 'watch');
    assert.ok(notices.length > 0, 'notices from the watch-proxy reached the work queue');
    assert.deepEqual(fns.trigger.deliveries.flatMap((d) => d.event.Records).filter((r) => (JSON.parse(r.body) as { reason?: string }).reason === 'watch'), [], 'none through the trigger queue');
    const reasons = notices.flatMap((n) => n.causes ?? []);
    assert.ok(reasons.some((r) => /MODIFIED$/.test(r)), reasons.join(', '));
    assert.ok(!reasons.includes('Deployment web ADDED'), `no replay of the Deployment that existed before the watcher: ${reasons.join(', ')}`);
  });
});
