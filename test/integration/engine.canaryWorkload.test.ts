// Kruise's `enableExtraWorkloadForCanary: true` on the real control plane (kube-apiserver,
// kube-controller-manager, kwok), moved only through reconcile as the product's RBAC role: a v1beta1
// Rollout with steps [1 pod, 50%, 100%] and patchPodTemplateMetadata; each step's pods (1, 2, 4) in the
// `web-canary` Deployment while the user's Deployment stays paused on its stable pods; completion
// hands the user's Deployment back on the new image and deletes the canary; an abort and a deleted
// Rollout remove the canary and leave the user's Deployment as it was (shared/workloads/deployment/canaryWrites.ts).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { Engine, Scenario, CLUSTER, sleep, type Snapshot } from '../../bench/testbed/engine.ts';
import { KRUISE_API_VERSION, parseRollout } from '../../shared/rollout/spec.ts';
import { bindCanaryRole } from '../support/hooksRbac.ts';

const V1 = 'registry.invalid/web:v1';
const V2 = 'registry.invalid/web:v2';
const N = 4;
/** The user's own strategy and minReadySeconds: what must come back exactly. */
const USER_STRATEGY = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } };

interface CanarySnapshot extends Snapshot {
  canary: V1Deployment | null;
  /** Live pods, by owner: the canary Deployment's ReplicaSets or the user's. */
  canaryPods: V1Pod[];
  userPods: V1Pod[];
}

