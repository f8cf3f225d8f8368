// Two clusters in two accounts. Two real control planes, alpha and beta, each with its token in a
// Secrets Manager secret of its own account (111111111111, 222222222222; the stack's functions run
// in 000000000000), registered through the deployed API with the role in that account
// (testDeployment.ts). At the same time, and independently:
//  - the deployed functions (the synthesized stack's bundles under the Lambda runtime, as in
//    deployed.bundles.test.ts) release a Deployment in each cluster, reaching each through
//    sts:AssumeRole on LocalStack with the registration's role ARN, then reading that cluster's
//    token in that account;
//  - local mode (`rollouts serve`, its kubeconfig the least-privilege user of alpha) releases
//    another Deployment in alpha.
// Then a FleetRollout over both (alpha labelled ring=canary, beta ring=main) releases wave "canary" in
// alpha, waits for `fleet approve`, and only then releases wave "main" in beta: the fleet pass, the
// permits and the members' releases all through the deployed API, queues and reconciles.
// Then each cluster's credentials are shown to be good for that cluster only: each apiserver answers
// 401 to the other's token, the deployed functions pointed at beta with alpha's token see that
// 401 (the rollout Degraded, the Deployment untouched), and beta's secret read with alpha's role, or
// with the functions' own identity, is refused by Secrets Manager.
//
// What the emulator enforces (README "Deploying to AWS", "What the LocalStack tests prove"):
// localstack-core evaluates no IAM policy at all (ENFORCE_IAM is a LocalStack Pro feature) and
// AssumeRole hands out credentials for any role ARN, trust policy or not. What it does enforce, and
// this test relies on, is the account boundary of a secret under the default key: credentials of
// another account (LocalStack derives the account from the access key id; AssumeRole's session
// keys carry the role's account) get InvalidRequestException, as AWS answers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CreateRoleCommand, IAMClient, PutRolePolicyCommand } from '@aws-sdk/client-iam';
import { CreateSecretCommand, GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { AppsV1Api, CoreV1Api, KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { DynamoStateStore } from '../../shared/adapters/dynamodb/stateStore.ts';
import { ENV } from '../../shared/app/config.ts';
import type { RolloutKey } from '../../shared/rollout/types.ts';
import type { CloudAssembly } from '../support/aws/cloudAssembly.ts';
import { startDeployedFunctions, type DeployedFunctions } from '../support/aws/deployedFunctions.ts';
import { startAwsEmulator, type AwsEmulator } from '../support/aws/emulator.ts';
import type { Caller } from '../support/aws/functionUrl.ts';
import { startLocalStack, type LocalStack } from '../support/aws/localstack.ts';
import { signedFetch } from '../support/aws/sigv4.ts';
import { TEST_ACCOUNT, TEST_REGION } from '../support/aws/testAccount.ts';
import { ALPHA, BETA, testDeployment, type AccountCluster } from '../support/aws/testDeployment.ts';
import { startDynalite, type DynaliteHarness } from '../../bench/testbed/dynalite.ts';
import { apiStatusOf, isPodReady, startTestCluster, type TestCluster } from '../../bench/testbed/kube.ts';
import { ServeProcess, cleanEnv, ourProcesses, rolloutsAt } from '../../bench/testbed/localModeProcess.ts';
import { waitFor } from '../../bench/testbed/wait.ts';

const caller: Caller = { accessKeyId: 'AKIDTWOCLUSTERS', secretAccessKey: 'two-clusters-secret', userArn: `arn:aws:iam::${TEST_ACCOUNT}:user/platform-team` };
const strategicMerge = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
/** A timed pause between the batches: the deployed wake-up is a delayed message on the trigger queue. */
const STEPS = [{ replicas: 1, pause: { duration: 1 } }, { replicas: '100%' }];
const home = mkdtempSync(path.join(tmpdir(), 'rollouts-two-clusters-'));
const localEnv = (kubeconfig: string) => cleanEnv({ KUBECONFIG: kubeconfig });

let localstack: LocalStack;
let aws: AwsEmulator;
let dynamo: DynaliteHarness;
let planes: Record<'alpha' | 'beta', TestCluster>;
let fns: DeployedFunctions;
let local: ServeProcess;
let store: DynamoStateStore;
/** The token secret of each cluster, in its account. */
const secretArn: Record<string, string> = {};

/** Credentials LocalStack places in `account`: a 12-digit access key id is that account. */
function inAccount(account: string) {
  return { endpoint: localstack.endpoint, region: TEST_REGION, credentials: { accessKeyId: account, secretAccessKey: 'test' } };
}

function api(method: string, pathname: string, body?: unknown) {
  return signedFetch(fns.url.url, { method, path: pathname, ...(body !== undefined ? { body: JSON.stringify(body) } : {}), credentials: caller, region: TEST_REGION });
}

/** The cluster's token secret and the role the functions assume to read it, both in its account. */
async function provisionAccount(c: AccountCluster, plane: TestCluster): Promise<void> {
  const secrets = new SecretsManagerClient(inAccount(c.account));
  const iam = new IAMClient(inAccount(c.account));
  try {
    secretArn[c.name] = (await secrets.send(new CreateSecretCommand({ Name: c.secretName, SecretString: plane.rolloutsToken }))).ARN as string;
    const RoleName = c.roleArn.split('/').pop();
    // What the cluster's account grants the stack (not evaluated by LocalStack: see the header).
    await iam.send(new CreateRoleCommand({
      RoleName,
      AssumeRolePolicyDocument: JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: { AWS: `arn:aws:iam::${TEST_ACCOUNT}:root` }, Action: 'sts:AssumeRole' }] }),
    }));
    await iam.send(new PutRolePolicyCommand({
      RoleName, PolicyName: 'read-token',
      PolicyDocument: JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: secretArn[c.name] }] }),
    }));
  } finally {
    secrets.destroy();
    iam.destroy();
  }
}

