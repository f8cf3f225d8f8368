// Native behaviour behind each exemption of the soak's invariant watchers (issue 23): on the real
// control plane, with NO reconciler of ours running, Kubernetes' own controllers do what each rule
// of bench/testbed/invariants.ts, bench/testbed/soak/setWatcher.ts and
// bench/testbed/proportionalScale.ts says they do. A rule's comment names its test here (NB-n); if
// Kubernetes ever behaves otherwise, the exemption goes with the test.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AppsV1Api } from '@kubernetes/client-node';
import { InvariantWatcher, rawGet } from '../../bench/testbed/invariants.ts';
import { startTestCluster, mergePatch, NEVER_READY_LABEL, type TestCluster } from '../../bench/testbed/kube.ts';
import { proportionalSizes } from '../../bench/testbed/proportionalScale.ts';
import { AFTER_TEMPLATE_CHANGE, SetWatcher } from '../../bench/testbed/soak/setWatcher.ts';
import { waitFor } from '../../bench/testbed/wait.ts';

type Obj = { metadata: { name: string; creationTimestamp?: string; annotations?: Record<string, string>; deletionTimestamp?: string; generation?: number; managedFields?: { manager?: string; fieldsV1?: Record<string, unknown> }[] }; spec: { replicas?: number; template?: { spec?: { containers?: { image?: string }[] } } }; status?: { observedGeneration?: number; replicas?: number; conditions?: { type: string; status: string; lastTransitionTime?: string }[] } };

const V1 = 'registry.invalid/app:v1';
const V2 = 'registry.invalid/app:v2';
const V3 = 'registry.invalid/app:v3';

