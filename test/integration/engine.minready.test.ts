// Issue 10 acceptance for the contract the MinReadySeconds strategy keeps on the Deployment, and for
// "Available, not Ready" in both strategies, on the real control plane through reconcile:
//  - the rollouts.kruise.io/original-* annotations tampered mid-release → Degraded naming the
//    annotation, nothing moves; repaired → it continues; abort → the user's fields come back;
//  - with minReadySeconds 5, a batch is not done and its timed pause does not start until the
//    updated pods have been Ready for 5 s (ordering of the events and the pods' Ready times).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, sleep, type Scenario, type Snapshot } from '../../bench/testbed/engine.ts';
import { Kubectl } from '../support/kubectl.ts';
import { EVENT } from '../../shared/rollout/events.ts';
import { ORIGINAL_ANNOTATIONS, ORIGINAL_MAX_SURGE } from '../../shared/workloads/deployment/originals.ts';
import type { DeploymentStrategy } from '../../shared/rollout/types.ts';

const V1 = 'registry.invalid/web:v1';
const V2 = 'registry.invalid/web:v2';

describe('the MinReadySeconds contract and Available pods', () => {
  let engine: Engine;
  before(async () => { engine = await Engine.start(); });
  after(async () => { await engine?.stop(); });

  it('a tampered original-* annotation makes the rollout Degraded, naming it; repaired, the release goes on; abort restores the fields', async () => {
    const s = await engine.scenario('tamper');
    const watcher = await s.watch();
    await s.reconcileUntil((x) => x.deployment.spec?.paused === true && x.state.phase === 'Healthy', 'the Deployment to be held');
    await s.setImage(V2);
    const paused = await s.reconcileUntil((x) => x.state.release?.stepState === 'StepPaused', 'batch 1');
    const saved = paused.deployment.metadata?.annotations?.[ORIGINAL_MAX_SURGE];
    assert.equal(saved, '25%');
    const kubectl = new Kubectl(engine.cluster.admin, s.namespace);

    await kubectl.patchMerge('web', { metadata: { annotations: { [ORIGINAL_MAX_SURGE]: 'lots' } } });
    const degraded = await s.reconcileUntil((x) => x.state.phase === 'Degraded', 'Degraded');
    assert.match(degraded.state.message, /annotation rollouts\.kruise\.io\/original-max-surge is "lots"/);
    await s.command({ type: 'approve' });
    for (let i = 0; i < 3; i += 1) {
      const r = await s.reconcile();
      assert.equal(r.writes, 0, 'a Degraded rollout touches nothing');
      await sleep(200);
    }
    await kubectl.patchMerge('web', { metadata: { annotations: { [ORIGINAL_MAX_SURGE]: null } } });
    const missing = await s.reconcileUntil((x) => /original-max-surge is missing/.test(x.state.message), 'the missing annotation reported');
    assert.equal(missing.state.phase, 'Degraded');

    await kubectl.patchMerge('web', { metadata: { annotations: { [ORIGINAL_MAX_SURGE]: saved } } });
    const resumed = await s.reconcileUntil((x) => x.state.release?.stepIndex === 1 && x.state.release.stepState === 'StepPaused', 'batch 2 after the repair (the approval was kept)');
    assert.equal(resumed.pods[V2]?.ready, 5);
    assert.ok(engine.events.events.some((e) => e.rollout.namespace === s.namespace && e.type === EVENT.Recovered));

    await s.command({ type: 'abort' });
    const aborted = await s.reconcileUntil((x) => x.state.phase === 'Aborted', 'the abort');
    assert.deepEqual(Object.keys(aborted.pods), [V1]);
    assertFieldsRestored(aborted);
    watcher.stop();
    watcher.assertClean();
  });

  for (const strategy of ['MinReadySeconds', 'Partition'] as DeploymentStrategy[]) {
    it(`${strategy}: with minReadySeconds 5 a batch is done, and its timed pause starts, only once its pods have been Ready 5 s`, async () => {
      const s = await engine.scenario(`ready5-${strategy.toLowerCase()}`, {
        replicas: 4, minReadySeconds: 5, deploymentStrategy: strategy,
        steps: [{ replicas: 1, pause: { duration: 2 } }, { replicas: '100%' }],
      });
      const watcher = await s.watch();
      await s.reconcileUntil((x) => x.deployment.spec?.paused === true && x.state.phase === 'Healthy', 'the Deployment to be held', 90_000);
      await s.setImage(V2);
      const first = engine.events.events.length;
      await s.reconcileUntil((x) => x.state.release?.stepIndex === 1 || x.state.phase === 'Completed', 'step 2 to start', 90_000);
      const mine = engine.events.events.slice(first).filter((e) => e.rollout.namespace === s.namespace);
      const batchReady = mine.find((e) => e.type === EVENT.BatchReady && e.stepIndex === 0);
      const next = mine.find((e) => e.type === EVENT.StepStarted && e.stepIndex === 1);
      assert.ok(batchReady && next, JSON.stringify(mine.map((e) => e.type)));
      const readyFor = await newPodReadySince(s);
      assert.ok(Date.parse(batchReady.at) >= readyFor + 5000, `batch 1 ready at ${batchReady.at}, its pod Ready since ${new Date(readyFor).toISOString()}: not before 5 s`);
      assert.ok(Date.parse(next.at) >= Date.parse(batchReady.at) + 2000, 'the 2 s pause counts from the batch being Available');
      await s.reconcileUntil((x) => x.state.phase === 'Completed', 'the release to complete', 90_000);
      watcher.stop();
      watcher.assertClean();
    });
  }
});

/** Ready lastTransitionTime of the oldest pod of V2 (batch 1's pod), from the apiserver. */
async function newPodReadySince(s: Scenario): Promise<number> {
  const pods = (await s.core.listNamespacedPod({ namespace: s.namespace })).items.filter((p) => p.spec?.containers[0]?.image === V2);
  const times = pods.map((p) => p.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'True')?.lastTransitionTime?.getTime() ?? Number.POSITIVE_INFINITY);
  return Math.min(...times);
}

function assertFieldsRestored(x: Snapshot): void {
  const d = x.deployment;
  assert.deepEqual({ ...d.spec?.strategy?.rollingUpdate }, { maxSurge: '25%', maxUnavailable: '25%' });
  assert.equal(d.spec?.minReadySeconds ?? 0, 0);
  assert.equal(d.spec?.progressDeadlineSeconds, 600);
  assert.equal(d.spec?.paused, true);
  for (const a of ORIGINAL_ANNOTATIONS) assert.equal(d.metadata?.annotations?.[a], undefined);
}
