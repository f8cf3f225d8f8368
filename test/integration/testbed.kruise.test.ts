// The test bed runs the real OpenKruise controllers (kruise-manager v1.8.3 from Go modules) on six
// kwok nodes, and they behave as Kruise documents: partitions hold back exactly the old pods they
// name, in-place updates keep pods, and native OnDelete DaemonSets wait for a deletion.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AppsV1Api, CoreV1Api, CustomObjectsApi, type V1Pod } from '@kubernetes/client-node';
import { apiStatusOf, isPodReady, mergePatch, startTestCluster, type TestCluster } from '../../bench/testbed/kube.ts';
import { grantClusterRole } from '../support/rbac.ts';
import { staysTrue, waitFor } from '../../bench/testbed/wait.ts';

const NODES = 6;
const V1 = 'registry.invalid/web:v1';
const V2 = 'registry.invalid/web:v2';

interface KruiseWorkload {
  metadata: { generation: number; uid: string };
  status?: Record<string, unknown> & { observedGeneration?: number; updateRevision?: string };
}


function podTemplate(app: string, image: string) {
  return { metadata: { labels: { app } }, spec: { containers: [{ name: 'app', image }] } };
}

describe('OpenKruise on the test bed', () => {
  let cluster: TestCluster;
  let custom: CustomObjectsApi;
  let core: CoreV1Api;

  before(async () => {
    cluster = await startTestCluster({ kruise: true, nodes: NODES });
    custom = cluster.admin.makeApiClient(CustomObjectsApi);
    core = cluster.admin.makeApiClient(CoreV1Api);
  });

  after(async () => {
    await cluster?.stop();
  });

  const kruise = (version: 'v1alpha1' | 'v1beta1', plural: string, namespace: string) => ({ group: 'apps.kruise.io', version, plural, namespace });
  type Ref = ReturnType<typeof kruise>;

  const create = (ref: Ref, kind: string, name: string, spec: object) =>
    custom.createNamespacedCustomObject({ ...ref, body: { apiVersion: `${ref.group}/${ref.version}`, kind, metadata: { name }, spec } });
  const read = async (ref: Ref, name: string) => (await custom.getNamespacedCustomObject({ ...ref, name })) as KruiseWorkload;
  const patch = (ref: Ref, name: string, body: object) => custom.patchNamespacedCustomObject({ ...ref, name, body }, mergePatch);

  /** Waits until the controller has observed the latest generation and `done(status)` holds. */
  function settled(ref: Ref, name: string, done: (status: Record<string, unknown>) => boolean, message: string) {
    return waitFor(async () => {
      const object = await read(ref, name);
      const status = object.status;
      return status && status.observedGeneration === object.metadata.generation && done(status) ? object : undefined;
    }, { message: `${ref.plural} ${name}: ${message}`, timeoutMs: 60_000 });
  }

  async function pods(namespace: string, app: string): Promise<V1Pod[]> {
    return (await core.listNamespacedPod({ namespace, labelSelector: `app=${app}` })).items.filter((pod) => !pod.metadata?.deletionTimestamp);
  }

  test('a CloneSet with partition 3 of 5 updates exactly 2 pods, and keeps it so', async () => {
    const namespace = await cluster.createNamespace('cloneset-partition');
    const ref = kruise('v1alpha1', 'clonesets', namespace);
    await create(ref, 'CloneSet', 'web', { replicas: 5, selector: { matchLabels: { app: 'web' } }, template: podTemplate('web', V1) });
    await settled(ref, 'web', (s) => s.readyReplicas === 5 && s.updatedReplicas === 5, '5 ready');

    await patch(ref, 'web', { spec: { updateStrategy: { partition: 3 }, template: podTemplate('web', V2) } });
    const updated = await settled(ref, 'web', (s) => s.updatedReadyReplicas === 2 && s.readyReplicas === 5, '2 updated and ready, 5 ready');

    const byImage = async () => {
      const all = await pods(namespace, 'web');
      return { total: all.length, v2: all.filter((pod) => pod.spec?.containers[0]?.image === V2 && pod.metadata?.labels?.['controller-revision-hash'] === updated.status?.updateRevision).length };
    };
    assert.deepEqual(await byImage(), { total: 5, v2: 2 });
    await staysTrue(async () => {
      const { total, v2 } = await byImage();
      return total === 5 && v2 === 2;
    }, { forMs: 1_500, message: 'exactly 2 of 5 pods on the new revision' });
  });

  test('a CloneSet InPlaceIfPossible image change keeps every pod name and UID', async () => {
    const namespace = await cluster.createNamespace('cloneset-inplace');
    const ref = kruise('v1alpha1', 'clonesets', namespace);
    await create(ref, 'CloneSet', 'web', {
      replicas: 3, selector: { matchLabels: { app: 'web' } }, template: podTemplate('web', V1), updateStrategy: { type: 'InPlaceIfPossible' },
    });
    await settled(ref, 'web', (s) => s.readyReplicas === 3, '3 ready');
    const before = new Map((await pods(namespace, 'web')).map((pod) => [pod.metadata?.name, pod.metadata?.uid]));
    assert.equal(before.size, 3);

    await patch(ref, 'web', { spec: { template: podTemplate('web', V2) } });
    await settled(ref, 'web', (s) => s.updatedReadyReplicas === 3 && s.readyReplicas === 3, '3 updated in place and ready');

    const after = await pods(namespace, 'web');
    assert.deepEqual(new Map(after.map((pod) => [pod.metadata?.name, pod.metadata?.uid])), before);
    for (const pod of after) {
      assert.ok(isPodReady(pod), `${pod.metadata?.name} Ready`);
      // What kwok's pod-inplace-image-update stage reports, as a kubelet would after restarting the container.
      assert.equal(pod.status?.containerStatuses?.[0]?.image, V2);
      assert.equal(pod.status?.containerStatuses?.[0]?.restartCount, 1);
    }
  });

  test('an Advanced StatefulSet with partition 3 updates exactly ordinals 3 and 4', async () => {
    const namespace = await cluster.createNamespace('asts-partition');
    const ref = kruise('v1beta1', 'statefulsets', namespace);
    await create(ref, 'StatefulSet', 'db', {
      replicas: 5, serviceName: 'db', podManagementPolicy: 'Parallel', selector: { matchLabels: { app: 'db' } }, template: podTemplate('db', V1),
    });
    await settled(ref, 'db', (s) => s.readyReplicas === 5, '5 ready');

    await patch(ref, 'db', { spec: { updateStrategy: { rollingUpdate: { partition: 3 } }, template: podTemplate('db', V2) } });
    await settled(ref, 'db', (s) => s.updatedReadyReplicas === 2 && s.readyReplicas === 5, '2 updated and ready');
    const updated = (await pods(namespace, 'db')).filter((pod) => pod.spec?.containers[0]?.image === V2).map((pod) => pod.metadata?.name).sort();
    assert.deepEqual(updated, ['db-3', 'db-4']);
  });

  test('an Advanced DaemonSet with partition 4 on 6 nodes updates exactly 2 nodes', async () => {
    const namespace = await cluster.createNamespace('ads-partition');
    const ref = kruise('v1alpha1', 'daemonsets', namespace);
    await create(ref, 'DaemonSet', 'agent', { selector: { matchLabels: { app: 'agent' } }, template: podTemplate('agent', V1) });
    await settled(ref, 'agent', (s) => s.desiredNumberScheduled === NODES && s.numberReady === NODES, `${NODES} ready`);

    await patch(ref, 'agent', { spec: { updateStrategy: { rollingUpdate: { partition: 4 } }, template: podTemplate('agent', V2) } });
    await settled(ref, 'agent', (s) => s.updatedNumberScheduled === 2 && s.numberReady === NODES, '2 nodes updated');
    const onV2 = (await pods(namespace, 'agent')).filter((pod) => pod.spec?.containers[0]?.image === V2);
    assert.equal(onV2.length, 2);
    assert.equal(new Set(onV2.map((pod) => pod.spec?.nodeName)).size, 2, 'on two different nodes');
  });

  test('a native DaemonSet with OnDelete updates a node only once its pod is deleted', async () => {
    const namespace = await cluster.createNamespace('ds-ondelete');
    const apps = cluster.admin.makeApiClient(AppsV1Api);
    await apps.createNamespacedDaemonSet({
      namespace,
      body: { metadata: { name: 'agent' }, spec: { selector: { matchLabels: { app: 'agent' } }, template: podTemplate('agent', V1), updateStrategy: { type: 'OnDelete' } } },
    });
    const status = async () => (await apps.readNamespacedDaemonSet({ name: 'agent', namespace })).status;
    await waitFor(async () => (await status())?.numberReady === NODES, { message: `${NODES} agent pods Ready` });

    const changed = await apps.patchNamespacedDaemonSet({ name: 'agent', namespace, body: { spec: { template: podTemplate('agent', V2) } } }, mergePatch);
    await waitFor(async () => (await status())?.observedGeneration === changed.metadata?.generation, { message: 'the controller to observe the change' });
    const onV2 = async () => (await pods(namespace, 'agent')).filter((pod) => pod.spec?.containers[0]?.image === V2);
    await staysTrue(async () => (await onV2()).length === 0, { forMs: 1_500, message: 'no pod updated without a deletion' });

    const [victim] = await pods(namespace, 'agent');
    const node = victim?.spec?.nodeName;
    await core.deleteNamespacedPod({ name: victim?.metadata?.name as string, namespace, gracePeriodSeconds: 0 });
    const replaced = await waitFor(async () => {
      const updated = await onV2();
      return updated.length === 1 && isPodReady(updated[0] as V1Pod) ? updated[0] : undefined;
    }, { message: 'the deleted pod to come back on v2 and Ready' });
    assert.equal(replaced.spec?.nodeName, node, 'recreated on the same node');
    assert.equal((await status())?.numberReady, NODES);
  });

  test('the product user has exactly its documented Kruise permissions: it reads the workloads, and cannot create them nor touch other Kruise kinds unless granted', async () => {
    const namespace = await cluster.createNamespace('kruise-rbac');
    const asRollouts = cluster.rollouts.makeApiClient(CustomObjectsApi);
    assert.deepEqual(((await asRollouts.listNamespacedCustomObject(kruise('v1alpha1', 'clonesets', namespace))) as { items: unknown[] }).items, []);
    const body = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name: 'nope' }, spec: { replicas: 1, selector: { matchLabels: { app: 'nope' } }, template: podTemplate('nope', V1) } };
    await assert.rejects(asRollouts.createNamespacedCustomObject({ ...kruise('v1alpha1', 'clonesets', namespace), body }), (error) => apiStatusOf(error) === 403);
    const broadcastJobs = () => asRollouts.listNamespacedCustomObject(kruise('v1alpha1', 'broadcastjobs', namespace));
    await assert.rejects(broadcastJobs(), (error) => apiStatusOf(error) === 403);

    const revoke = await grantClusterRole(cluster.admin, {
      name: 'test-kruise-broadcastjobs-read',
      rules: [{ apiGroups: ['apps.kruise.io'], resources: ['broadcastjobs'], verbs: ['list', 'get', 'watch'] }],
    });
    try {
      assert.deepEqual(((await broadcastJobs()) as { items: unknown[] }).items, []);
    } finally {
      await revoke();
    }
  });
});
