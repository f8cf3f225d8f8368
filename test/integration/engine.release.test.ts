// Issue acceptance: a 10-replica Deployment released 1 → 50% → 100% with approval pauses, driven
// only through reconcile on the real control plane and DynamoDB, watched for invariants.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeReplicaSets, Engine, noSurplus, podCounts, settleAtPause, sleep } from '../../bench/testbed/engine.ts';
import { ORIGINAL_STRATEGY } from '../../shared/workloads/deployment/deploymentObjects.ts';

const V1 = 'registry.invalid/web:v1';
const V2 = 'registry.invalid/web:v2';

describe('a release through reconcile on the real control plane', () => {
  let engine: Engine;
  before(async () => { engine = await Engine.start(); });
  after(async () => { await engine?.stop(); });

  it('moves exactly 1, 5 and 10 pods, never advances without approval, and hands back a completed Deployment', async () => {
    const s = await engine.scenario('release');
    const watcher = await s.watch();
    await s.reconcileUntil((x) => x.deployment.spec?.paused === true && x.state.phase === 'Healthy', 'the Deployment to be held');
    await s.setImage(V2);

    let snap = await s.reconcileUntil((x) => x.state.release?.stepState === 'StepPaused' && noSurplus(x), 'batch 1 to be ready');
    assert.deepEqual(podCounts(snap), { [V1]: [9, 9], [V2]: [1, 1] });
    await settleAtPause(() => s.reconcile());

    // Nothing advances without approval: more reconciles write nothing, anywhere.
    for (let i = 0; i < 4; i += 1) {
      const r = await s.reconcile();
      assert.equal(r.writes, 0);
      assert.equal(r.counts['ddb.write'], 0);
      await sleep(300);
    }
    assert.deepEqual(podCounts(await s.snapshot()), { [V1]: [9, 9], [V2]: [1, 1] });

    await s.command({ type: 'approve' });
    snap = await s.reconcileUntil((x) => x.state.release?.stepIndex === 1 && x.state.release.stepState === 'StepPaused' && noSurplus(x), 'batch 2 to be ready');
    assert.deepEqual(podCounts(snap), { [V1]: [5, 5], [V2]: [5, 5] });

    await s.command({ type: 'approve' });
    let finalPods: string[] = [];
    snap = await s.reconcileUntil((x) => {
      if ((x.pods[V2]?.ready ?? 0) === 10 && finalPods.length === 0) finalPods = [...(x.pods[V2]?.uids ?? [])].sort();
      return x.state.phase === 'Completed';
    }, 'the release to complete');

    assert.deepEqual(podCounts(snap), { [V2]: [10, 10] });
    assert.equal(activeReplicaSets(snap).length, 1, 'exactly one active ReplicaSet');
    assert.equal(snap.replicaSets.length, 2, 'no extra ReplicaSet: the native controller adopted ours');
    assert.deepEqual([...(snap.pods[V2]?.uids ?? [])].sort(), finalPods, 'no pod was restarted by finishing');
    assert.equal(snap.deployment.spec?.paused, true, 'held again for the next release');
    assert.equal(snap.deployment.spec?.strategy?.type, 'RollingUpdate', 'the user strategy is back');
    assert.equal(snap.deployment.metadata?.annotations?.[ORIGINAL_STRATEGY], undefined);
    assert.ok(watcher.nativeCompletions > 0, 'the native controller reported the rollout complete while handed back');
    watcher.stop();
    watcher.assertClean();
  });
});