async function register(name: string, server: TestCluster, token: AccountCluster, roleArn?: string, labels?: Record<string, string>): Promise<void> {
  const res = await api('PUT', `/v1/clusters/${name}`, { endpoint: { server: server.server, insecureSkipTlsVerify: true, tokenSecretArn: secretArn[token.name], ...(roleArn ? { roleArn } : {}) }, ...(labels ? { labels } : {}) });
  assert.equal(res.status, 201, res.text);
}

async function putRollout(key: RolloutKey): Promise<void> {
  const res = await api('PUT', `/v1/rollouts/${key.cluster}/${key.namespace}/${key.name}`, {
    apiVersion: 'rollouts.kruise.io/v1beta1', kind: 'Rollout', metadata: { name: key.name },
    spec: { workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: key.name }, strategy: { canary: { steps: STEPS } } },
  });
  assert.equal(res.status, 201, res.text);
}

async function deployedState(key: RolloutKey) {
  return (await store.load(key)).state.state;
}

async function localState(namespace: string, name: string): Promise<Record<string, any>> {
  const r = await rolloutsAt(home, localEnv(planes.alpha.kubeconfigPath('rollouts')), 'get', name, '-n', namespace, '-o', 'json');
  assert.equal(r.code, 0, r.err);
  return (JSON.parse(r.out) as { state: Record<string, any> }).state;
}

async function setImage(plane: TestCluster, namespace: string, image: string): Promise<void> {
  await plane.admin.makeApiClient(AppsV1Api).patchNamespacedDeployment({ name: 'web', namespace, body: { spec: { template: { spec: { containers: [{ name: 'app', image }] } } } } }, strategicMerge);
}

async function images(plane: TestCluster, namespace: string): Promise<string[]> {
  const pods = (await plane.admin.makeApiClient(CoreV1Api).listNamespacedPod({ namespace, labelSelector: 'app=web' })).items.filter((p) => !p.metadata?.deletionTimestamp);
  return pods.map((p) => `${p.spec?.containers[0]?.image} ${isPodReady(p) ? 'Ready' : 'not ready'}`).sort();
}

/** A Deployment as its owner left it: not held (paused), no annotation of ours. */
async function untouched(plane: TestCluster, namespace: string): Promise<void> {
  const d = await plane.admin.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: 'web', namespace });
  assert.ok(!d.spec?.paused, `${namespace}/web is not held`);
  assert.deepEqual(Object.keys(d.metadata?.annotations ?? {}).filter((k) => k.includes('rollouts')), [], `${namespace}/web carries none of our annotations`);
}

