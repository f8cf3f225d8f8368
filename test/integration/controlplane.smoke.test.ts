// The local control plane behaves like a real cluster where the product depends on it: native
// Deployment/ReplicaSet controllers, pause semantics, kwok readiness, and RBAC on the product's token.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { AppsV1Api, CoreV1Api, VersionApi, type V1Deployment, type V1Pod, type V1ReplicaSet } from '@kubernetes/client-node';
import { apiStatusOf, isPodReady, mergePatch, NEVER_READY_LABEL, startTestCluster, type TestCluster } from '../../bench/testbed/kube.ts';
import { staysTrue, waitFor } from '../../bench/testbed/wait.ts';

const FIVE = 5;

function condition(deployment: V1Deployment, type: string) {
  return deployment.status?.conditions?.find((c) => c.type === type);
}


function imageOf(rs: V1ReplicaSet): string | undefined {
  return rs.spec?.template?.spec?.containers[0]?.image;
}

describe('local Kubernetes control plane', () => {
  let cluster: TestCluster;
  let apps: AppsV1Api;
  let core: CoreV1Api;

  before(async () => {
    cluster = await startTestCluster();
    apps = cluster.admin.makeApiClient(AppsV1Api);
    core = cluster.admin.makeApiClient(CoreV1Api);
  });

  after(async () => {
    await cluster?.stop();
  });

  /** Creates a Deployment and waits until all its replicas are available. */
  async function availableDeployment(namespace: string, name: string): Promise<V1Deployment> {
    await cluster.createDeployment(namespace, name, { replicas: FIVE, image: 'registry.invalid/web:v1' });
    return waitFor(
      async () => {
        const d = await apps.readNamespacedDeployment({ name, namespace });
        return d.status?.availableReplicas === FIVE && d.status.updatedReplicas === FIVE && d.status.replicas === FIVE ? d : undefined;
      },
      { message: `${namespace}/${name} to have ${FIVE} available replicas` },
    );
  }

  /** Holds the Deployment (spec.paused), then changes its image, and waits until the controller has seen both. */
  async function pauseAndChangeImage(namespace: string, name: string): Promise<void> {
    await apps.patchNamespacedDeployment({ name, namespace, body: { spec: { paused: true } } }, mergePatch);
    const changed = await apps.patchNamespacedDeployment(
      { name, namespace, body: { spec: { template: { spec: { containers: [{ name: 'app', image: 'registry.invalid/web:v2' }] } } } } },
      mergePatch,
    );
    const generation = changed.metadata?.generation;
    assert.ok(generation !== undefined);
    await waitFor(
      async () => (await apps.readNamespacedDeployment({ name, namespace })).status?.observedGeneration === generation,
      { message: `the deployment controller to observe generation ${generation} of ${namespace}/${name}` },
    );
  }

  test('serves the Kubernetes version the testplane script builds', async () => {
    const expected = execFileSync('bash', ['scripts/build-testplane.sh', '--print-version'], { encoding: 'utf8' }).trim();
    const info = await cluster.admin.makeApiClient(VersionApi).getCode();
    assert.equal(info.gitVersion, expected);
    assert.equal(cluster.version, expected);
  });

  test('a 5-replica Deployment becomes fully available on kwok nodes', async () => {
    const namespace = await cluster.createNamespace('available');
    await availableDeployment(namespace, 'web');

    const pods = await core.listNamespacedPod({ namespace, labelSelector: 'app=web' });
    assert.equal(pods.items.length, FIVE);
    const nodes = await core.listNode();
    const kwokNodes = new Set(nodes.items.filter((n) => n.metadata?.annotations?.['kwok.x-k8s.io/node'] === 'fake').map((n) => n.metadata?.name));
    for (const pod of pods.items) {
      assert.ok(kwokNodes.has(pod.spec?.nodeName), `pod ${pod.metadata?.name} bound to kwok node, got ${pod.spec?.nodeName}`);
      assert.equal(pod.status?.phase, 'Running');
      assert.ok(isPodReady(pod), `pod ${pod.metadata?.name} Ready`);
    }
    const replicaSets = await cluster.listReplicaSets(namespace, { app: 'web' });
    assert.equal(replicaSets.length, 1);
    assert.equal(replicaSets[0]?.status?.availableReplicas, FIVE);
  });

  test('a paused Deployment creates no new ReplicaSet when its template changes', async () => {
    const namespace = await cluster.createNamespace('paused');
    await availableDeployment(namespace, 'web');
    const before = await cluster.listReplicaSets(namespace, { app: 'web' });
    assert.equal(before.length, 1);
    const stableUid = before[0]?.metadata?.uid;

    await pauseAndChangeImage(namespace, 'web');

    const onlyTheStableReplicaSet = async (): Promise<boolean> => {
      const now = await cluster.listReplicaSets(namespace, { app: 'web' });
      return now.length === 1 && now[0]?.metadata?.uid === stableUid && now[0]?.spec?.replicas === FIVE;
    };
    assert.ok(await onlyTheStableReplicaSet(), 'right after the controller observed the change: still only the v1 ReplicaSet at 5');
    await staysTrue(onlyTheStableReplicaSet, { forMs: 2_000, message: 'only the v1 ReplicaSet, at 5 replicas' });
    const d = await apps.readNamespacedDeployment({ name: 'web', namespace });
    assert.equal(condition(d, 'Progressing')?.reason, 'DeploymentPaused');
  });

  test('resuming a paused Deployment lets the native controller finish the rolling update', async () => {
    const namespace = await cluster.createNamespace('resume');
    await availableDeployment(namespace, 'web');
    await pauseAndChangeImage(namespace, 'web');

    await apps.patchNamespacedDeployment({ name: 'web', namespace, body: { spec: { paused: false } } }, mergePatch);

    const done = await waitFor(
      async () => {
        const d = await apps.readNamespacedDeployment({ name: 'web', namespace });
        const progressing = condition(d, 'Progressing');
        const rolledOut =
          d.status?.observedGeneration === d.metadata?.generation &&
          d.status?.updatedReplicas === FIVE &&
          d.status?.availableReplicas === FIVE &&
          d.status?.replicas === FIVE &&
          progressing?.reason === 'NewReplicaSetAvailable';
        return rolledOut ? { deployment: d, progressing } : undefined;
      },
      { message: `${namespace}/web to finish rolling out v2`, timeoutMs: 60_000 },
    );
    const replicaSets = await waitFor(
      async () => {
        const list = await cluster.listReplicaSets(namespace, { app: 'web' });
        const old = list.find((rs) => imageOf(rs) === 'registry.invalid/web:v1');
        return old?.status?.replicas === 0 ? list : undefined;
      },
      { message: 'the v1 ReplicaSet to have no pods left' },
    );
    assert.equal(replicaSets.length, 2);
    const newRs = replicaSets.find((rs) => imageOf(rs) === 'registry.invalid/web:v2');
    const oldRs = replicaSets.find((rs) => imageOf(rs) === 'registry.invalid/web:v1');
    assert.equal(newRs?.spec?.replicas, FIVE);
    assert.equal(newRs?.status?.availableReplicas, FIVE);
    assert.equal(oldRs?.spec?.replicas, 0);
    assert.ok(done.progressing?.message?.includes(newRs?.metadata?.name ?? '<none>'), `Progressing names the new ReplicaSet: ${done.progressing?.message}`);
  });

  test('the rollouts token is allowed its role and denied anything else', async () => {
    const namespace = await cluster.createNamespace('rbac');
    await cluster.createDeployment(namespace, 'web');
    const rolloutsApps = cluster.rollouts.makeApiClient(AppsV1Api);
    const rolloutsCore = cluster.rollouts.makeApiClient(CoreV1Api);

    const listed = await rolloutsApps.listNamespacedDeployment({ namespace });
    assert.deepEqual(listed.items.map((d) => d.metadata?.name), ['web']);
    const patched = await rolloutsApps.patchNamespacedDeployment({ name: 'web', namespace, body: { spec: { paused: true } } }, mergePatch);
    assert.equal(patched.spec?.paused, true);

    // The admin can do both, so a 403 below is the role at work, not a broken cluster.
    await core.listNamespacedSecret({ namespace });
    await assert.rejects(rolloutsCore.listNamespacedSecret({ namespace }), (error) => apiStatusOf(error) === 403);
    await assert.rejects(rolloutsApps.deleteNamespacedDeployment({ name: 'web', namespace }), (error) => apiStatusOf(error) === 403);
    await apps.readNamespacedDeployment({ name: 'web', namespace });
  });

  test('a pod labelled never-ready runs but stays unready while an unlabelled pod becomes Ready', async () => {
    const namespace = await cluster.createNamespace('never-ready');
    const pod = (name: string, labels: Record<string, string>): V1Pod => ({
      metadata: { name, labels },
      spec: { containers: [{ name: 'app', image: 'registry.invalid/app:v1' }] },
    });
    await core.createNamespacedPod({ namespace, body: pod('ready', { app: 'probe' }) });
    await core.createNamespacedPod({ namespace, body: pod('never', { app: 'probe', [NEVER_READY_LABEL]: 'true' }) });

    const read = (name: string) => core.readNamespacedPod({ name, namespace });
    const ready = await waitFor(async () => {
      const p = await read('ready');
      return p.status?.phase === 'Running' && isPodReady(p) ? p : undefined;
    }, { message: 'the unlabelled pod to be Running and Ready' });
    assert.equal(ready.status?.containerStatuses?.[0]?.ready, true);

    const never = await waitFor(async () => {
      const p = await read('never');
      return p.status?.phase === 'Running' ? p : undefined;
    }, { message: 'the never-ready pod to be Running' });
    const readyCondition = never.status?.conditions?.find((c) => c.type === 'Ready');
    assert.equal(readyCondition?.status, 'False');
    assert.equal(never.status?.containerStatuses?.[0]?.ready, false);
    await staysTrue(async () => {
      const p = await read('never');
      return p.status?.phase === 'Running' && !isPodReady(p);
    }, { forMs: 2_000, message: 'the never-ready pod Running and not Ready' });
  });
});
