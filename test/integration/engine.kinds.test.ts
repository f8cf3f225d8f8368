// Every workload kind of the registry, released [1, 50%, 100%] with approvals on the real control
// plane — kube-controller-manager for Deployment, StatefulSet and DaemonSet, the real kruise-manager
// v1.8.3 for CloneSet, Advanced StatefulSet and Advanced DaemonSet — driven only through reconcile,
// as the product's least-privilege user. Six replicas (six nodes for the DaemonSets): 1 → 3 → 6.
// Then what is particular to some kinds: an HPA-style scale of a CloneSet, an in-place CloneSet
// release that keeps every pod, OnDelete StatefulSets (we delete, or the user does), and a node
// joining a DaemonSet mid-release.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api } from '@kubernetes/client-node';
import { fakeNode } from '../../shared/adapters/local/controlplane/bootstrap.ts';
import { WORKLOAD_KINDS, type WorkloadKind } from '../../shared/rollout/workloadKinds.ts';
import { Engine, settleAtPause, sleep, type KindScenario, type KindSnapshot } from '../../bench/testbed/engine.ts';
import { PodInvariantWatcher } from '../support/podInvariants.ts';
import { ourAnnotations, strategyOf, tags } from '../../bench/testbed/workloads.ts';

const STEPS = [{ replicas: 1 }, { replicas: '50%' }, { replicas: '100%' }];
const V2 = 'registry.invalid/web:v2';
const V3 = 'registry.invalid/web:v3';
/** What each kind's own maxUnavailable allows at N = 6 with its defaults (CloneSet: 20%, rounded up). */
const MAX_UNAVAILABLE: Record<WorkloadKind, number> = { Deployment: 1, StatefulSet: 1, DaemonSet: 1, CloneSet: 2, AdvancedStatefulSet: 1, AdvancedDaemonSet: 1 };

const paused = (x: KindSnapshot, step: number) => x.state.release?.stepIndex === step && x.state.release.stepState === 'StepPaused';
/**
 * No surplus pod left: a MinReadySeconds Deployment's surge pods go a pass after the batch is ready,
 * once the controller acts on the lowered maxSurge (shared/workloads/deployment/minReadyWrites.ts).
 */
const settled = (x: KindSnapshot, n: number) => Object.values(tags(x)).reduce((a, b) => a + b, 0) === n;

/** What the user set on the workload, for the exact hand-back check. */
function userFields(s: KindSnapshot['workload']) {
  return { strategy: strategyOf(s), paused: s.spec?.paused ?? false, minReadySeconds: s.spec?.minReadySeconds, progressDeadlineSeconds: s.spec?.progressDeadlineSeconds };
}

async function removed(s: KindScenario): Promise<void> {
  await s.command({ type: 'delete' });
  for (let i = 0; i < 30; i += 1) {
    if ((await s.reconcile()).outcome === 'removed') return;
    await sleep(300);
  }
  assert.fail(`${s.kind}: the rollout was not removed`);
}