before(async () => {
  let assembly: CloudAssembly;
  let alpha: TestCluster;
  let beta: TestCluster;
  [assembly, localstack, dynamo, alpha, beta] = await Promise.all([
    testDeployment(), startLocalStack(), startDynalite(), startTestCluster({ podReadyDelayMs: 300 }), startTestCluster({ podReadyDelayMs: 300 }),
  ]);
  planes = { alpha, beta };
  aws = await startAwsEmulator({ localstack });
  store = new DynamoStateStore({ client: dynamo.client, tableName: dynamo.tableName });
  [fns, local] = await Promise.all([
    startDeployedFunctions({ assembly, aws, dynamo, callers: [caller], env: { [ENV.resyncPeriodSeconds]: '60', [ENV.sweepIntervalSeconds]: '60' } }),
    // Local mode drives alpha as the documented least-privilege user; its rollouts stay in its data directory.
    ServeProcess.start(home, ['--resync-seconds', '5'], localEnv(alpha.kubeconfigPath('rollouts'))),
  ]);
  await Promise.all([provisionAccount(ALPHA, alpha), provisionAccount(BETA, beta)]);
  // Labels for the fleet release: alpha is the canary ring, beta the rest.
  await register(ALPHA.name, alpha, ALPHA, ALPHA.roleArn, { fleet: 'two-accounts', ring: 'canary' });
  await register(BETA.name, beta, BETA, BETA.roleArn, { fleet: 'two-accounts', ring: 'main' });
});

after(async () => {
  await local?.interrupt();
  await fns?.stop();
  await Promise.allSettled([aws?.stop(), dynamo?.stop(), planes?.alpha.stop(), planes?.beta.stop()]);
  await localstack?.stop();
  assert.deepEqual(ourProcesses(home), []);
  rmSync(home, { recursive: true, force: true });
});

