// The API verbs of `rollouts` against the real API core (in memory): what they send, print and
// return, including every error path a user meets.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { initialState } from '../../../shared/rollout/state.ts';
import { awaitingApproval, release } from '../api/apiFixtures.ts';
import { LOCAL_KEY, ROLLOUT_YAML, harness } from './cliHarness.ts';
import { MemoryCluster } from '../../support/fakes/memoryCluster.ts';

describe('rollouts apply', () => {
  test('creates, then reports unchanged and configured like kubectl', async () => {
    const h = harness();
    assert.deepEqual(await h.cli('apply', '-f', 'rollout.yaml'), { code: 0, out: 'rollout/web created\n', err: '' });
    assert.deepEqual(await h.cli('apply', '-f', 'rollout.yaml'), { code: 0, out: 'rollout/web unchanged\n', err: '' });
    h.files['rollout.yaml'] = ROLLOUT_YAML.replace('replicas: 1\n', 'replicas: 2\n');
    assert.deepEqual(await h.cli('apply', '-f', 'rollout.yaml'), { code: 0, out: 'rollout/web configured\n', err: '' });
    assert.deepEqual(h.requests, ['PUT /v1/rollouts/local/default/web', 'PUT /v1/rollouts/local/default/web', 'PUT /v1/rollouts/local/default/web']);
  });

  test('prints each invalid field as "<field>: <reason>" and exits 1', async () => {
    const h = harness();
    h.files['rollout.yaml'] = ROLLOUT_YAML.replace('kind: Deployment', 'kind: Job');
    const r = await h.cli('apply', '-f', 'rollout.yaml');
    assert.equal(r.code, 1);
    assert.equal(r.out, '');
    assert.match(r.err, /^spec\.workloadRef\.kind: .+\n$/);
  });

  test('puts a document without metadata.namespace in -n, and sends the cluster from --cluster', async () => {
    const h = harness();
    const r = await h.cli('apply', '-f', 'rollout.yaml', '-n', 'shop', '--cluster', 'kind-dev');
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(h.requests, ['PUT /v1/rollouts/kind-dev/shop/web']);
  });
});

describe('rollouts release and the command verbs', () => {
  test('release sends the images and the start time, recorded as the caller', async () => {
    const h = harness();
    await h.seed({ ...initialState(), phase: 'Healthy', message: 'stable', stableRevision: 'rev-a' });
    const r = await h.cli('release', 'web', '--image', 'app=nginx:1.28', '--image', 'side=envoy:1', '--at', '2030-01-02T09:00:00Z');
    assert.deepEqual(r, { code: 0, out: 'rollout/web: release requested (app=nginx:1.28, side=envoy:1), starting at 2030-01-02T09:00:00Z\n', err: '' });
    const { state } = (await h.api.store.load(LOCAL_KEY)).state;
    assert.deepEqual(state.commands.map((c) => ({ ...c, id: '-' })), [
      { type: 'release', change: { type: 'images', images: { app: 'nginx:1.28', side: 'envoy:1' } }, startAt: '2030-01-02T09:00:00.000Z', id: '-', at: h.api.clock.now().toISOString(), by: 'me' },
    ]);
    assert.deepEqual(h.api.queue.keys().at(-1), 'local/default/web');
  });

  test('approve of a release waiting for approval is recorded; a repeated --command-id changes nothing', async () => {
    const h = harness();
    await h.seed(awaitingApproval({ stableRevision: 'rev-a' }));
    assert.deepEqual(await h.cli('approve', 'web', '--command-id', 'ci-42'), { code: 0, out: 'rollout/web approved: the release moves on to the next step\n', err: '' });
    assert.deepEqual(await h.cli('approve', 'web', '--command-id', 'ci-42'), { code: 0, out: 'rollout/web: approve ci-42 was already recorded; nothing changed\n', err: '' });
  });

  test('approve while the rollout is paused says that nothing moves until resume', async () => {
    const h = harness();
    await h.seed(awaitingApproval({ stableRevision: 'rev-a', userPaused: true }));
    assert.deepEqual(await h.cli('approve', 'web'), { code: 0, out: 'rollout/web approved, but it is paused: nothing moves until `rollouts resume web`\n', err: '' });
  });

  test('a command the rollout cannot take now is one line on stderr and exit code 1', async () => {
    const h = harness();
    await h.seed({ ...initialState(), phase: 'Healthy', message: 'stable', stableRevision: 'rev-a' });
    assert.deepEqual(await h.cli('approve', 'web'), { code: 1, out: '', err: 'error: approve local/default/web: no release is waiting for approval\n' });
  });

  test('undo sends the revision; a revision that is not a number >= 1 is a usage error (2)', async () => {
    const h = harness();
    await h.seed({ ...initialState(), phase: 'Completed', message: 'done', stableRevision: 'rev-b', lastRelease: release({ id: 'r1' }) });
    assert.equal((await h.cli('undo', 'web', '--to-revision', '1')).out,
      'rollout/web: undo to revision 1 (this API cannot read the cluster: the reconciler resolves it and says how it moves in the history)\nrollout/web: undo requested\n');
    assert.deepEqual((await h.api.store.load(LOCAL_KEY)).state.state.commands.map((c) => c.type === 'undo' && c.toRevision), [1]);
    assert.deepEqual(h.requests.slice(-2), ['POST /v1/rollouts/local/default/web/undo', 'POST /v1/rollouts/local/default/web/undo'], 'a dry run first, then the undo');
    const bad = await h.cli('undo', 'web', '--to-revision', '0');
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--to-revision <n>' argument '0' is invalid/);
  });
});