describe('native behaviour behind the watchers\' exemptions (no reconciler of ours)', () => {
  let cluster: TestCluster;
  let apps: AppsV1Api;
  before(async () => {
    cluster = await startTestCluster({ podReadyDelayMs: 200 });
    apps = cluster.admin.makeApiClient(AppsV1Api);
  });
  after(async () => { await cluster?.stop(); });

  const list = async (ns: string, what: 'replicasets' | 'pods'): Promise<Obj[]> => ((await rawGet(cluster.admin, `/${what === 'pods' ? 'api/v1' : 'apis/apps/v1'}/namespaces/${ns}/${what}`)) as { items: Obj[] }).items;
  const deployment = async (ns: string): Promise<Obj> => (await rawGet(cluster.admin, `/apis/apps/v1/namespaces/${ns}/deployments/app`)) as Obj;
  const observed = async (ns: string): Promise<boolean> => {
    const d = await deployment(ns);
    return (d.status?.observedGeneration ?? 0) >= (d.metadata.generation ?? 1);
  };
  const asked = (rss: Obj[]) => rss.reduce((n, rs) => n + Number(rs.spec.replicas ?? 0), 0);
  /** The first container's image of a pod, or of a pod template. */
  const imageOf = (o: Obj) => (o.spec.template?.spec ?? (o.spec as { containers?: { image?: string }[] })).containers?.[0]?.image;
  const ready = (p: Obj) => (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
  /** A Deployment of `replicas` pods of V1, all Available. */
  const atRest = async (prefix: string, replicas: number, strategy: Record<string, unknown>, paused = false): Promise<string> => {
    const ns = await cluster.createNamespace(prefix);
    await cluster.createDeployment(ns, 'app', { replicas, image: V1, strategy: strategy as never });
    await waitFor(async () => (await list(ns, 'pods')).filter(ready).length === replicas && await observed(ns), { message: `${replicas} Ready pods in ${ns}`, timeoutMs: 60_000 });
    if (paused) {
      await apps.patchNamespacedDeployment({ name: 'app', namespace: ns, body: { spec: { paused: true } } }, mergePatch);
      await waitFor(() => observed(ns), { message: 'the pause observed' });
    }
    return ns;
  };
  /** A rolling update to V2 whose pods never become Ready: it stops once the budget is spent. */
  const stuckRollout = async (ns: string): Promise<void> => {
    await apps.patchNamespacedDeployment({ name: 'app', namespace: ns, body: { spec: { template: { metadata: { labels: { app: 'app', [NEVER_READY_LABEL]: 'true' } }, spec: { containers: [{ name: 'app', image: V2 }] } } } } }, mergePatch);
  };

  it('NB-1: after a scale-up the Deployment controller deletes no Available pod while fewer than N − maxUnavailable are Available', async () => {
    const ns = await atRest('nb1', 4, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } });
    const availableBefore = (await list(ns, 'pods')).map((p) => p.metadata.name).sort();
    const watcher = await InvariantWatcher.start(cluster.admin, ns, 'app');
    const from = Date.now();
    try {
      await cluster.stopComponent('kube-controller-manager');
      await apps.patchNamespacedDeployment({ name: 'app', namespace: ns, body: { spec: { replicas: 5 } } }, mergePatch);
      await stuckRollout(ns);
      await cluster.startComponent('kube-controller-manager');
      // The controller has acted on both changes: the new ReplicaSet asks for its pods, which never become Ready.
      await waitFor(async () => await observed(ns) && (await list(ns, 'pods')).filter((p) => imageOf(p) === V2).length >= 1, { message: 'the new pods created', timeoutMs: 60_000 });
      // 4 < 5 − 0 Available until the scale-up's pod is: none of the 4 was deleted meanwhile, nor after.
      const live = (await list(ns, 'pods')).filter((p) => !p.metadata.deletionTimestamp && ready(p)).map((p) => p.metadata.name);
      assert.deepEqual(availableBefore.filter((name) => !live.includes(name)), [], 'every pod Available before the scale-up is still there');
      watcher.stop();
      assert.deepEqual(watcher.violations, []);
      const availability = watcher.coverage({ from, to: Date.now() }).availability;
      assert.ok((availability?.narrowedSeconds.noAvailablePodDeletedAfterScaleUp ?? 0) > 0, `judged by the narrow rule meanwhile: ${JSON.stringify(availability)}`);
    } finally {
      watcher.stop();
    }
  });

  it('NB-2: a native Deployment keeps a scale-down\'s ReplicaSets above N + maxSurge while kube-controller-manager is away, and takes them down when it is back', async () => {
    const ns = await atRest('nb2', 4, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } });
    await stuckRollout(ns);
    await waitFor(async () => await observed(ns) && asked(await list(ns, 'replicasets')) === 5, { message: 'old 4 + new 1', timeoutMs: 60_000 });
    const watcher = await InvariantWatcher.start(cluster.admin, ns, 'app');
    const from = Date.now();
    try {
      await cluster.stopComponent('kube-controller-manager');
      await apps.patchNamespacedDeployment({ name: 'app', namespace: ns, body: { spec: { replicas: 2 } } }, mergePatch);
      await waitFor(async () => Number((await deployment(ns)).spec.replicas) === 2, { message: 'the scale-down stored' });
      assert.equal(asked(await list(ns, 'replicasets')), 5, 'still 5 asked for: nothing scales the ReplicaSets without the controller');
      await cluster.startComponent('kube-controller-manager');
      await waitFor(async () => asked(await list(ns, 'replicasets')) <= 3, { message: 'the ReplicaSets down to 2 + 1', timeoutMs: 60_000 });
      await watcher.settle();
      watcher.stop();
      assert.deepEqual(watcher.violations, []);
      const surge = watcher.coverage({ from, to: Date.now() }).surge;
      assert.ok((surge?.exemptSeconds.scaleDownNotYetApplied ?? 0) > 0, `counted as exempt meanwhile: ${JSON.stringify(surge)}`);
    } finally {
      watcher.stop();
    }
  });

  it('NB-3: the native controller sizes a lone active ReplicaSet to N on a paused Recreate Deployment', async () => {
    const ns = await atRest('nb3', 4, { type: 'Recreate' }, true);
    const [rs] = await list(ns, 'replicasets');
    assert.ok(rs);
    await apps.patchNamespacedReplicaSet({ name: rs.metadata.name, namespace: ns, body: { spec: { replicas: 3 } } }, mergePatch);
    const back = await waitFor(async () => {
      const now = (await list(ns, 'replicasets')).find((x) => x.metadata.name === rs.metadata.name);
      return now && Number(now.spec.replicas) === 4 ? now : null;
    }, { message: 'the lone ReplicaSet back at 4', timeoutMs: 60_000 });
    const owner = back.metadata.managedFields?.find((m) => 'f:replicas' in ((m.fieldsV1?.['f:spec'] ?? {}) as Record<string, unknown>))?.manager;
    assert.equal(owner, 'kube-controller-manager');
    assert.equal((await deployment(ns)).spec.replicas, 4);
  });

  it('NB-4: after a scale-up the StatefulSet controller deletes no pod for an update while the new pods are not healthy', async () => {
    const ns = await cluster.createNamespace('nb4');
    const labels = { app: 'app' };
    await apps.createNamespacedStatefulSet({ namespace: ns, body: {
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'app', labels },
      spec: { replicas: 3, serviceName: 'app', podManagementPolicy: 'Parallel', selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: V1 }] } } },
    } });
    await waitFor(async () => (await list(ns, 'pods')).filter(ready).length === 3, { message: '3 Ready pods', timeoutMs: 60_000 });
    const watcher = await SetWatcher.start(cluster.admin, ns, 'app');
    const from = Date.now();
    try {
      await apps.patchNamespacedStatefulSet({ name: 'app', namespace: ns, body: { spec: { replicas: 5, template: { metadata: { labels: { ...labels, [NEVER_READY_LABEL]: 'true' } }, spec: { containers: [{ name: 'app', image: V2 }] } } } } }, mergePatch);
      await waitFor(async () => {
        const set = (await rawGet(cluster.admin, `/apis/apps/v1/namespaces/${ns}/statefulsets/app`)) as Obj;
        return (set.status?.observedGeneration ?? 0) >= (set.metadata.generation ?? 1) && (await list(ns, 'pods')).length === 5;
      }, { message: 'the two new pods created', timeoutMs: 60_000 });
      const pods = await list(ns, 'pods');
      assert.deepEqual(pods.filter((p) => imageOf(p) === V1 && ready(p) && !p.metadata.deletionTimestamp).map((p) => p.metadata.name).sort(), ['app-0', 'app-1', 'app-2'], 'no Available pod deleted although 3 < 5 − 1');
      watcher.stop();
      assert.deepEqual(watcher.violations, []);
      const availability = watcher.coverage({ from, to: Date.now() }).availability;
      assert.ok((availability?.narrowedSeconds.noAvailablePodDeletedAfterScaleUp ?? 0) > 0, JSON.stringify(availability));
    } finally {
      watcher.stop();
    }
  });

  it('NB-5: the Deployment controller scales 5 → 3 → 5 proportionally as bench/testbed/proportionalScale.ts says (a 1-pod batch gets 2, not 3)', async () => {
    const ns = await atRest('nb5', 5, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } });
    await stuckRollout(ns);
    await waitFor(async () => {
      const rss = await list(ns, 'replicasets');
      return await observed(ns) && rss.map((rs) => Number(rs.spec.replicas)).sort().join() === '1,4';
    }, { message: 'old 4 + new 1', timeoutMs: 60_000 });
    const newOf = (rss: Obj[]) => rss.find((rs) => imageOf(rs) === V2);
    for (const n of [3, 5]) {
      const rss = await list(ns, 'replicasets');
      const d = await deployment(ns);
      const expected = proportionalSizes(rss.map((rs) => ({
        name: rs.metadata.name, replicas: Number(rs.spec.replicas ?? 0), createdAt: Date.parse(rs.metadata.creationTimestamp ?? ''),
        ...(rs.metadata.annotations?.['deployment.kubernetes.io/max-replicas'] ? { maxReplicas: Number(rs.metadata.annotations['deployment.kubernetes.io/max-replicas']) } : {}),
      })), { replicas: n, maxSurge: 0, statusReplicas: Number(d.status?.replicas ?? 0) });
      await apps.patchNamespacedDeployment({ name: 'app', namespace: ns, body: { spec: { replicas: n } } }, mergePatch);
      const after = await waitFor(async () => {
        const now = await list(ns, 'replicasets');
        return await observed(ns) && asked(now) === n ? now : null;
      }, { message: `the ReplicaSets scaled to ${n}`, timeoutMs: 60_000 });
      assert.deepEqual(Object.fromEntries(after.filter((rs) => Number(rs.spec.replicas) > 0).map((rs) => [rs.metadata.name, Number(rs.spec.replicas)])), Object.fromEntries(expected), `at ${n}`);
    }
    assert.equal(Number(newOf(await list(ns, 'replicasets'))?.spec.replicas), 2);
  });

  it('NB-6: a template change mid-roll: the StatefulSet controller replaces the highest stale pod while a pod below it, just recreated, is not yet Available', async () => {
    const ns = await cluster.createNamespace('nb6');
    const labels = { app: 'app' };
    const minReadySeconds = 5;
    await apps.createNamespacedStatefulSet({ namespace: ns, body: {
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'app', labels },
      spec: { replicas: 3, serviceName: 'app', minReadySeconds, podManagementPolicy: 'Parallel', selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: V1 }] } } },
    } });
    /** Ready for minReadySeconds now (lastTransitionTime is whole seconds, rounded down: never later than the truth). */
    const available = (p: Obj, now: number): boolean => {
      const since = Date.parse((p.status?.conditions ?? []).find((c) => c.type === 'Ready' && c.status === 'True')?.lastTransitionTime ?? '');
      return !p.metadata.deletionTimestamp && !Number.isNaN(since) && since + minReadySeconds * 1000 <= now;
    };
    const pod = async (name: string): Promise<Obj | undefined> => (await list(ns, 'pods')).find((p) => p.metadata.name === name);
    const setImage = (image: string) => apps.patchNamespacedStatefulSet({ name: 'app', namespace: ns, body: { spec: { template: { spec: { containers: [{ name: 'app', image }] } } } } }, mergePatch);
    await waitFor(async () => (await list(ns, 'pods')).filter((p) => available(p, Date.now())).length === 3, { message: '3 Available pods', timeoutMs: 60_000 });
    const watcher = await SetWatcher.start(cluster.admin, ns, 'app');
    const from = Date.now();
    try {
      await setImage(V2);
      // app-2 is replaced and Available; then app-1 is deleted and comes back on V2, not yet Available.
      await waitFor(async () => {
        const p = await pod('app-1');
        return p !== undefined && imageOf(p) === V2 && !available(p, Date.now());
      }, { message: 'app-1 recreated on V2, not yet Available', timeoutMs: 60_000, intervalMs: 100 });
      await setImage(V3);
      const low: string[] = [];
      await waitFor(async () => {
        const now = Date.now();
        const pods = await list(ns, 'pods');
        const up = pods.filter((p) => available(p, now)).map((p) => p.metadata.name).sort();
        if (up.length < 2) low.push(`only ${up.join(', ') || 'none'} Available at ${new Date(now).toISOString()}`);
        return pods.length === 3 && pods.every((p) => imageOf(p) === V3 && available(p, now));
      }, { message: 'every pod on V3 and Available', timeoutMs: 90_000, intervalMs: 100 });
      assert.ok(low.length > 0, 'the controller took app-2 down while app-1 was short of Available: fewer than 3 − 1 Available for a while');
      watcher.stop();
      assert.deepEqual(watcher.violations, [], 'each removal was the rolling update\'s own step');
      const availability = watcher.coverage({ from, to: Date.now() }).availability;
      assert.ok((availability?.narrowedSeconds[AFTER_TEMPLATE_CHANGE] ?? 0) > 0, `judged by the narrow rule meanwhile: ${JSON.stringify(availability)}`);
    } finally {
      watcher.stop();
    }
  });
});
