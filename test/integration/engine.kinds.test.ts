// Every workload kind of the registry, released [1, 50%, 100%] with approvals on the real control
// plane — kube-controller-manager for Deployment, StatefulSet and DaemonSet, the real kruise-manager
// v1.8.3 for CloneSet, Advanced StatefulSet and Advanced DaemonSet — driven only through reconcile,
// as the product's least-privilege user. Six replicas (six nodes for the DaemonSets): 1 → 3 → 6.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { WORKLOAD_KINDS, type WorkloadKind } from '../../shared/rollout/workloadKinds.ts';
import { Engine, sleep, type KindScenario, type KindSnapshot } from '../support/engine.ts';
import { PodInvariantWatcher } from '../support/podInvariants.ts';
import { ourAnnotations, strategyOf, tags } from '../support/workloads.ts';

const STEPS = [{ replicas: 1 }, { replicas: '50%' }, { replicas: '100%' }];
const V2 = 'registry.invalid/web:v2';
const V3 = 'registry.invalid/web:v3';
/** What each kind's own maxUnavailable allows at N = 6 with its defaults (CloneSet: 20%, rounded up). */
const MAX_UNAVAILABLE: Record<WorkloadKind, number> = { Deployment: 1, StatefulSet: 1, DaemonSet: 1, CloneSet: 2, AdvancedStatefulSet: 1, AdvancedDaemonSet: 1 };

const paused = (x: KindSnapshot, step: number) => x.state.release?.stepIndex === step && x.state.release.stepState === 'StepPaused';

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
        snap = await s.reconcileUntil((x) => paused(x, 0), 'batch 1 ready');
        assert.deepEqual(tags(snap), { v1: 5, v2: 1 });
        for (let i = 0; i < 3; i += 1) {
          const r = await s.reconcile();
          assert.equal(r.writes, 0, 'nothing advances without approval');
          assert.equal(r.counts['ddb.write'], 0);
          await sleep(300);
        }
        assert.deepEqual(tags(await s.snapshot()), { v1: 5, v2: 1 });

        watcher.capPods('v2', 3);
        await s.command({ type: 'approve' });
        snap = await s.reconcileUntil((x) => paused(x, 1), 'batch 2 ready');
        assert.deepEqual(tags(snap), { v1: 3, v2: 3 });

        watcher.capPods('v2', 6);
        await s.command({ type: 'approve' });
        snap = await s.reconcileUntil((x) => x.state.phase === 'Completed' && Object.values(x.pods).every((p) => p.ready), 'the release to complete');
        assert.deepEqual(tags(snap), { v2: 6 });
        const stable = snap.state.stableRevision;

        watcher.capPods('v3', 1);
        await s.workload.setImage(V3);
        snap = await s.reconcileUntil((x) => paused(x, 0), 'batch 1 of the next release ready');
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
});
