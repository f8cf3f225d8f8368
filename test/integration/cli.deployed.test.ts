// The `rollouts` executable against a deployed-style API: the production API handler behind a local
// Function URL that checks SigV4 as IAM auth does, over dynalite. The CLI finds it through
// ROLLOUTS_ENDPOINT / ROLLOUTS_CLUSTER and signs with the credentials of the standard AWS chain
// (here the environment variables), exactly as against a real stack.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createApiHandler } from '../../functions/api/createHandler.ts';
import { DynamoStateStore } from '../../shared/adapters/dynamodb/stateStore.ts';
import { Meter } from '../../shared/meter.ts';
import { startFunctionUrl, type Caller, type FunctionUrlServer } from '../support/aws/functionUrl.ts';
import { signedFetch } from '../support/aws/sigv4.ts';
import { startDynalite, type DynaliteHarness } from '../../bench/testbed/dynalite.ts';
import { LocalKeyedQueue } from '../../shared/adapters/local/keyedQueue.ts';
import { queueKeyString } from '../../shared/fleet/key.ts';
import { testObservability } from '../support/fakes/observability.ts';
import { runRollouts, type CliRun } from '../../bench/testbed/cliProcess.ts';

const REGION = 'eu-west-1';
const caller: Caller = { accessKeyId: 'AKIDCLITEST', secretAccessKey: 'cli-test-secret', userArn: 'arn:aws:iam::123456789012:user/ci-deployer' };

let dynamo: DynaliteHarness;
let url: FunctionUrlServer;
/** What the API queued, as local mode's queue hands it to its worker ("cluster/namespace/name", a fleet "F#name"). */
const queued: string[] = [];
const queue = new LocalKeyedQueue(async (key) => {
  queued.push(queueKeyString(key));
  return [];
});

function rollouts(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runRollouts(args, {
    // Only what this test sets: no profile, SSO or metadata lookups from the machine running it.
    PATH: process.env.PATH ?? '', HOME: '/nonexistent', ROLLOUTS_HOME: '/nonexistent/.rollouts', AWS_EC2_METADATA_DISABLED: 'true',
    ROLLOUTS_ENDPOINT: url.url, ROLLOUTS_CLUSTER: 'prod', AWS_REGION: REGION, AWS_ACCESS_KEY_ID: caller.accessKeyId, AWS_SECRET_ACCESS_KEY: caller.secretAccessKey,
    ...env,
  });
}

describe('rollouts against a deployed API (SigV4, Function URL)', () => {
  before(async () => {
    dynamo = await startDynalite();
    const meter = new Meter();
    const store = new DynamoStateStore({ client: dynamo.client, tableName: dynamo.tableName, meter });
    const api = { store, queue, clock: { now: () => new Date() }, supportedKinds: ['Deployment'] as const, maxBodyBytes: 256 * 1024, requireRegisteredCluster: true };
    url = await startFunctionUrl(createApiHandler({ api, meter }, testObservability()), { callers: [caller], region: REGION });
  });

  after(async () => {
    await url?.stop();
    await dynamo?.stop();
    await queue.stop();
  });

  test('an unregistered cluster is refused naming the field; once registered, apply and release go through signed', async () => {
    const refused = await rollouts(['apply', '-f', 'examples/rollout.yaml']);
    assert.deepEqual(refused, { code: 1, out: '', err: 'cluster: cluster "prod" is not registered (PUT /v1/clusters/prod first)\n' });

    const registered = await signedFetch(url.url, { method: 'PUT', path: '/v1/clusters/prod', body: JSON.stringify({ eks: { clusterName: 'prod', region: REGION } }), credentials: caller, region: REGION });
    assert.equal(registered.status, 201);

    assert.deepEqual(await rollouts(['apply', '-f', 'examples/rollout.yaml']), { code: 0, out: 'rollout/web created\n', err: '' });
    const released = await rollouts(['release', 'web', '--image', 'app=nginx:1.28']);
    assert.equal(released.code, 0, released.err);
    await queue.idle();
    assert.deepEqual(queued.at(-1), 'prod/default/web');

    const got = await rollouts(['get', 'web', '-o', 'json']);
    assert.equal(got.code, 0, got.err);
    const body = JSON.parse(got.out) as { state: { commands: { type: string; by: string }[] }; workload: unknown };
    assert.deepEqual(body.state.commands.map((c) => [c.type, c.by]), [['release', caller.userArn]], 'recorded as the IAM caller');
    assert.equal(body.workload, null, 'the deployed API has no cluster access: no tree');
  });

  test('the text view says why there is no revision tree', async () => {
    const r = await rollouts(['get', 'web']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^\(no revision tree: this API has no access to the clusters/m);
  });

  test('wrong credentials: the 403 from IAM auth is one line, exit code 1', async () => {
    const r = await rollouts(['list'], { AWS_SECRET_ACCESS_KEY: 'not-the-secret' });
    assert.equal(r.code, 1);
    assert.equal(r.err, 'error: 403 from AWS: The request signature we calculated does not match the signature you provided. (check the AWS credentials, the region, and lambda:InvokeFunctionUrl on this function)\n');
  });

  test('no region to sign for: a one-line error', async () => {
    const r = await rollouts(['list'], { AWS_REGION: '' });
    assert.equal(r.code, 1);
    assert.match(r.err, /^error: cannot tell the AWS region of http:\/\/127\.0\.0\.1:\d+: set AWS_REGION\n$/);
  });
});
