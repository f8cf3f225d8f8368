// A 5-replica StatefulSet released 1 → 60% → 100% with approval pauses, and aborted mid-release,
// driven only through reconcile on the real control plane (the kube-controller-manager's
// StatefulSet controller replaces the pods) and DynamoDB.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, sleep, type StatefulSetSnapshot } from '../../bench/testbed/engine.ts';
import { statefulSetDriver } from '../../shared/workloads/statefulset/driver.ts';
import { BATCH_PARTITION, HELD_PARTITION, ORIGINAL_PARTITION, ownedRevisions } from '../../shared/workloads/statefulset/statefulSetObjects.ts';
import { templateRevision } from '../../shared/workloads/statefulset/view.ts';

const V1 = 'registry.invalid/web:v1';
const V2 = 'registry.invalid/web:v2';
const V3 = 'registry.invalid/web:v3';
const STEPS = [{ replicas: 1 }, { replicas: '60%' }, { replicas: '100%' }];

/** Image of each live pod by ordinal, with "!" for a pod that is not Ready: ["v1", "v1", "v2"]. */
function images(s: StatefulSetSnapshot): string[] {
  return Array.from({ length: s.statefulSet.spec?.replicas ?? 0 }, (_, i) => i).map((i) => {
    const pod = s.byName[`web-${i}`];
    if (!pod) return 'missing';
    return `${pod.image.slice(pod.image.lastIndexOf(':') + 1)}${pod.ready ? '' : '!'}`;
  });
}

function partition(s: StatefulSetSnapshot): number | undefined {
  return s.statefulSet.spec?.updateStrategy?.rollingUpdate?.partition;
}

const held = (x: StatefulSetSnapshot) => partition(x) === HELD_PARTITION && x.state.phase === 'Healthy';

