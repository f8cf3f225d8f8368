// Issue acceptance for the release engine, each scenario driven only through reconcile on the real
// control plane + DynamoDB, with the invariant watcher running throughout.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeReplicaSets, Engine, noSurplus, podCounts, sleep, type Scenario, type Snapshot } from '../../bench/testbed/engine.ts';
import { NEVER_READY_LABEL } from '../../bench/testbed/kube.ts';
import { EVENT } from '../../shared/rollout/events.ts';
import type { KubeObject } from '../../shared/kube/types.ts';
import { templateOf } from '../../shared/workloads/common/objects.ts';
import { revisionId } from '../../shared/workloads/deployment/revision.ts';

const V1 = 'registry.invalid/web:v1';
const V2 = 'registry.invalid/web:v2';

describe('release engine scenarios on the real control plane', () => {
  let engine: Engine;
  before(async () => { engine = await Engine.start(); });
  after(async () => { await engine?.stop(); });

  async function started(prefix: string, opts: Parameters<Engine['scenario']>[1] = {}): Promise<Scenario> {
    const s = await engine.scenario(prefix, opts);
    await s.watch();
    await s.reconcileUntil((x) => x.deployment.spec?.paused === true && x.state.phase === 'Healthy', 'the Deployment to be held');
    return s;
  }

  function finish(s: Scenario): void {
    s.watcher?.stop();
    s.watcher?.assertClean();
  }

  it('Partition: restarts the batch when the workload is scaled 10 → 20 during step 2 and ends at 10 of 20 new', async () => {
    const s = await started('scale', { deploymentStrategy: 'Partition' });
    await s.setImage(V2);
    await s.reconcileUntil((x) => x.state.release?.stepState === 'StepPaused', 'batch 1');
    await s.command({ type: 'approve' });
    await s.reconcileUntil((x) => x.state.release?.stepIndex === 1 && x.state.release.stepState === 'StepPaused', 'batch 2');
    await s.scale(20); // as an HPA would
    const snap = await s.reconcileUntil(
      (x) => x.state.release?.observedReplicas === 20 && x.state.release.stepState === 'StepPaused' && (x.pods[V2]?.ready ?? 0) === 10 && (x.pods[V1]?.ready ?? 0) === 10,
      'batch 2 against 20 replicas',
    );
    assert.deepEqual(podCounts(snap), { [V1]: [10, 10], [V2]: [10, 10] });
    assert.ok(engine.events.events.some((e) => e.type === EVENT.BatchRestarted && e.rollout.namespace === s.namespace));
    finish(s);
  });

  it('MinReadySeconds: a scale 10 → 20 during step 2 is spread over both revisions by the native controller; the batch restarts and is never shrunk', async () => {
    const s = await started('scale-minready');
    await s.setImage(V2);
    await s.reconcileUntil((x) => x.state.release?.stepState === 'StepPaused', 'batch 1');
    await s.command({ type: 'approve' });
    await s.reconcileUntil((x) => x.state.release?.stepIndex === 1 && x.state.release.stepState === 'StepPaused', 'batch 2');
    await s.scale(20);
    const snap = await s.reconcileUntil(
      (x) => x.state.release?.observedReplicas === 20 && x.state.release.stepState === 'StepPaused' && (x.pods[V2]?.ready ?? 0) + (x.pods[V1]?.ready ?? 0) === 20,
      'batch 2 against 20 replicas',
    );
    assert.ok((snap.pods[V2]?.ready ?? 0) >= 10, `at least 50% of 20 new: ${JSON.stringify(podCounts(snap))}`);
    assert.ok(engine.events.events.some((e) => e.type === EVENT.BatchRestarted && e.rollout.namespace === s.namespace));
    finish(s);
  });

  it('changes no object while paused, at any moment, and continues on resume', async () => {
    const s = await started('pause');
    await s.setImage(V2);
    await s.reconcileUntil((x) => x.state.release?.stepState === 'StepPaused', 'batch 1');
    await s.command({ type: 'approve' });
    await s.reconcile(); // batch 2 starts moving
    await s.command({ type: 'pause' });
    const paused = await s.reconcileUntil((x) => x.state.phase === 'Paused', 'the pause');
    // The MinReadySeconds strategy never pauses the Deployment mid-batch: the native controller may
    // still finish the moves the batch's budget allowed before the pause, and never goes beyond the batch.
    let specs = replicaSpecs(paused);
    for (let i = 0; i < 20; i += 1) {
      await sleep(300);
      const now = await s.snapshot();
      assert.ok(newReplicas(now, V2) <= 5, `never beyond the batch of 5 new pods: ${JSON.stringify(replicaSpecs(now))}`);
      if (JSON.stringify(replicaSpecs(now)) === JSON.stringify(specs)) break;
      specs = replicaSpecs(now);
    }
    for (let i = 0; i < 5; i += 1) {
      const r = await s.reconcile();
      assert.equal(r.writes, 0, 'a paused rollout writes nothing to the cluster');
      await sleep(300);
    }
    const after = await s.snapshot();
    assert.deepEqual(replicaSpecs(after), specs, 'no ReplicaSet was scaled while paused');
    assert.ok(newReplicas(after, V2) <= 5);
    await s.command({ type: 'resume' });
    const snap = await s.reconcileUntil((x) => x.state.release?.stepIndex === 1 && x.state.release.stepState === 'StepPaused' && noSurplus(x), 'batch 2 after resume');
    assert.deepEqual(podCounts(snap), { [V1]: [5, 5], [V2]: [5, 5] });
    finish(s);
  });

  it('aborts mid-release: every pod back on the stable revision and the Deployment healthy', async () => {
    const s = await started('abort');
    await s.setImage(V2);
    await s.reconcileUntil((x) => x.state.release?.stepState === 'StepPaused', 'batch 1');
    await s.command({ type: 'approve' });
    await s.reconcileUntil((x) => (x.pods[V2]?.total ?? 0) >= 3, 'batch 2 under way');
    await s.command({ type: 'abort' });
    const snap = await s.reconcileUntil((x) => x.state.phase === 'Aborted', 'the abort');
    assert.deepEqual(podCounts(snap), { [V1]: [10, 10] });
    assertHealthyAt(snap, V1);
    finish(s);
  });

  it('undoes to an earlier revision after a completed release', async () => {
    const s = await started('undo', { steps: [{ replicas: '50%', pause: { duration: 0 } }, { replicas: '100%' }] });
    await s.setImage(V2);
    await s.reconcileUntil((x) => x.state.phase === 'Completed', 'the release');
    await s.command({ type: 'undo', toRevision: 1 });
    const snap = await s.reconcileUntil((x) => x.state.phase === 'Completed' && x.state.lastRelease?.kind === 'undo', 'the undo');
    assert.deepEqual(podCounts(snap), { [V1]: [10, 10] });
    assertHealthyAt(snap, V1);
    finish(s);
  });

  it('fails a batch whose pods never become ready at its deadline instead of hanging', async () => {
    const s = await started('deadline', { replicas: 4, spec: { progressDeadlineSeconds: 4 } });
    await s.setTemplate(V2, { [NEVER_READY_LABEL]: 'true' });
    const snap = await s.reconcileUntil((x) => x.state.phase === 'Failed', 'the deadline', 30_000);
    assert.match(snap.state.message, /did not become ready within 4s/);
    assert.equal(snap.pods[V2]?.ready ?? 0, 0);
    assert.ok((snap.pods[V1]?.ready ?? 0) >= 3, 'at most one stable pod gone, within the maxUnavailable budget');
    finish(s);
  });

  it('rolls back to stable when a batch fails and rollbackOnFailure is set', async () => {
    const s = await started('rollback', { replicas: 4, spec: { progressDeadlineSeconds: 4, rollbackOnFailure: true } });
    await s.setTemplate(V2, { [NEVER_READY_LABEL]: 'true' });
    const snap = await s.reconcileUntil((x) => x.state.phase === 'Failed' && x.state.release === null, 'the automatic rollback', 40_000);
    assert.deepEqual(podCounts(snap), { [V1]: [4, 4] });
    assertHealthyAt(snap, V1);
    finish(s);
  });

  it('Partition: a foreign ReplicaSet holding the name of the new one makes the rollout Degraded with the reason; once it is gone the release goes on', async () => {
    const s = await started('collision', { deploymentStrategy: 'Partition' });
    await s.setImage(V2);
    const live = await engine.client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: s.namespace, name: 'web' });
    const name = `web-${revisionId(templateOf(live as KubeObject))}`;
    const labels = { app: 'someone-else' };
    await s.apps.createNamespacedReplicaSet({ namespace: s.namespace, body: { metadata: { name, labels }, spec: { replicas: 0, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'x', image: 'registry.invalid/x:1' }] } } } } });
    const degraded = await s.reconcileUntil((x) => x.state.phase === 'Degraded', 'Degraded');
    assert.match(degraded.state.message, new RegExp(`ReplicaSet ${name} already exists and does not belong to Deployment web \\(name collision\\)`));
    assert.equal(degraded.pods[V2], undefined, 'nothing moved');
    await s.apps.deleteNamespacedReplicaSet({ name, namespace: s.namespace });
    const going = await s.reconcileUntil((x) => x.state.release?.stepState === 'StepPaused', 'batch 1 once the name is free');
    assert.equal(going.pods[V2]?.ready, 1);
    finish(s);
  });

  it('moves nothing while the release window is closed and advances when the (test clock) window opens', async () => {
    const window = { days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'], start: '09:00', end: '10:00', timeZone: 'UTC' };
    const s = await started('window', { spec: { releaseWindows: [window] } });
    const day = engine.clock.now().toISOString().slice(0, 10);
    engine.clock.set(`${day}T12:00:00.000Z`);
    try {
      await s.setImage(V2);
      for (let i = 0; i < 4; i += 1) {
        await s.reconcile();
        await sleep(300);
      }
      const closed = await s.snapshot();
      assert.equal(closed.pods[V2], undefined, 'no pod moved outside the window');
      assert.match(closed.state.message, /outside the release windows; next opens at/);
      engine.clock.set(new Date(Date.parse(`${day}T09:00:00.000Z`) + 86_400_000));
      const open = await s.reconcileUntil((x) => x.state.release?.stepState === 'StepPaused', 'batch 1 once the window opened');
      assert.deepEqual(podCounts(open), { [V1]: [9, 9], [V2]: [1, 1] });
    } finally {
      engine.clock.offsetMs = 0;
    }
    finish(s);
  });
});


/** spec.replicas of the ReplicaSets whose template runs `image`. */
function newReplicas(s: Snapshot, image: string): number {
  return s.replicaSets.filter((r) => r.spec?.template?.spec?.containers[0]?.image === image).reduce((n, r) => n + (r.spec?.replicas ?? 0), 0);
}

function replicaSpecs(s: Snapshot): Record<string, number> {
  return Object.fromEntries(s.replicaSets.map((r) => [r.metadata?.name ?? '', r.spec?.replicas ?? 0]));
}

function assertHealthyAt(s: Snapshot, image: string): void {
  const replicas = s.deployment.spec?.replicas ?? 0;
  assert.equal(s.deployment.spec?.template.spec?.containers[0]?.image, image, 'the pod template is the stable one');
  assert.equal(s.deployment.status?.availableReplicas, replicas, 'all replicas available');
  assert.equal(activeReplicaSets(s).length, 1);
  assert.equal(s.deployment.spec?.paused, true, 'held for the next release');
  assert.equal(s.deployment.spec?.strategy?.type, 'RollingUpdate');
}