describe('errors every verb shares', () => {
  test('an unknown rollout is a one-line 404 message and exit code 1', async () => {
    const h = harness();
    assert.deepEqual(await h.cli('get', 'nope'), { code: 1, out: '', err: 'error: rollout local/default/nope not found\n' });
  });

  test('without local mode or an endpoint, says how to start local mode', async () => {
    const h = harness();
    h.files = {};
    const r = await h.cli('get', 'web');
    assert.equal(r.code, 1);
    assert.match(r.err, /^error: no rollouts API to talk to: start local mode with `npm start` .*ROLLOUTS_ENDPOINT\n$/);
  });

  test('an unreachable API is one line naming the endpoint, exit code 1', async () => {
    const h = harness();
    h.unreachable = true;
    assert.deepEqual(await h.cli('status', 'web'), {
      code: 1, out: '', err: 'error: cannot reach the rollouts API at http://127.0.0.1:4000: connection refused (is local mode still running? `npm start`)\n',
    });
  });

  test('a deployed endpoint needs a cluster name: usage error (2) without --cluster or ROLLOUTS_CLUSTER', async () => {
    const h = harness();
    const r = await h.cli('get', 'web', '--endpoint', 'https://abc123.lambda-url.eu-west-1.on.aws/');
    assert.deepEqual(r, { code: 2, out: '', err: 'error: a deployed API serves many clusters: give --cluster <name> or set ROLLOUTS_CLUSTER\n' });
  });

  test('bad flags and values are usage errors (2)', async () => {
    const h = harness();
    for (const argv of [['get', 'web', '--bogus'], ['release', 'web', '--image', 'nginx'], ['release', 'web'], ['status', 'web', '--timeout', 'soon'], ['get', 'web', '-o', 'yaml'], ['get', 'web', '--watch', '-o', 'json']]) {
      assert.equal((await h.cli(...argv)).code, 2, argv.join(' '));
    }
    assert.deepEqual(h.requests, []);
  });
});

describe('rollouts get, list, history (read verbs)', () => {
  test('get -o json is the stored rollout, its state and the workload (null without cluster access)', async () => {
    const h = harness();
    await h.seed(awaitingApproval());
    const r = await h.cli('get', 'web', '-o', 'json');
    assert.equal(r.code, 0, r.err);
    const body = JSON.parse(r.out) as Record<string, any>;
    assert.deepEqual(body.rollout, LOCAL_KEY);
    assert.equal(body.state.phase, 'Progressing');
    assert.equal(body.spec.steps.length, 2);
    assert.equal(body.workload, null);
  });

  test('get says why there is no revision tree when the API cannot read the cluster', async () => {
    const h = harness();
    await h.seed(awaitingApproval());
    const r = await h.cli('get', 'web');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^Status: +‖ Paused$/m);
    assert.match(r.out, /\(no revision tree: this API has no access to the clusters/);
  });

  test('list shows status and step per rollout; -o json the API response', async () => {
    const h = harness();
    await h.seed(awaitingApproval());
    assert.equal((await h.cli('list')).out, [
      'NAME  WORKLOAD        STATUS    STEP  MESSAGE',
      'web   Deployment/web  ‖ Paused  1/2   step 1/3: awaiting approval',
      '',
    ].join('\n'));
    assert.deepEqual(h.requests, ['GET /v1/rollouts?cluster=local&namespace=default']);
    const json = JSON.parse((await h.cli('list', '-A', '-o', 'json')).out) as { rollouts: unknown[] };
    assert.equal(json.rollouts.length, 1);
  });

  test('history says so when there is none yet', async () => {
    const h = harness();
    await h.seed(awaitingApproval());
    assert.deepEqual(await h.cli('history', 'web'), { code: 0, out: 'no history yet for rollout/web\n', err: '' });
  });
});