describe('a StatefulSet release through reconcile on the real control plane', () => {
  let engine: Engine;
  before(async () => { engine = await Engine.start(); });
  after(async () => { await engine?.stop(); });

  it('moves exactly 1, 3 and 5 pods, highest ordinals first, never without approval, and completes natively', async () => {
    const s = await engine.statefulSetScenario('sts-release', { steps: STEPS });
    const watcher = await s.watchSet();
    watcher.capPods(V2, 0);
    let snap = await s.reconcileUntilSet(held, 'the StatefulSet to be held');
    const stable = snap.statefulSet.status?.updateRevision;
    await s.setImage(V2);

    watcher.capPods(V2, 1);
    snap = await s.reconcileUntilSet((x) => x.state.release?.stepState === 'StepPaused', 'batch 1 to be ready');
    assert.deepEqual(images(snap), ['v1', 'v1', 'v1', 'v1', 'v2']);
    const target = snap.statefulSet.status?.updateRevision;
    assert.notEqual(target, stable);
    assert.equal(snap.byName['web-4']?.revision, target, 'the pod runs the controller\'s update revision');
    assert.equal(partition(snap), 4);

    // Nothing advances without approval: more reconciles write nothing, anywhere.
    for (let i = 0; i < 4; i += 1) {
      const r = await s.reconcile();
      assert.equal(r.writes, 0);
      assert.equal(r.counts['ddb.write'], 0);
      await sleep(300);
    }
    assert.deepEqual(images(await s.setSnapshot()), ['v1', 'v1', 'v1', 'v1', 'v2']);

    watcher.capPods(V2, 3);
    await s.command({ type: 'approve' });
    snap = await s.reconcileUntilSet((x) => x.state.release?.stepIndex === 1 && x.state.release.stepState === 'StepPaused', 'batch 2 to be ready');
    assert.deepEqual(images(snap), ['v1', 'v1', 'v2', 'v2', 'v2']);
    assert.equal(partition(snap), 2);

    watcher.capPods(V2, 5);
    await s.command({ type: 'approve' });
    snap = await s.reconcileUntilSet((x) => x.state.phase === 'Completed', 'the release to complete');
    assert.deepEqual(images(snap), ['v2', 'v2', 'v2', 'v2', 'v2']);
    assert.ok(Object.values(snap.byName).every((p) => p.revision === target));
    assert.equal(snap.statefulSet.status?.currentRevision, target, 'the controller recorded the rollout complete');
    assert.equal(snap.statefulSet.status?.updateRevision, target);
    assert.equal(partition(snap), HELD_PARTITION, 'held again for the next release');
    assert.equal(snap.statefulSet.metadata?.annotations?.[BATCH_PARTITION], undefined);
    assert.equal(snap.state.stableRevision, target);
    const types = engine.events.events.filter((e) => e.rollout.namespace === s.namespace).map((e) => e.type);
    assert.ok(!types.includes('Hold Restored') && !types.includes('Rollout Degraded'), types.join(', '));
    watcher.stop();
    watcher.assertClean();
  });

  it('recognises the live template among the revisions the controller stored, as the controller itself does', async () => {
    const s = await engine.statefulSetScenario('sts-template', { steps: STEPS, replicas: 2 });
    const obs = await statefulSetDriver.observe(engine.client, s.namespace, { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web' }, new Date());
    const set = obs.workload!;
    const stored = ownedRevisions(set, obs.children);
    assert.equal(stored.length, 1);
    assert.equal(templateRevision(set, stored, false), (set.status as { updateRevision: string }).updateRevision);
  });

  it('restarts from step 1 when a newer revision is released through the API mid-release, without rolling it past the batch', async () => {
    const s = await engine.statefulSetScenario('sts-restart', { steps: STEPS });
    const watcher = await s.watchSet();
    watcher.capPods(V3, 0);
    await s.reconcileUntilSet(held, 'the StatefulSet to be held');
    await s.setImage(V2);
    await s.reconcileUntilSet((x) => x.state.release?.stepState === 'StepPaused', 'batch 1 to be ready');
    await s.command({ type: 'approve' });
    let snap = await s.reconcileUntilSet((x) => x.state.release?.stepIndex === 1 && x.state.release.stepState === 'StepPaused', 'batch 2 to be ready');
    assert.deepEqual(images(snap), ['v1', 'v1', 'v2', 'v2', 'v2']);

    watcher.capPods(V3, 1);
    await s.command({ type: 'release', change: { type: 'images', images: { app: V3 } } });
    snap = await s.reconcileUntilSet(
      (x) => x.state.release?.stepIndex === 0 && x.state.release.stepState === 'StepPaused' && x.statefulSet.spec?.template?.spec?.containers[0]?.image === V3,
      'batch 1 of the newer revision to be ready',
    );
    assert.deepEqual(images(snap), ['v1', 'v1', 'v1', 'v1', 'v3'], 'the interrupted revision went back to stable, one batch of the newer one');
    assert.equal(partition(snap), 4);
    watcher.stop();
    watcher.assertClean();
  });

  it('restarts the batch against the new replica count when the StatefulSet is scaled mid-release', async () => {
    const s = await engine.statefulSetScenario('sts-scale', { steps: STEPS });
    await s.reconcileUntilSet(held, 'the StatefulSet to be held');
    await s.setImage(V2);
    await s.reconcileUntilSet((x) => x.state.release?.stepState === 'StepPaused', 'batch 1 to be ready');
    await s.scale(6);
    let snap = await s.reconcileUntilSet(
      (x) => x.state.release?.observedReplicas === 6 && x.state.release.stepState === 'StepPaused' && Object.keys(x.byName).length === 6 && Object.values(x.byName).every((p) => p.ready),
      'batch 1 to be ready again with 6 replicas',
    );
    // The new ordinal came up above the partition on the new revision; a batch never moves backwards
    // (Kruise: the partition only goes down), so both updated pods stay.
    assert.deepEqual(images(snap), ['v1', 'v1', 'v1', 'v1', 'v2', 'v2']);
    assert.equal(partition(snap), 4);

    await s.command({ type: 'approve' });
    snap = await s.reconcileUntilSet((x) => x.state.release?.stepIndex === 1 && x.state.release.stepState === 'StepPaused', 'batch 2 to be ready');
    assert.deepEqual(images(snap), ['v1', 'v1', 'v2', 'v2', 'v2', 'v2'], '60% of 6 rounds up to 4');
  });

  it('hands back the user\'s own partition exactly, recorded when it was first held', async () => {
    const s = await engine.statefulSetScenario('sts-own-partition', { steps: STEPS, replicas: 2, statefulSet: { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } } } });
    const set = await s.reconcileUntilSet(held, 'the StatefulSet to be held');
    assert.equal(set.statefulSet.metadata?.annotations?.[ORIGINAL_PARTITION], '1');
    await s.command({ type: 'delete' });
    for (let i = 0; i < 10 && (await s.reconcile()).outcome !== 'removed'; i += 1) await sleep(200);
    const back = await s.apps.readNamespacedStatefulSet({ name: 'web', namespace: s.namespace });
    assert.deepEqual(JSON.parse(JSON.stringify(back.spec?.updateStrategy)), { type: 'RollingUpdate', rollingUpdate: { partition: 1 } });
    assert.deepEqual(Object.keys(back.metadata?.annotations ?? {}).filter((k) => k.startsWith('rollouts.')), []);
  });

  it('hands the StatefulSet back to its controller (partition 0) when the rollout is deleted', async () => {
    const s = await engine.statefulSetScenario('sts-delete', { steps: STEPS, replicas: 2 });
    await s.reconcileUntilSet(held, 'the StatefulSet to be held');
    await s.command({ type: 'delete' });
    let outcome = '';
    for (let i = 0; i < 10 && outcome !== 'removed'; i += 1) {
      outcome = (await s.reconcile()).outcome;
      await sleep(200);
    }
    assert.equal(outcome, 'removed');
    const set = await s.apps.readNamespacedStatefulSet({ name: 'web', namespace: s.namespace });
    assert.equal(set.spec?.updateStrategy?.rollingUpdate?.partition, 0);
    assert.equal(set.metadata?.annotations?.[BATCH_PARTITION], undefined);
    assert.equal(set.metadata?.annotations?.[ORIGINAL_PARTITION], undefined);
  });

  it('returns every pod to the stable revision when a release is aborted mid-way', async () => {
    const s = await engine.statefulSetScenario('sts-abort', { steps: STEPS });
    let snap = await s.reconcileUntilSet(held, 'the StatefulSet to be held');
    const stable = snap.statefulSet.status?.updateRevision;
    await s.setImage(V2);
    await s.reconcileUntilSet((x) => x.state.release?.stepState === 'StepPaused', 'batch 1 to be ready');
    await s.command({ type: 'approve' });
    snap = await s.reconcileUntilSet((x) => x.state.release?.stepIndex === 1 && x.state.release.stepState === 'StepPaused', 'batch 2 to be ready');
    assert.deepEqual(images(snap), ['v1', 'v1', 'v2', 'v2', 'v2']);

    await s.command({ type: 'abort' });
    snap = await s.reconcileUntilSet((x) => x.state.phase === 'Aborted', 'the rollback to finish');
    assert.deepEqual(images(snap), ['v1', 'v1', 'v1', 'v1', 'v1']);
    assert.ok(Object.values(snap.byName).every((p) => p.revision === stable), 'every pod is back on the stable ControllerRevision');
    assert.equal(snap.statefulSet.spec?.template?.spec?.containers[0]?.image, V1);
    assert.equal(snap.statefulSet.status?.updateRevision, stable, 'the controller reused the stable revision');
    assert.equal(snap.statefulSet.status?.currentRevision, stable);
    assert.equal(partition(snap), HELD_PARTITION);
    assert.equal(snap.state.stableRevision, stable);
  });
});
