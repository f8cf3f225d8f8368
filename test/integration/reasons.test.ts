// "Why is it stuck?": each blocker caused for real on the real control plane (kwok pods, the real
// kube-scheduler, the Deployment controller), and the exact reason read back the way people read it:
// `rollouts get -o json` (the CLI as a child process, against the local API over the same store) and
// the dashboard's own API (its list and rollout routes). The engine runs the passes on its clock, so
// pause times, grace periods, deadlines and windows can be stepped over.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { KubeClusterClient } from '../../shared/adapters/kubernetes/clusterClient.ts';
import type { ApiDeps } from '../../shared/api/types.ts';
import { ApiClient } from '../../shared/client/client.ts';
import { buildDashboardAssets } from '../../shared/dashboard/assets.ts';
import { startDashboard, type Dashboard } from '../../shared/dashboard/server.ts';
import type { RolloutDetail } from '../../shared/dashboard/types.ts';
import { startLocalApiServer, type LocalApiServer } from '../../shared/local/httpServer.ts';
import { instant } from '../../shared/rollout/message.ts';
import type { ReleaseState } from '../../shared/rollout/types.ts';
import { SUPPORTED_KINDS } from '../../shared/workloads/registry.ts';
import { runRollouts } from '../../bench/testbed/cliProcess.ts';
import { CLUSTER, Engine, type Scenario } from '../../bench/testbed/engine.ts';
import { LocalKeyedQueue } from '../../shared/adapters/local/keyedQueue.ts';
import { NEVER_READY_LABEL, mergePatch } from '../../bench/testbed/kube.ts';

const strategicMerge = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
const home = mkdtempSync(path.join(tmpdir(), 'rollouts-reasons-'));

let engine: Engine;
let api: LocalApiServer;
let dashboard: Dashboard;
let queue: LocalKeyedQueue;

/** The reason as `rollouts get -o json` prints it, and as the dashboard's list and rollout routes answer it. */
async function seen(s: Scenario): Promise<{ cli: string; list: string; page: string; cause: ReleaseState['cause'] }> {
  const r = await runRollouts(['get', 'web', '-n', s.namespace, '--cluster', CLUSTER, '-o', 'json'], { ...process.env, ROLLOUTS_HOME: home, ROLLOUTS_ENDPOINT: '', NO_COLOR: '1' });
  assert.equal(r.code, 0, r.err);
  const cli = (JSON.parse(r.out) as { state: ReleaseState }).state;
  const list = (await (await fetch(`${dashboard.url}api/rollouts`)).json()) as { rollouts: { rollout: { namespace: string }; message: string }[] };
  const page = (await (await fetch(`${dashboard.url}api/rollouts/${CLUSTER}/${s.namespace}/web`)).json()) as RolloutDetail;
  return { cli: cli.message, list: list.rollouts.find((x) => x.rollout.namespace === s.namespace)?.message ?? '(not listed)', page: page.rollout.state.message, cause: cli.cause };
}

async function assertReason(s: Scenario, expected: string): Promise<ReleaseState['cause']> {
  const got = await seen(s);
  assert.deepEqual({ cli: got.cli, list: got.list, page: got.page }, { cli: expected, list: expected, page: expected });
  return got.cause;
}

async function adopted(s: Scenario): Promise<void> {
  await s.reconcileUntil((snap) => snap.state.stableRevision !== null && snap.state.phase === 'Healthy', 'the Deployment to be adopted');
}

async function podOf(s: Scenario, image: string) {
  const pods = (await s.core.listNamespacedPod({ namespace: s.namespace })).items.filter((p) => p.spec?.containers[0]?.image === image && !p.metadata?.deletionTimestamp);
  assert.equal(pods.length, 1, `one pod of ${image}`);
  return pods[0] as NonNullable<(typeof pods)[number]>;
}

