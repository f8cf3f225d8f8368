// The soak's example sequences of issue 23, replayed step by step on the real control plane with a
// deliberately broken product, to show the invariant watchers (bench/testbed/invariants.ts) flag
// what they exist for. The product runs unchanged; its cluster client is wrapped by
// bench/testbed/brokenProduct.ts (the test-only seam: the ClusterProvider of its ReconcileDeps),
// which adds one fault of behaviour to what the product writes. Each test passes only if the
// watcher reports the breach the broken product made.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { handleApiRequest } from '../../shared/api/handleApiRequest.ts';
import { LocalKeyedQueue } from '../../shared/adapters/local/keyedQueue.ts';
import { reconcileWorker } from '../../shared/local/adapters.ts';
import { BrokenProduct } from '../../bench/testbed/brokenProduct.ts';
import { CLUSTER, Engine, type Scenario, type Snapshot } from '../../bench/testbed/engine.ts';
import type { InvariantWatcher } from '../../bench/testbed/invariants.ts';
import { waitFor } from '../../bench/testbed/wait.ts';

const V2 = 'registry.invalid/web:v2';
const STEPS = [{ replicas: 1, pause: {} }, { replicas: '50%', pause: {} }, { replicas: '100%' }];

function atPause(x: Snapshot, stepIndex: number): boolean {
  return x.state.release?.stepIndex === stepIndex && x.state.release.stepState === 'StepPaused';
}

describe('the soak\'s watchers flag a deliberately broken product (issue 23 replays)', () => {
  let engine: Engine;
  before(async () => { engine = await Engine.start({ podReadyDelayMs: 300 }); });
  after(async () => { await engine?.stop(); });

  /** A release of V2 resting at its first pause (1 pod), watched, gated at step 1 like the soak's user does. */
  async function atFirstPause(prefix: string, opts: Parameters<Engine['scenario']>[1]): Promise<{ s: Scenario; watcher: InvariantWatcher }> {
    const s = await engine.scenario(prefix, { steps: STEPS, ...opts });
    const watcher = await s.watch({ surgeAllowance: true });
    await s.reconcileUntil((x) => x.state.phase === 'Healthy', 'adopted');
    watcher.capStep(V2, 1);
    await s.setImage(V2);
    await s.reconcileUntil((x) => atPause(x, 0) && (x.pods[V2]?.ready ?? 0) === 1, 'step 1 of V2');
    return { s, watcher };
  }

  it('a scale-up during the kube-controller-manager outage, maxUnavailable 0: old pods taken down before the new are Available are flagged', async () => {
    const { s, watcher } = await atFirstPause('replay-outage', {
      replicas: 4, deploymentStrategy: 'Partition', strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
    });
    const broken = new BrokenProduct(engine.deps().clusters, { kind: 'moveBatchNow', image: V2, namespace: s.namespace });
    await engine.cluster.stopComponent('kube-controller-manager');
    try {
      await s.scale(5); // an HPA
      watcher.capStep(V2, '50%');
      await s.command({ type: 'approve' });
      // The broken product's pass ends with a pod of the batch moved at once: nothing happens to pods while the controller is away.
      await s.reconcile({ clusters: broken, crashPoint: async (point) => { if (point === 'after-persist' && broken.added.length === 0) await broken.now(CLUSTER); } });
      assert.equal(broken.added.length, 2, 'the new ReplicaSet up one and the old one down one');
      assert.deepEqual(watcher.violations, [], 'no pod moved yet');
    } finally {
      await engine.cluster.startComponent('kube-controller-manager');
    }
    await waitFor(() => watcher.violations.length > 0, { message: 'the watcher to flag the deletion below the budget', timeoutMs: 60_000 });
    watcher.stop();
    assert.match(watcher.violations.join('\n'), /Available pod \S+ deleted while \d+ < 5 − 0 were Available|availability \d+ < 5 − 0/);
  });

  it('a refused undo keeps the approval gate: a pod the product adds afterwards without approval is flagged', async () => {
    const { s, watcher } = await atFirstPause('replay-undo', { replicas: 5, deploymentStrategy: 'Partition', strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } });
    // The user's undo, sent as the soak's user sends it (gates off if accepted), to a revision the Deployment does not retain.
    const queue = new LocalKeyedQueue(reconcileWorker(engine.deps()));
    watcher.beginCommand();
    watcher.clearCaps();
    const answer = await handleApiRequest({
      method: 'POST', path: `/v1/rollouts/${CLUSTER}/${s.namespace}/web/undo`, query: {}, headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ toRevision: 99 }), principal: 'replay',
    }, { store: engine.store, queue, clock: engine.clock, clusters: engine.deps().clusters, supportedKinds: ['Deployment'], maxBodyBytes: 256 * 1024, requireRegisteredCluster: false, clusterNames: [CLUSTER] });
    watcher.endCommand(answer.status === 202 || answer.status === 200);
    await queue.stop();
    assert.equal(answer.status, 409, answer.body);
    const broken = new BrokenProduct(engine.deps().clusters, { kind: 'extraPod', image: V2, namespace: s.namespace, replicas: 2 });
    broken.arm();
    await s.reconcile({ clusters: broken });
    assert.deepEqual(broken.added.length, 1);
    await waitFor(() => watcher.violations.length > 0, { message: 'the watcher to flag the pod without approval', timeoutMs: 30_000 });
    watcher.stop();
    assert.match(watcher.violations.join('\n'), new RegExp(`asks for 2 pods of ${V2.replaceAll('.', '\\.')}, beyond the approved 1`));
  });

  it('a third pod without approval after 5 → 3 → 5 is flagged: the controller\'s share of a 1-pod batch is at most 2', async () => {
    const { s, watcher } = await atFirstPause('replay-proportional', { replicas: 5, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } });
    const newReplicas = async () => Number((await s.snapshot()).replicaSets.find((rs) => rs.spec?.template?.spec?.containers?.[0]?.image === V2)?.spec?.replicas ?? 0);
    for (const n of [3, 5]) {
      await s.scale(n);
      await s.reconcileUntil((x) => x.deployment.status?.observedGeneration === x.deployment.metadata?.generation && x.replicaSets.reduce((a, rs) => a + Number(rs.spec?.replicas ?? 0), 0) >= n && atPause(x, 0), `scaled to ${n}`);
    }
    assert.ok(await newReplicas() <= 2, 'at most the controller\'s share of the 1-pod batch');
    await watcher.settle();
    assert.deepEqual(watcher.violations, [], 'nothing flagged while the product and the controller kept the batch');
    const broken = new BrokenProduct(engine.deps().clusters, { kind: 'extraPod', image: V2, namespace: s.namespace, replicas: 3 });
    broken.arm();
    await s.reconcile({ clusters: broken });
    await waitFor(() => watcher.violations.length > 0, { message: 'the watcher to flag the third pod', timeoutMs: 30_000 });
    watcher.stop();
    // The gate the earlier model gave (the batch plus everything the replicas regained since their fewest) was 1 + 5 − 3 = 3.
    assert.match(watcher.violations.join('\n'), new RegExp(`asks for 3 pods of ${V2.replaceAll('.', '\\.')}, beyond the approved [12] `));
  });
});