describe('rollouts delete', () => {
  const deployment = {
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: {
      name: 'web', namespace: 'default',
      annotations: {
        'rollouts.kruise.io/original-min-ready-seconds': '__k8s_default__', 'rollouts.kruise.io/original-progress-deadline-seconds': '600',
        'rollouts.kruise.io/original-max-unavailable': '25%', 'rollouts.kruise.io/original-max-surge': '1',
      },
    },
    spec: { replicas: 3, minReadySeconds: 2147483646, progressDeadlineSeconds: 2147483647, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } } },
  };

  test('records the delete and prints what the hand-back restores, read from the live workload', async () => {
    const cluster = new MemoryCluster();
    cluster.put(deployment);
    const h = harness({ clusters: { client: async () => cluster } });
    await h.seed(awaitingApproval());
    const r = await h.cli('delete', 'web');
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, [
      'rollout/web deleting: handing the workload back to its native controller',
      'will restore on Deployment default/web:',
      '  spec.minReadySeconds: 0 (unset, the Kubernetes default)',
      '  spec.progressDeadlineSeconds: 600',
      '  spec.strategy.rollingUpdate.maxSurge: 1',
      '  spec.strategy.rollingUpdate.maxUnavailable: 25%',
      '  spec.paused: false (the Deployment controller rolls it from now on)',
      '',
    ].join('\n'));
    assert.deepEqual(h.requests, ['DELETE /v1/rollouts/local/default/web']);
    assert.deepEqual((await h.api.store.load(LOCAL_KEY)).state.state.commands.map((c) => c.type), ['delete']);
  });

  test('--wait returns once the rollout is gone (the reconcile removed it), saying it restored', async () => {
    const h = harness();
    await h.seed(awaitingApproval());
    let polls = 0;
    h.onSleep = async () => {
      polls += 1;
      if (polls === 2) await h.api.store.deleteRollout(LOCAL_KEY);
    };
    const r = await h.cli('delete', 'web', '--wait');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /rollout\/web deleted; restored the workload as it was before the rollout took it over/);
    assert.deepEqual(h.requests.slice(0, 2), ['DELETE /v1/rollouts/local/default/web', 'GET /v1/rollouts/local/default/web/status']);
  });

  test('--wait gives up after --timeout with exit code 1, and a missing rollout is a 404 error', async () => {
    const h = harness();
    await h.seed(awaitingApproval());
    const r = await h.cli('delete', 'web', '--wait', '--timeout', '3s');
    assert.equal(r.code, 1);
    assert.match(r.err, /was not gone after 3s/);
    const missing = await h.cli('delete', 'nope');
    assert.equal(missing.code, 1);
    assert.match(missing.err, /not found/);
  });
});

describe('rollouts clusters list', () => {
  test('shows each registered cluster with how it is reached, its labels and its time zone', async () => {
    const h = harness();
    await h.api.store.putCluster({ name: 'eu-1', endpoint: { server: 'https://eu-1.example:6443' }, labels: { ring: 'canary', env: 'prod' }, timeZone: 'Europe/Paris' });
    await h.api.store.putCluster({ name: 'us-1', eks: { clusterName: 'us-eks', region: 'us-east-1' } });
    const r = await h.cli('clusters', 'list');
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, [
      'NAME  REACHED BY                 LABELS                TIME ZONE',
      'eu-1  https://eu-1.example:6443  env=prod,ring=canary  Europe/Paris',
      'us-1  eks us-eks (us-east-1)     -                     UTC (default)',
      '',
    ].join('\n'));
    assert.deepEqual(h.requests, ['GET /v1/clusters']);
  });

  test('-o json prints the registrations, and an empty list says so', async () => {
    const h = harness();
    assert.deepEqual(await h.cli('clusters', 'list'), { code: 0, out: 'no clusters registered\n', err: '' });
    await h.api.store.putCluster({ name: 'eu-1', endpoint: { server: 'https://k' }, labels: { ring: 'canary' } });
    const r = await h.cli('clusters', 'list', '-o', 'json');
    assert.deepEqual(JSON.parse(r.out), { clusters: [{ name: 'eu-1', endpoint: { server: 'https://k' }, labels: { ring: 'canary' } }] });
  });
});