describe('two clusters in two accounts, released at once by local mode and by the deployed functions', () => {
  test('each apiserver answers 401 to the other cluster\'s token, and serves its own', async () => {
    const as = (plane: TestCluster, token: string) => {
      const kc = new KubeConfig();
      kc.loadFromOptions({
        clusters: [{ name: 'c', server: plane.server, skipTLSVerify: true }], users: [{ name: 'u', token }],
        contexts: [{ name: 'x', cluster: 'c', user: 'u' }], currentContext: 'x',
      });
      return kc.makeApiClient(AppsV1Api);
    };
    const status = async (p: Promise<unknown>) => p.then(() => 200, (err: unknown) => apiStatusOf(err));
    const { alpha, beta } = planes;
    assert.equal(await status(as(alpha, alpha.rolloutsToken).listDeploymentForAllNamespaces()), 200);
    assert.equal(await status(as(beta, beta.rolloutsToken).listDeploymentForAllNamespaces()), 200);
    // alpha's token is also local mode's (its kubeconfig is alpha's least-privilege user).
    assert.equal(await status(as(beta, alpha.rolloutsToken).listDeploymentForAllNamespaces()), 401);
    assert.equal(await status(as(alpha, beta.rolloutsToken).listDeploymentForAllNamespaces()), 401);
  });

  test('the deployed functions release a Deployment in alpha and one in beta, each through its account\'s role, while local mode releases another in alpha: all three Completed', async () => {
    const { alpha, beta } = planes;
    const [nsAlpha, nsBeta, nsLocal] = await Promise.all([alpha.createNamespace('deployed'), beta.createNamespace('deployed'), alpha.createNamespace('local')]);
    await Promise.all([
      alpha.createDeployment(nsAlpha, 'web', { replicas: 3, image: 'registry.invalid/web:v1' }),
      beta.createDeployment(nsBeta, 'web', { replicas: 3, image: 'registry.invalid/web:v1' }),
      alpha.createDeployment(nsLocal, 'web', { replicas: 3, image: 'registry.invalid/web:v1' }),
    ]);
    const keys: RolloutKey[] = [{ cluster: ALPHA.name, namespace: nsAlpha, name: 'web' }, { cluster: BETA.name, namespace: nsBeta, name: 'web' }];
    for (const key of keys) await putRollout(key);
    const file = path.join(home, 'web.yaml');
    writeFileSync(file, JSON.stringify({
      apiVersion: 'rollouts.serverless-rollouts.io/v1alpha1', kind: 'Rollout', metadata: { name: 'web', namespace: nsLocal },
      spec: { workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, strategy: { canary: { steps: STEPS } } },
    }));
    const applied = await rolloutsAt(home, localEnv(alpha.kubeconfigPath('rollouts')), 'apply', '-f', file);
    assert.equal(applied.code, 0, applied.err);

    const everyDeployed = (check: (s: Awaited<ReturnType<typeof deployedState>>) => boolean) => async () => (await Promise.all(keys.map(deployedState))).every(check);
    await Promise.all([
      fns.deliverUntil(everyDeployed((s) => s.stableRevision !== null), 'both deployed rollouts to be adopted'),
      waitFor(async () => (await localState(nsLocal, 'web')).stableRevision, { message: 'local mode to adopt its Deployment', timeoutMs: 60_000, intervalMs: 250 }),
    ]);

    // The new image everywhere at once; the sweep's tick starts the deployed releases (resync),
    // local mode's watch (or its resync) its own.
    await Promise.all([setImage(alpha, nsAlpha, 'registry.invalid/web:v2'), setImage(beta, nsBeta, 'registry.invalid/web:v2'), setImage(alpha, nsLocal, 'registry.invalid/web:v2')]);
    const swept = await fns.tick() as { enqueued: number };
    assert.ok(swept.enqueued >= 2, JSON.stringify(swept));
    await Promise.all([
      fns.deliverUntil(everyDeployed((s) => s.phase === 'Completed'), 'both deployed releases to complete'),
      waitFor(async () => (await localState(nsLocal, 'web')).phase === 'Completed', { message: 'local mode\'s release to complete', timeoutMs: 120_000, intervalMs: 250 }),
    ]);

    const v2 = Array(3).fill('registry.invalid/web:v2 Ready');
    assert.deepEqual(await images(alpha, nsAlpha), v2);
    assert.deepEqual(await images(beta, nsBeta), v2);
    assert.deepEqual(await images(alpha, nsLocal), v2);
    for (const key of keys) {
      const history = await store.listHistory(key);
      assert.ok(history.some((h) => h.type === 'Release Completed'), `${key.cluster}: ${history.map((h) => h.type).join(', ')}`);
    }
  });

  test('a fleet release across both accounts: wave "canary" completes in alpha, and only after its approval does wave "main" release beta, all through the deployed API, queues and reconciles', async () => {
    const { alpha, beta } = planes;
    // The same namespace and Deployment in both clusters: the fleet's workload.
    const namespace = 'fleet';
    for (const plane of [alpha, beta]) {
      await plane.admin.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
      await plane.createDeployment(namespace, 'web', { replicas: 3, image: 'registry.invalid/web:v1' });
    }
    const applied = await api('PUT', '/v1/fleets/web', {
      apiVersion: 'rollouts.serverless-rollouts.io/v1alpha1', kind: 'FleetRollout', metadata: { name: 'web' },
      spec: {
        workload: { namespace, kind: 'Deployment', name: 'web' },
        clusterSelector: { matchLabels: { fleet: 'two-accounts' } },
        template: { spec: { strategy: { canary: { steps: STEPS } } } },
        waves: [{ name: 'canary', selector: { matchLabels: { ring: 'canary' } }, after: { approval: true } }, { name: 'main' }],
      },
    });
    assert.equal(applied.status, 201, applied.text);
    assert.deepEqual((JSON.parse(applied.text) as { clusters: string[] }).clusters.sort(), [ALPHA.name, BETA.name]);
    const members: RolloutKey[] = [ALPHA.name, BETA.name].map((cluster) => ({ cluster, namespace, name: 'web' }));
    const [alphaMember, betaMember] = members as [RolloutKey, RolloutKey];
    const fleet = async () => (await store.loadFleet('web')).state.state;
    await fns.deliverUntil(async () => (await Promise.all(members.map(deployedState))).every((s) => s.stableRevision !== null), 'the fleet\'s member Rollouts to adopt the Deployment in alpha and in beta');

    const released = await api('POST', '/v1/fleets/web/release', { images: { app: 'registry.invalid/web:v2' } });
    assert.equal(released.status, 202, released.text);
    await fns.deliverUntil(async () => (await fleet()).release?.waves[0]?.state === 'AfterWave', 'wave "canary" to complete in alpha and wait for approval');
    const waiting = await fleet();
    assert.equal(waiting.phase, 'Progressing', waiting.message);
    assert.equal(waiting.cause?.kind, 'Approval', waiting.message);
    assert.equal(waiting.cause?.wave, 'canary', waiting.message);
    assert.deepEqual(waiting.release?.waves.map((w) => w.members.map((m) => `${m.cluster} ${m.status}`)), [[`${ALPHA.name} Completed`], [`${BETA.name} Waiting`]]);
    assert.equal((await deployedState(alphaMember)).phase, 'Completed');
    const v1 = Array(3).fill('registry.invalid/web:v1 Ready');
    const v2 = Array(3).fill('registry.invalid/web:v2 Ready');
    assert.deepEqual(await images(alpha, namespace), v2, 'alpha released');
    assert.deepEqual(await images(beta, namespace), v1, 'beta not released before the approval');
    const betaTemplate = (await beta.admin.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: 'web', namespace })).spec?.template.spec?.containers[0]?.image;
    assert.equal(betaTemplate, 'registry.invalid/web:v1', 'beta\'s template is changed only when its wave opens');

    const approved = await api('POST', '/v1/fleets/web/approve', {});
    assert.equal(approved.status, 202, approved.text);
    await fns.deliverUntil(async () => (await fleet()).phase === 'Completed', 'wave "main" to release beta and the fleet release to complete');
    assert.deepEqual(await images(beta, namespace), v2, 'beta released');
    assert.deepEqual(await images(alpha, namespace), v2, 'alpha still on v2');
    assert.equal((await deployedState(betaMember)).phase, 'Completed');
    // Wave "main" started once wave "canary" had completed, and beta's release once alpha's had.
    const history = await store.listFleetHistory('web');
    const at = (type: string, wave: string) => history.find((h) => h.type === type && h.wave === wave)?.at ?? '';
    const canaryDone = at('Fleet Wave Completed', 'canary');
    assert.ok(canaryDone !== '' && canaryDone <= at('Fleet Wave Started', 'main'), history.map((h) => `${h.at} ${h.type} ${h.wave ?? ''}`).join('\n'));
    const first = async (key: RolloutKey, type: string) => (await store.listHistory(key)).find((h) => h.type === type)?.at ?? '';
    const alphaDone = await first(alphaMember, 'Release Completed');
    assert.ok(alphaDone !== '' && alphaDone <= await first(betaMember, 'Release Started'), 'beta started after alpha completed');
  });

  test('beta registered with alpha\'s token (alpha\'s secret, through alpha\'s role): beta\'s apiserver answers 401, the rollout is Degraded saying so, the Deployment untouched', async () => {
    const ns = await planes.beta.createNamespace('wrong-token');
    await planes.beta.createDeployment(ns, 'web', { replicas: 2 });
    await register('beta-with-alpha-token', planes.beta, ALPHA, ALPHA.roleArn);
    const key = { cluster: 'beta-with-alpha-token', namespace: ns, name: 'web' };
    await putRollout(key);
    await fns.deliverUntil(async () => (await deployedState(key)).phase === 'Degraded', 'the rollout to be Degraded');
    assert.match((await deployedState(key)).message, /401|Unauthorized/i);
    await untouched(planes.beta, ns);
  });

  test('beta\'s token read through alpha\'s role, or with the functions\' own identity: Secrets Manager refuses (another account\'s secret under its default key), the reason says so, the Deployment untouched', async () => {
    const ns = await planes.beta.createNamespace('wrong-role');
    await planes.beta.createDeployment(ns, 'web', { replicas: 2 });
    await register('beta-via-alpha-role', planes.beta, BETA, ALPHA.roleArn);
    await register('beta-without-role', planes.beta, BETA);
    const keys = ['beta-via-alpha-role', 'beta-without-role'].map((cluster) => ({ cluster, namespace: ns, name: 'web' }));
    for (const key of keys) await putRollout(key);
    const refused = /different AWS account/;
    await fns.deliverUntil(async () => (await Promise.all(keys.map(deployedState))).every((s) => refused.test(s.message)), 'both rollouts to say their token secret was refused');
    // Today the refusal (InvalidRequestException) counts as an unreachable cluster, retried; mapped
    // to a terminal error it would make the rollout Degraded instead. Either way nothing is adopted.
    for (const key of keys) assert.equal((await deployedState(key)).stableRevision, null, `${key.cluster} never adopted the Deployment`);
    await untouched(planes.beta, ns);

    // The same boundary from the outside: beta's secret is readable in beta's account, or with the
    // session of beta's role, and with nothing else.
    const read = async (credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string }) => {
      const client = new SecretsManagerClient({ endpoint: localstack.endpoint, region: TEST_REGION, credentials });
      try {
        return (await client.send(new GetSecretValueCommand({ SecretId: secretArn[BETA.name] }))).SecretString === planes.beta.rolloutsToken ? 'read' : 'wrong value';
      } catch (err) {
        return (err as Error).name;
      } finally {
        client.destroy();
      }
    };
    const assume = async (roleArn: string) => {
      const sts = new STSClient(inAccount(TEST_ACCOUNT));
      try {
        const c = (await sts.send(new AssumeRoleCommand({ RoleArn: roleArn, RoleSessionName: 'two-clusters' }))).Credentials;
        return { accessKeyId: c?.AccessKeyId as string, secretAccessKey: c?.SecretAccessKey as string, sessionToken: c?.SessionToken as string };
      } finally {
        sts.destroy();
      }
    };
    assert.equal(await read(await assume(BETA.roleArn)), 'read');
    assert.equal(await read(await assume(ALPHA.roleArn)), 'InvalidRequestException');
    assert.equal(await read(inAccount(TEST_ACCOUNT).credentials), 'InvalidRequestException');
  });
});