describe('reasons that name the blocker, as `rollouts get -o json` and the dashboard show them', () => {
  before(async () => {
    engine = await Engine.start({ podReadyDelayMs: 200 });
    // Local mode's queue; the test runs the passes itself, so its worker runs none.
    queue = new LocalKeyedQueue(async () => []);
    const deps: ApiDeps = {
      store: engine.store, queue, clock: engine.clock, clusters: { client: async () => engine.client },
      supportedKinds: SUPPORTED_KINDS, maxBodyBytes: 256 * 1024, requireRegisteredCluster: false,
    };
    api = await startLocalApiServer({ deps, principal: 'tester' });
    writeFileSync(path.join(home, 'endpoint'), `${api.url}\n`);
    dashboard = await startDashboard({ client: new ApiClient({ mode: 'local', endpoint: api.url }), assets: await buildDashboardAssets(), port: 0, pollMs: 1000 });
  });

  after(async () => {
    await Promise.allSettled([dashboard?.stop(), api?.stop(), queue?.stop()]);
    await engine?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  test('an image that cannot be pulled: the pod and its ImagePullBackOff, with the kubelet message', async () => {
    const s = await engine.scenario('pull');
    await adopted(s);
    await s.setImage('registry.invalid/web:missing');
    await s.reconcileUntil((snap) => /ImagePullBackOff/.test(snap.state.message), 'the reason to name the pod');
    const pod = await podOf(s, 'registry.invalid/web:missing');
    const detail = 'ImagePullBackOff (Back-off pulling image "registry.invalid/web:missing": ErrImagePull: registry.invalid/web:missing: not found)';
    const cause = await assertReason(s, `step 1/3: ${pod.metadata?.name}: ${detail}`);
    assert.deepEqual({ ...cause, since: undefined }, { kind: 'PodNotReady', object: `pod/${pod.metadata?.name}`, field: null, detail, since: undefined, until: null });
  });

  test('a pod nothing can schedule: the scheduler\'s own message', async () => {
    const s = await engine.scenario('unschedulable');
    await adopted(s);
    const body = { spec: { template: { spec: { nodeSelector: { 'example.com/disk': 'nvme' } } } } };
    await s.apps.patchNamespacedDeployment({ name: 'web', namespace: s.namespace, body }, strategicMerge);
    await s.reconcileUntil((snap) => /Unschedulable/.test(snap.state.message), 'the reason to name the unschedulable pod');
    const pending = (await s.core.listNamespacedPod({ namespace: s.namespace })).items.filter((p) => p.spec?.nodeSelector);
    assert.equal(pending.length, 1, 'one pod of the new template');
    const pod = pending[0] as NonNullable<(typeof pending)[number]>;
    const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
    assert.match(String(scheduled?.message), /^0\/3 nodes are available: 3 node\(s\) didn't match Pod's node affinity\/selector/);
    const cause = await assertReason(s, `step 1/3: ${pod.metadata?.name}: Unschedulable (${scheduled?.message})`);
    assert.equal(cause?.kind, 'PodUnschedulable');
  });

  test('pods that never become Ready: first the budget holding the batch, then the pod once it has waited, then the missed deadline', async () => {
    const s = await engine.scenario('never-ready', {
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      steps: [{ replicas: 3 }, { replicas: '100%' }],
      spec: { progressDeadlineSeconds: 120 },
    });
    await adopted(s);
    await s.setTemplate('registry.invalid/web:v2', { [NEVER_READY_LABEL]: 'true' });
    await s.reconcileUntil((snap) => /budget/.test(snap.state.message), 'the budget reason');
    assert.equal((await assertReason(s, 'step 1/2: the rollout budget (maxSurge 1, maxUnavailable 0) holds the rest of the batch until new pods are available'))?.kind, 'Budget');

    engine.clock.advance(30); // past the grace for a pod that is Running but not Ready
    await s.reconcile();
    const pod = await podOf(s, 'registry.invalid/web:v2');
    const waiting = `${pod.metadata?.name}: ContainersNotReady (${NEVER_READY_LABEL}: readiness probe never succeeds)`;
    await assertReason(s, `step 1/2: ${waiting}`);

    engine.clock.advance(120); // past the batch's deadline
    await s.reconcile();
    const cause = await assertReason(s, `failed: step 1 did not become ready within 120s: ${waiting}`);
    assert.equal(cause?.kind, 'Failed');
    engine.clock.offsetMs = 0;
  });

  test('a pending approval, since when it was requested; then a tampered annotation names the annotation', async () => {
    const s = await engine.scenario('approval', { steps: [{ replicas: 1, pause: {} }, { replicas: '100%' }] });
    await adopted(s);
    await s.setImage('registry.invalid/web:v2');
    const snap = await s.reconcileUntil((x) => x.state.release?.stepState === 'StepPaused', 'the approval');
    const cause = await assertReason(s, `step 1/2: awaiting approval since ${instant(snap.state.release?.stepReadyAt ?? '')} (rollouts approve web)`);
    assert.deepEqual(cause, { kind: 'Approval', object: 'step/1', field: null, detail: 'rollouts approve web', since: snap.state.release?.stepReadyAt, until: null });

    const annotation = 'rollouts.kruise.io/original-max-surge';
    await s.apps.patchNamespacedDeployment({ name: 'web', namespace: s.namespace, body: { metadata: { annotations: { [annotation]: 'lots' } } } }, mergePatch);
    await s.reconcile();
    const degraded = await assertReason(s, `annotation ${annotation} is "lots", which is not a maxSurge (an integer or a percent) (nor __k8s_default__); put back the value it had`);
    assert.deepEqual([degraded?.kind, degraded?.object, degraded?.field], ['Contract', 'deployment/web', `metadata.annotations[${annotation}]`]);
  });

  test('a deleted workload', async () => {
    const s = await engine.scenario('deleted');
    await adopted(s);
    await s.apps.deleteNamespacedDeployment({ name: 'web', namespace: s.namespace });
    await s.reconcile();
    assert.equal((await assertReason(s, `Deployment ${s.namespace}/web not found`))?.kind, 'WorkloadMissing');
  });

  test('an unreachable cluster, with the error; the next pass that reaches it says so', async () => {
    const s = await engine.scenario('unreachable');
    await adopted(s);
    const port = await closedPort();
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'gone', server: `https://127.0.0.1:${port}`, skipTLSVerify: true }],
      users: [{ name: 'u', token: 'unused' }], contexts: [{ name: 'c', cluster: 'gone', user: 'u' }], currentContext: 'c',
    });
    const dead = new KubeClusterClient(kc);
    const failed = await s.reconcile({ clusters: { client: async () => dead } });
    assert.equal(failed.outcome, 'retry', 'the pass fails, and asks to run again');
    const message = (await s.state()).message;
    assert.match(message, new RegExp(`^cluster "${CLUSTER}" unreachable: get apps/v1/Deployment \\S+: .*connect ECONNREFUSED 127\\.0\\.0\\.1:\\d+$`));
    assert.ok(failed.error && message.includes(failed.error.replace(/\s+/g, ' ').slice(0, 60)), `the reason carries the error: ${failed.error}`);
    const cause = await assertReason(s, message);
    assert.deepEqual([cause?.kind, cause?.object], ['ClusterUnreachable', `cluster/${CLUSTER}`]);
    await s.reconcile();
    assert.match((await s.state()).message, /^stable at revision /);
    const history = await engine.store.listHistory(s.key);
    assert.deepEqual(history.filter((h) => h.type.startsWith('Cluster')).map((h) => h.type), ['Cluster Unreachable', 'Cluster Reachable']);
  });

  test('a closed release window: when, and in which zone, it opens', async () => {
    const s = await engine.scenario('window', { spec: { releaseWindows: [{ days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'], start: '09:00', end: '17:00', timeZone: 'Europe/Paris' }] } });
    try {
      engine.clock.set('2030-01-05T12:00:00Z'); // a Saturday
      await adopted(s);
      await s.setImage('registry.invalid/web:v2');
      await s.reconcileUntil((snap) => snap.state.release?.gated === true, 'the release to wait for the window');
      const cause = await assertReason(s, 'outside the release windows; next opens at 2030-01-07T08:00:00Z (Mon 09:00 Europe/Paris)');
      assert.deepEqual(cause, { kind: 'Window', object: 'releaseWindows[0]', field: null, detail: 'Mon,Tue,Wed,Thu,Fri 09:00-17:00 Europe/Paris', since: null, until: '2030-01-07T08:00:00.000Z' });
    } finally {
      engine.clock.offsetMs = 0;
    }
  });
});

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