describe('a canary-Deployment release (Kruise enableExtraWorkloadForCanary) on the real control plane', () => {
  let engine: Engine;
  before(async () => { engine = await Engine.start(); });
  after(async () => { await engine?.stop(); });

  /** Namespace, Deployment `web` (N pods of V1, the user's strategy) and the Kruise v1beta1 Rollout, held at rest. */
  async function started(prefix: string, opts: { canaryRole?: boolean } = {}): Promise<{ s: Scenario; atRest: V1Deployment }> {
    const namespace = await engine.cluster.createNamespace(prefix);
    // The operator binds serverless-rollouts-canary where Rollouts use the canary style (infra/k8s/rollouts-rbac.yaml).
    if (opts.canaryRole !== false) await bindCanaryRole(engine.cluster.admin, namespace);
    await engine.cluster.createDeployment(namespace, 'web', { replicas: N, image: V1, strategy: USER_STRATEGY, minReadySeconds: 1 });
    const s = new Scenario(engine, namespace);
    await s.waitForPods(V1, N);
    const doc = {
      apiVersion: KRUISE_API_VERSION,
      kind: 'Rollout',
      metadata: { name: 'web', namespace },
      spec: {
        workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        strategy: {
          canary: {
            enableExtraWorkloadForCanary: true,
            steps: [{ replicas: 1 }, { replicas: '50%' }, { replicas: '100%' }],
            patchPodTemplateMetadata: { labels: { track: 'canary' }, annotations: { 'example.com/canary': 'yes' } },
          },
        },
      },
    };
    await engine.store.putSpec(s.key, parseRollout(doc, { cluster: CLUSTER }), doc, 0);
    const held = await s.reconcileUntil((x) => x.deployment.spec?.paused === true && x.state.phase === 'Healthy', 'the Deployment to be held');
    return { s, atRest: held.deployment };
  }

  async function snapshot(s: Scenario): Promise<CanarySnapshot> {
    const [snap, deployments, pods] = await Promise.all([
      s.snapshot(),
      s.apps.listNamespacedDeployment({ namespace: s.namespace }),
      s.core.listNamespacedPod({ namespace: s.namespace }),
    ]);
    const canary = deployments.items.find((d) => d.metadata?.name === 'web-canary') ?? null;
    const ownerOf = (p: V1Pod) => p.metadata?.ownerReferences?.find((o) => o.controller)?.name ?? '';
    const live = pods.items.filter((p) => !p.metadata?.deletionTimestamp);
    const canaryRs = new Set(snap.replicaSets.filter((rs) => rs.metadata?.ownerReferences?.some((o) => o.name === 'web-canary')).map((rs) => rs.metadata?.name));
    return { ...snap, canary, canaryPods: live.filter((p) => canaryRs.has(ownerOf(p))), userPods: live.filter((p) => !canaryRs.has(ownerOf(p))) };
  }

  async function until(s: Scenario, done: (x: CanarySnapshot) => boolean, what: string, timeoutMs = 60_000): Promise<CanarySnapshot> {
    const deadline = Date.now() + timeoutMs;
    let last: CanarySnapshot | null = null;
    while (Date.now() < deadline) {
      const r = await s.reconcile();
      last = await snapshot(s);
      if (done(last)) return last;
      await sleep(Math.min(500, (r.requeueSeconds ?? 0.5) * 1000));
    }
    throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last && { phase: last.state.phase, message: last.state.message, canary: last.canary?.spec?.replicas, pods: last.pods })}`);
  }

  /** The client's objects are class instances: compare their JSON with plain expectations. */
  const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v ?? null));
  const ready = (pods: V1Pod[]) => pods.filter((p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
  const imageOf = (p: V1Pod) => p.spec?.containers[0]?.image;
  const ourAnnotations = (d: V1Deployment) => Object.keys(d.metadata?.annotations ?? {}).filter((k) => k.startsWith('rollouts.'));

  /** At a step's pause: the canary has `k` Ready pods of V2 (with the patched metadata), the user's Deployment is untouched on N pods of V1. */
  function assertStep(x: CanarySnapshot, k: number, atRest: V1Deployment): void {
    assert.equal(x.canary?.spec?.replicas, k, `the canary Deployment asks for ${k}`);
    assert.equal(ready(x.canaryPods), k);
    assert.ok(x.canaryPods.every((p) => imageOf(p) === V2 && p.metadata?.labels?.track === 'canary' && p.metadata?.annotations?.['example.com/canary'] === 'yes'), 'canary pods: the new image and patchPodTemplateMetadata');
    assert.equal(x.deployment.spec?.paused, true, 'the user\'s Deployment stays paused');
    assert.deepEqual(x.deployment.spec?.strategy, atRest.spec?.strategy);
    assert.equal(x.deployment.spec?.replicas, N);
    assert.deepEqual(ourAnnotations(x.deployment), [], 'no annotation of ours on the user\'s Deployment');
    assert.equal(x.userPods.length, N);
    assert.ok(x.userPods.every((p) => imageOf(p) === V1 && p.metadata?.labels?.track === undefined), 'the user\'s pods: all stable, none patched');
    assert.equal(x.replicaSets.filter((rs) => rs.metadata?.ownerReferences?.some((o) => o.name === 'web') && (rs.spec?.replicas ?? 0) > 0).length, 1, 'one active ReplicaSet of the user\'s');
  }

  it('runs each step in the canary Deployment, then hands the user\'s Deployment back on the new image and deletes the canary', async () => {
    const { s, atRest } = await started('canary-release');
    const stableUids = (await snapshot(s)).userPods.map((p) => p.metadata?.uid).sort();
    await s.setImage(V2);

    let x = await until(s, (y) => y.state.release?.stepIndex === 0 && y.state.release.stepState === 'StepPaused', 'step 1 at its pause');
    assertStep(x, 1, atRest);
    assert.deepEqual(plain(x.canary?.metadata?.labels), { 'rollouts.kruise.io/canary-deployment': 'web' });
    assert.deepEqual(plain(x.canary?.spec?.strategy), USER_STRATEGY, 'the canary runs with the user\'s strategy');
    assert.deepEqual(x.userPods.map((p) => p.metadata?.uid).sort(), stableUids, 'no stable pod was replaced');

    await s.command({ type: 'approve' });
    x = await until(s, (y) => y.state.release?.stepIndex === 1 && y.state.release.stepState === 'StepPaused', 'step 2 at its pause');
    assertStep(x, 2, atRest);

    await s.command({ type: 'approve' });
    // The last step (100%) is a batch of the canary too, before the user's Deployment rolls.
    let lastBatch = 0;
    let pausedWhileCanaryGrew = true;
    x = await until(s, (y) => {
      if ((y.canary?.spec?.replicas ?? 0) > lastBatch) lastBatch = y.canary?.spec?.replicas ?? 0;
      // A canary scaled to 0 is on its way out (the user's Deployment has rolled by then).
      if ((y.canary?.spec?.replicas ?? 0) > 0 && ready(y.canaryPods) < N && y.deployment.spec?.paused !== true) pausedWhileCanaryGrew = false;
      return y.state.phase === 'Completed';
    }, 'the release to complete', 90_000);
    assert.equal(lastBatch, N, 'the canary Deployment reached the 100% step');
    assert.ok(pausedWhileCanaryGrew, 'the user\'s Deployment stayed paused until the canary had all N pods Ready');
    assert.equal(x.canary, null, 'the canary Deployment is deleted');
    const d = x.deployment;
    assert.equal(d.spec?.template?.spec?.containers[0]?.image, V2);
    assert.deepEqual(plain(d.spec?.strategy), USER_STRATEGY, 'the user\'s strategy, never changed');
    assert.equal(d.spec?.minReadySeconds, 1);
    assert.equal(d.spec?.paused, true, 'held again at rest, as after any release');
    assert.deepEqual(ourAnnotations(d), []);
    assert.equal(d.metadata?.annotations?.['deployment.kubernetes.io/revision'], '2', 'the native controller rolled it');
    assert.equal(d.status?.updatedReplicas, N);
    assert.equal(d.status?.availableReplicas, N);
    assert.equal(x.userPods.length, N);
    assert.ok(x.userPods.every((p) => imageOf(p) === V2 && p.metadata?.labels?.track === undefined), 'the user\'s pods on V2, without the canary\'s metadata');
    assert.ok(engine.events.events.some((e) => e.rollout.namespace === s.namespace && e.type === 'Release Completed'));
  });

  it('aborts mid-release: the canary Deployment is deleted and the user\'s Deployment is exactly as before, its pods never replaced', async () => {
    const { s, atRest } = await started('canary-abort');
    const stableUids = (await snapshot(s)).userPods.map((p) => p.metadata?.uid).sort();
    await s.setImage(V2);
    await until(s, (y) => y.state.release?.stepIndex === 0 && y.state.release.stepState === 'StepPaused', 'step 1 at its pause');
    await s.command({ type: 'approve' });
    await until(s, (y) => (y.canary?.spec?.replicas ?? 0) === 2, 'step 2 under way');
    await s.command({ type: 'abort' });
    const x = await until(s, (y) => y.state.phase === 'Aborted' && y.canaryPods.length === 0, 'the abort');
    assert.equal(x.canary, null, 'the canary Deployment is deleted');
    assert.deepEqual(x.deployment.spec, atRest.spec, 'the user\'s Deployment spec as it was at rest before the release');
    assert.deepEqual(ourAnnotations(x.deployment), []);
    assert.deepEqual(x.userPods.map((p) => p.metadata?.uid).sort(), stableUids, 'the stable pods were never replaced');
    assert.equal(ready(x.userPods), N);
  });

  it('without the serverless-rollouts-canary role bound in the namespace, the release stops at its first step naming the forbidden create, and the user\'s Deployment keeps its pods', async () => {
    const { s, atRest } = await started('canary-norole', { canaryRole: false });
    const stableUids = (await snapshot(s)).userPods.map((p) => p.metadata?.uid).sort();
    await s.setImage(V2);
    const x = await until(s, (y) => /forbidden/i.test(y.state.message ?? ''), 'the forbidden create named in the rollout\'s message');
    assert.match(x.state.message ?? '', /deployments/, 'the message names the resource');
    assert.equal(x.canary, null, 'no canary Deployment');
    assert.equal(x.deployment.spec?.paused, true, 'the user\'s Deployment stays held');
    assert.deepEqual(x.deployment.spec?.strategy, atRest.spec?.strategy);
    assert.deepEqual(x.userPods.map((p) => p.metadata?.uid).sort(), stableUids, 'no stable pod was replaced');
  });

  it('a Rollout deleted mid-release deletes the canary Deployment and hands the user\'s Deployment back', async () => {
    const { s } = await started('canary-delete');
    await s.setImage(V2);
    await until(s, (y) => y.state.release?.stepIndex === 0 && y.state.release.stepState === 'StepPaused', 'step 1 at its pause');
    await s.command({ type: 'delete' });
    let removed = false;
    for (let i = 0; i < 30 && !removed; i += 1) {
      removed = (await s.reconcile()).outcome === 'removed';
      if (!removed) await sleep(300);
    }
    assert.ok(removed, 'the rollout was removed');
    const x = await snapshot(s);
    assert.equal(x.canary, null, 'the canary Deployment is deleted');
    assert.notEqual(x.deployment.spec?.paused, true, 'handed back unpaused: its own controller rolls the template the user set');
    assert.deepEqual(plain(x.deployment.spec?.strategy), USER_STRATEGY);
    assert.deepEqual(ourAnnotations(x.deployment), []);
  });
});
