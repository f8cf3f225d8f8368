// Issue 10 acceptance: for both Deployment strategies, a 10-replica Deployment released
// [1, 50%, 100%] with approvals lands exactly 1, 5 and 10 pods on the new revision, whatever its
// maxSurge/maxUnavailable (25%/25%, 0/1, 3/0), with the invariant watcher (truly Available pods
// never below the user's budget, never more pods than N + maxSurge, never Recreate) running
// throughout. Driven only through reconcile on the real control plane and DynamoDB.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeReplicaSets, Engine, sleep, type Scenario, type Snapshot } from '../../bench/testbed/engine.ts';
import { ORIGINAL_STRATEGY } from '../../shared/workloads/deployment/deploymentObjects.ts';
import { ORIGINAL_ANNOTATIONS } from '../../shared/workloads/deployment/originals.ts';
import type { DeploymentStrategy } from '../../shared/rollout/types.ts';

const V1 = 'registry.invalid/web:v1';
const V2 = 'registry.invalid/web:v2';

const BUDGETS: { name: string; maxSurge: number | string; maxUnavailable: number | string; surplus: number }[] = [
  { name: '25%/25%', maxSurge: '25%', maxUnavailable: '25%', surplus: 0 },
  { name: '0/1', maxSurge: 0, maxUnavailable: 1, surplus: 0 },
  // A user who allows no unavailability: the MinReadySeconds strategy keeps one old pod of surge
  // while a step pauses (0/0 is not a valid budget), and truly Available pods never drop below 10.
  { name: '3/0', maxSurge: 3, maxUnavailable: 0, surplus: 1 },
];

// One control plane for the file: every scenario has a namespace of its own (Engine.scenario).
let engine: Engine;
before(async () => { engine = await Engine.start(); });
after(async () => { await engine?.stop(); });

describe('exact batches whatever the Deployment\'s budget, in both strategies', () => {
  for (const strategy of ['MinReadySeconds', 'Partition'] as DeploymentStrategy[]) {
    for (const budget of BUDGETS) {
      it(`${strategy}, maxSurge/maxUnavailable ${budget.name}: exactly 1, 5 and 10 new pods, within the user's budget`, async () => {
        const s = await engine.scenario(`${strategy.toLowerCase()}-${budget.name.replace(/[^0-9]/g, '')}`, {
          deploymentStrategy: strategy,
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: budget.maxSurge, maxUnavailable: budget.maxUnavailable } },
        });
        const watcher = await s.watch({ surgeAllowance: strategy === 'Partition' && budget.maxSurge === 0 });
        await s.reconcileUntil((x) => x.deployment.spec?.paused === true && x.state.phase === 'Healthy', 'the Deployment to be held');
        await s.setImage(V2);

        const surplus = strategy === 'MinReadySeconds' ? budget.surplus : 0;
        for (const [i, batch] of [1, 5].entries()) {
          watcher.capPods(V2, batch);
          if (i > 0) await s.command({ type: 'approve' });
          // A complete MinReadySeconds batch pauses the Deployment: nothing moves until the next one.
          const resting = (x: Snapshot) => strategy !== 'MinReadySeconds' || x.deployment.spec?.paused === true;
          const snap = await s.reconcileUntil((x) => atPause(x, i) && settled(x, batch, 10 - batch + surplus) && resting(x), `batch ${i + 1} settled at ${batch}`);
          assert.equal(snap.pods[V2]?.ready, batch, `exactly ${batch} pods of the new revision`);
          await assertQuiet(s);
        }
        watcher.capPods(V2, 10);
        await s.command({ type: 'approve' });
        const done = await s.reconcileUntil((x) => x.state.phase === 'Completed', 'the release to complete');
        assert.deepEqual(Object.keys(done.pods), [V2]);
        assert.equal(done.pods[V2]?.ready, 10);
        assertHandedBack(done, budget);
        if (budget.name === '3/0') assert.equal(watcher.minAvailable, 10, 'with maxUnavailable 0, never fewer than 10 truly Available pods');
        watcher.stop();
        watcher.assertClean();
      });
    }
  }
});

describe('a new image mid-release, Partition strategy (soak)', () => {
  it('restarts from step 1 without ever leaving the stable ReplicaSet alone for the native controller to size to N', async () => {
    const s = await engine.scenario('partition-restart', {
      replicas: 5, deploymentStrategy: 'Partition',
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } },
    });
    const watcher = await s.watch({ surgeAllowance: true });
    await s.reconcileUntil((x) => x.deployment.spec?.paused === true && x.state.phase === 'Healthy', 'the Deployment to be held');
    await s.setImage(V2);
    watcher.capPods(V2, 1);
    await s.reconcileUntil((x) => atPause(x, 0) && (x.pods[V2]?.ready ?? 0) === 1, 'step 1 of the first image');
    const V3 = 'registry.invalid/web:v3';
    watcher.capPods(V3, 1);
    await s.setImage(V3);
    const restarted = await s.reconcileUntil((x) => atPause(x, 0) && (x.pods[V3]?.ready ?? 0) === 1 && (x.pods[V2]?.total ?? 0) === 0 && (x.pods[V1]?.ready ?? 0) === 4, 'step 1 of the second image');
    assert.deepEqual(activeReplicaSets(restarted).map((rs) => rs.spec?.replicas).sort(), [1, 4], 'the stable ReplicaSet keeps 4, the new one has 1');
    await assertQuiet(s);
    watcher.stop();
    watcher.assertClean();
  });
});

function atPause(x: Snapshot, stepIndex: number): boolean {
  return x.state.release?.stepIndex === stepIndex && x.state.release.stepState === 'StepPaused';
}

/** `batch` ready pods of the new revision and `old` of the old one, none terminating. */
function settled(x: Snapshot, batch: number, old: number): boolean {
  return (x.pods[V2]?.ready ?? 0) === batch && (x.pods[V2]?.total ?? 0) === batch && (x.pods[V1]?.total ?? 0) === old && (x.pods[V1]?.ready ?? 0) === old;
}

/** Waiting for approval, the cluster stops changing: reconciles write nothing to it. */
async function assertQuiet(s: Scenario): Promise<void> {
  for (let i = 0; i < 3; i += 1) {
    const r = await s.reconcile();
    assert.equal(r.writes, 0, 'a release waiting for approval writes nothing');
    assert.equal(r.counts['ddb.write'], 0);
    await sleep(200);
  }
}

function assertHandedBack(x: Snapshot, budget: { maxSurge: number | string; maxUnavailable: number | string }): void {
  const d = x.deployment;
  assert.equal(d.spec?.paused, true, 'held again for the next release');
  assert.equal(d.spec?.strategy?.type, 'RollingUpdate');
  assert.deepEqual({ ...d.spec?.strategy?.rollingUpdate }, { maxSurge: budget.maxSurge, maxUnavailable: budget.maxUnavailable }, 'the user\'s budget is back');
  assert.equal(d.spec?.minReadySeconds ?? 0, 0, 'minReadySeconds as the user had it (unset)');
  assert.equal(d.spec?.progressDeadlineSeconds, 600, 'progressDeadlineSeconds as the user had it (the default)');
  for (const a of [...ORIGINAL_ANNOTATIONS, ORIGINAL_STRATEGY]) assert.equal(d.metadata?.annotations?.[a], undefined, `no ${a} left`);
  assert.equal(activeReplicaSets(x).length, 1, 'exactly one active ReplicaSet');
  assert.equal(x.replicaSets.length, 2, 'no extra ReplicaSet');
}