describe('every workload kind, [1, 50%, 100%] with approvals, on the real controllers', () => {
  let engine: Engine;
  before(async () => { engine = await Engine.start({ kruise: true, nodes: 6 }); });
  after(async () => { await engine?.stop(); });

  for (const kind of WORKLOAD_KINDS) {
    it(`${kind}: moves exactly 1, 3 and 6 pods, never without approval, aborts back to stable, and is handed back exactly as the user had it`, async () => {
      const s = await engine.workloadScenario(`kinds-${kind}`, kind, { steps: STEPS });
      const original = userFields(await s.workload.read());
      const watcher = await PodInvariantWatcher.start(engine.cluster.admin, s.namespace, { total: 6, maxUnavailable: MAX_UNAVAILABLE[kind] });
      try {
        watcher.capPods('v2', 0);
        let snap = await s.reconcileUntil((x) => x.state.phase === 'Healthy' && x.state.stableRevision !== null, 'held at rest');
        assert.equal((await s.reconcile()).writes, 0, 'held: nothing more to write');

        watcher.capPods('v2', 1);
        await s.workload.setImage(V2);
        snap = await s.reconcileUntil((x) => paused(x, 0) && settled(x, 6), 'batch 1 ready');
        assert.deepEqual(tags(snap), { v1: 5, v2: 1 });
        await settleAtPause(() => s.reconcile());
        for (let i = 0; i < 3; i += 1) {
          const r = await s.reconcile();
          assert.equal(r.writes, 0, 'nothing advances without approval');
          assert.equal(r.counts['ddb.write'], 0);
          await sleep(300);
        }
        assert.deepEqual(tags(await s.snapshot()), { v1: 5, v2: 1 });

        watcher.capPods('v2', 3);
        await s.command({ type: 'approve' });
        snap = await s.reconcileUntil((x) => paused(x, 1) && settled(x, 6), 'batch 2 ready');
        assert.deepEqual(tags(snap), { v1: 3, v2: 3 });

        watcher.capPods('v2', 6);
        await s.command({ type: 'approve' });
        snap = await s.reconcileUntil((x) => x.state.phase === 'Completed' && Object.values(x.pods).every((p) => p.ready), 'the release to complete');
        assert.deepEqual(tags(snap), { v2: 6 });
        const stable = snap.state.stableRevision;

        watcher.capPods('v3', 1);
        await s.workload.setImage(V3);
        snap = await s.reconcileUntil((x) => paused(x, 0) && settled(x, 6), 'batch 1 of the next release ready');
        assert.deepEqual(tags(snap), { v2: 5, v3: 1 });
        await s.command({ type: 'abort' });
        snap = await s.reconcileUntil((x) => x.state.phase === 'Aborted' && Object.values(x.pods).every((p) => p.ready) && Object.keys(x.pods).length === 6, 'the abort to finish');
        assert.deepEqual(tags(snap), { v2: 6 }, 'every pod back on the stable revision');
        assert.equal(snap.state.stableRevision, stable);

        await removed(s);
        const handedBack = await s.workload.read();
        assert.deepEqual(userFields(handedBack), original, 'strategy, partition and paused exactly as the user had them');
        assert.deepEqual(ourAnnotations(handedBack), []);
        const types = engine.events.events.filter((e) => e.rollout.namespace === s.namespace).map((e) => e.type);
        assert.ok(!types.includes('Hold Restored') && !types.includes('Rollout Degraded'), types.join(', '));
        watcher.stop();
        watcher.assertClean();
      } finally {
        watcher.stop();
      }
    });
  }

  it('CloneSet: an HPA-style scale mid-release restarts the batch against the new count; the percent partition kept the share while nothing reconciled', async () => {
    const s = await engine.workloadScenario('kinds-cloneset-scale', 'CloneSet', { steps: STEPS });
    await s.reconcileUntil((x) => x.state.phase === 'Healthy' && x.state.stableRevision !== null, 'held at rest');
    await s.workload.setImage(V2);
    await s.reconcileUntil((x) => paused(x, 0), 'batch 1 ready');
    await s.workload.patch({ spec: { replicas: 10 } });
    // No reconcile yet: the CloneSet creates the 4 new pods on the old revision (partition "83%" of 10 keeps 9).
    let snap = await s.workload.waitForPodCount(10);
    assert.deepEqual(tags(snap), { v1: 9, v2: 1 });
    const after = await s.reconcileUntil((x) => x.state.release?.observedReplicas === 10 && paused(x, 0), 'batch 1 ready again against 10');
    assert.deepEqual(tags(after), { v1: 9, v2: 1 });
    assert.ok(engine.events.events.some((e) => e.rollout.namespace === s.namespace && e.type === 'Batch Restarted'));
    await s.command({ type: 'approve' });
    snap = await s.reconcileUntil((x) => paused(x, 1), 'batch 2 ready');
    assert.deepEqual(tags(snap), { v1: 5, v2: 5 }, '50% of 10');
  });

  it('CloneSet InPlaceIfPossible, image-only change: every pod keeps its name and UID, and each batch updates exactly its pods', async () => {
    const s = await engine.workloadScenario('kinds-cloneset-inplace', 'CloneSet', { steps: STEPS, workload: { updateStrategy: { type: 'InPlaceIfPossible' } } });
    const watcher = await PodInvariantWatcher.start(engine.cluster.admin, s.namespace, { total: 6, maxUnavailable: MAX_UNAVAILABLE.CloneSet });
    try {
      await s.reconcileUntil((x) => x.state.phase === 'Healthy' && x.state.stableRevision !== null, 'held at rest');
      const before = uids(await s.snapshot());
      watcher.keepUids();
      watcher.capPods('v2', 1);
      await s.workload.setImage(V2);
      let snap = await s.reconcileUntil((x) => paused(x, 0), 'batch 1 ready');
      assert.deepEqual(tags(snap), { v1: 5, v2: 1 });
      watcher.capPods('v2', 3);
      await s.command({ type: 'approve' });
      snap = await s.reconcileUntil((x) => paused(x, 1), 'batch 2 ready');
      assert.deepEqual(tags(snap), { v1: 3, v2: 3 });
      watcher.capPods('v2', 6);
      await s.command({ type: 'approve' });
      snap = await s.reconcileUntil((x) => x.state.phase === 'Completed' && Object.values(x.pods).every((p) => p.ready), 'the release to complete');
      assert.deepEqual(tags(snap), { v2: 6 });
      assert.deepEqual(uids(snap), before, 'the same pods, updated in place');
      watcher.stop();
      watcher.assertClean();
    } finally {
      watcher.stop();
    }
  });

  it('StatefulSet OnDelete: each batch deletes the highest ordinals, one at a time, and the release completes', async () => {
    const s = await engine.workloadScenario('kinds-sts-ondelete', 'StatefulSet', { steps: STEPS, workload: { replicas: 4, updateStrategy: { type: 'OnDelete' } } });
    const watcher = await PodInvariantWatcher.start(engine.cluster.admin, s.namespace, { total: 4, maxUnavailable: 1 });
    try {
      await s.reconcileUntil((x) => x.state.phase === 'Healthy' && x.state.stableRevision !== null, 'adopted');
      watcher.capPods('v2', 1);
      await s.workload.setImage(V2);
      let snap = await s.reconcileUntil((x) => paused(x, 0), 'batch 1 ready');
      assert.deepEqual(byOrdinal(snap), ['v1', 'v1', 'v1', 'v2']);
      watcher.capPods('v2', 2);
      await s.command({ type: 'approve' });
      snap = await s.reconcileUntil((x) => paused(x, 1), 'batch 2 ready');
      assert.deepEqual(byOrdinal(snap), ['v1', 'v1', 'v2', 'v2']);
      watcher.capPods('v2', 4);
      await s.command({ type: 'approve' });
      snap = await s.reconcileUntil((x) => x.state.phase === 'Completed', 'the release to complete');
      assert.deepEqual(byOrdinal(snap), ['v2', 'v2', 'v2', 'v2']);
      assert.deepEqual(strategyOf(snap.workload), { type: 'OnDelete' }, 'the user\'s strategy, never changed');
      watcher.stop();
      watcher.assertClean();
    } finally {
      watcher.stop();
    }
  });

  it('StatefulSet OnDelete with onDeletePolicy Manual: we delete nothing, the rollout names the pods still old, and the release completes as the user deletes them', async () => {
    const s = await engine.workloadScenario('kinds-sts-manual', 'StatefulSet', { steps: STEPS, spec: { onDeletePolicy: 'Manual' }, workload: { replicas: 4, updateStrategy: { type: 'OnDelete' } } });
    await s.reconcileUntil((x) => x.state.phase === 'Healthy' && x.state.stableRevision !== null, 'adopted');
    const before = uids(await s.snapshot());
    await s.workload.setImage(V2);
    let snap = await s.reconcileUntil((x) => x.state.release !== null && /to be deleted/.test(x.state.message), 'the release to wait for the user');
    assert.equal(snap.state.message, 'step 1/3: waiting for 1 more pod to be deleted (onDeletePolicy Manual); still on the old revision: web-3, web-2, web-1, web-0');
    for (let i = 0; i < 3; i += 1) {
      assert.equal((await s.reconcile()).writes, 0, 'we delete nothing');
      await sleep(200);
    }
    assert.deepEqual(uids(await s.snapshot()), before);

    const userDeletes = async (...pods: string[]) => {
      const r = await engine.cluster.kubectl(['delete', 'pod', ...pods, '-n', s.namespace, '--wait=false']);
      assert.equal(r.code, 0, r.stderr);
    };
    await userDeletes('web-3');
    snap = await s.reconcileUntil((x) => paused(x, 0), 'batch 1 ready once the user deleted web-3');
    assert.deepEqual(byOrdinal(snap), ['v1', 'v1', 'v1', 'v2']);
    await s.command({ type: 'approve' });
    snap = await s.reconcileUntil((x) => /to be deleted/.test(x.state.message) && x.state.release?.stepIndex === 1, 'step 2 to wait for the user');
    assert.equal(snap.state.message, 'step 2/3: waiting for 1 more pod to be deleted (onDeletePolicy Manual); still on the old revision: web-2, web-1, web-0');
    // More than the batch asks: both come back on the new revision, the batch counts them, nothing is rolled back.
    await userDeletes('web-2', 'web-1');
    snap = await s.reconcileUntil((x) => paused(x, 1) && Object.values(x.pods).filter((p) => p.ready).length === 4, 'batch 2 ready with both');
    assert.deepEqual(byOrdinal(snap), ['v1', 'v2', 'v2', 'v2']);
    await s.command({ type: 'approve' });
    snap = await s.reconcileUntil((x) => /to be deleted/.test(x.state.message), 'the last pods to wait for the user');
    assert.equal(snap.state.message, 'finishing: waiting for 1 more pod to be deleted (onDeletePolicy Manual); still on the old revision: web-0');
    await userDeletes('web-0');
    snap = await s.reconcileUntil((x) => x.state.phase === 'Completed', 'the release to complete');
    assert.deepEqual(byOrdinal(snap), ['v2', 'v2', 'v2', 'v2']);
  });

  it('DaemonSet: a node joining mid-release runs the new revision at once, and the batch restarts against the new node count', async () => {
    const s = await engine.workloadScenario('kinds-ds-node', 'DaemonSet', { steps: STEPS });
    const core = engine.cluster.admin.makeApiClient(CoreV1Api);
    const node = 'kwok-node-join';
    try {
      await s.reconcileUntil((x) => x.state.phase === 'Healthy' && x.state.stableRevision !== null, 'held at rest');
      await s.workload.setImage(V2);
      let snap = await s.reconcileUntil((x) => paused(x, 0), 'batch 1 ready');
      assert.deepEqual(tags(snap), { v1: 5, v2: 1 });
      await core.createNode({ body: fakeNode(node) });
      snap = await s.reconcileUntil((x) => x.state.release?.observedReplicas === 7 && paused(x, 0) && Object.keys(x.pods).length === 7, 'batch 1 ready again on 7 nodes');
      assert.deepEqual(tags(snap), { v1: 5, v2: 2 }, 'nothing deleted: the new node\'s pod is one of the batch');
      assert.equal(Object.values(snap.pods).find((p) => p.node === node)?.image, 'v2');
      await s.command({ type: 'approve' });
      snap = await s.reconcileUntil((x) => paused(x, 1), 'batch 2 ready');
      assert.deepEqual(tags(snap), { v1: 3, v2: 4 }, '50% of 7 nodes, rounded up');
    } finally {
      await core.deleteNode({ name: node }).catch(() => undefined);
    }
  });
});

function uids(s: KindSnapshot): Record<string, string> {
  return Object.fromEntries(Object.entries(s.pods).map(([name, p]) => [name, p.uid]).sort());
}

/** Image tag of web-0, web-1, … ("missing" for an ordinal with no live pod). */
function byOrdinal(s: KindSnapshot): string[] {
  const n = Number(s.workload.spec?.replicas ?? 0);
  return Array.from({ length: n }, (_, i) => s.pods[`web-${i}`]?.image ?? 'missing');
}
