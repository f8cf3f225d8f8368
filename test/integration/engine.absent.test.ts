// Issue 10 acceptance, "the reconciler is absent mid-release": reconciles stop between two batches
// (the release waits for approval after batch 1), then someone acts on the Deployment with the
// request kubectl (or a GitOps sync) sends. The invariant watcher checks, at every event, that truly
// Available pods (Ready for the user's ORIGINAL minReadySeconds) never fall below the user's budget
// and that nothing behaves like Recreate. When reconciles resume, the release converges.
// The MinReadySeconds strategy (the default); the Partition strategy's hand-back on deletion and its
// admission policy against an unpause on Recreate (infra/k8s/rollouts-rbac.yaml) too.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { activeReplicaSets, Engine, sleep, type RolloutOptions, type Scenario, type Snapshot } from '../../bench/testbed/engine.ts';
import { Kubectl } from '../support/kubectl.ts';
import type { InvariantWatcher } from '../../bench/testbed/invariants.ts';
import { ORIGINAL_ANNOTATIONS } from '../../shared/workloads/deployment/originals.ts';
import { ORIGINAL_STRATEGY } from '../../shared/workloads/deployment/deploymentObjects.ts';
import { EVENT } from '../../shared/rollout/events.ts';

const V1 = 'registry.invalid/web:v1';
const V2 = 'registry.invalid/web:v2';
const V3 = 'registry.invalid/web:v3';
/** How long nothing reconciles while the native controller does whatever the change makes it do. */
const ABSENT_MS = 4000;

describe('the reconciler absent between two batches', () => {
  let engine: Engine;
  before(async () => { engine = await Engine.start(); });
  after(async () => { await engine?.stop(); });

  /** A release of V2 waiting for approval after batch 1 (1 of 10 new), watched from the start. */
  async function atFirstPause(prefix: string, opts: RolloutOptions = {}): Promise<{ s: Scenario; watcher: InvariantWatcher; kubectl: Kubectl }> {
    const s = await engine.scenario(prefix, opts);
    // Handed back (or resumed by someone), the native controller moves pods: that is not ours to forbid here.
    const watcher = await s.watch({ partition: false });
    await s.reconcileUntil((x) => x.deployment.spec?.paused === true && x.state.phase === 'Healthy', 'the Deployment to be held');
    await s.setImage(V2);
    await s.reconcileUntil((x) => x.state.release?.stepState === 'StepPaused' && (x.pods[V1]?.total ?? 0) === 9 && (x.pods[V2]?.ready ?? 0) === 1, 'batch 1 settled');
    return { s, watcher, kubectl: new Kubectl(engine.cluster.admin, s.namespace) };
  }

  /** Reconciles resume: approve every remaining step until the release completes. */
  async function finish(s: Scenario, image: string, replicas = 10): Promise<Snapshot> {
    for (;;) {
      const snap = await s.reconcileUntil((x) => x.state.phase === 'Completed' || x.state.release?.stepState === 'StepPaused', 'the next pause or the end', 90_000);
      if (snap.state.phase === 'Completed') {
        assert.deepEqual(Object.keys(snap.pods), [image]);
        assert.equal(snap.pods[image]?.ready, replicas);
        assertUserFields(snap, true);
        assert.equal(activeReplicaSets(snap).length, 1);
        return snap;
      }
      await s.command({ type: 'approve' });
    }
  }

  function clean(watcher: InvariantWatcher): void {
    watcher.stop();
    watcher.assertClean();
  }

  it('kubectl rollout resume: nothing to resume (the release runs unpaused), nothing moves, and it completes', async () => {
    const { s, watcher, kubectl } = await atFirstPause('absent-resume');
    await kubectl.rolloutResume('web');
    await sleep(ABSENT_MS);
    const still = await s.snapshot();
    assert.equal(still.pods[V2]?.total, 1, 'the batch stays at 1: the inflated minReadySeconds holds it');
    await finish(s, V2);
    clean(watcher);
  });

  it('kubectl set image: the controller moves at most its maxUnavailable, then the new revision is released from step 1', async () => {
    const { s, watcher, kubectl } = await atFirstPause('absent-image');
    await kubectl.setImage('web', 'app', V3);
    await sleep(ABSENT_MS);
    const moved = await s.snapshot();
    assert.ok((moved.pods[V1]?.ready ?? 0) >= 8, 'the stable pods are kept within the user\'s budget');
    await finish(s, V3);
    assert.ok(engine.events.events.some((e) => e.rollout.namespace === s.namespace && e.type === EVENT.ReleaseRestarted));
    clean(watcher);
  });

  it('the Rollout is deleted: handed back with exactly the user\'s fields, and the native controller finishes', async () => {
    const { s, watcher } = await atFirstPause('absent-delete', { minReadySeconds: 1, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: '10%' } } });
    await s.command({ type: 'delete' });
    await sleep(ABSENT_MS);
    let handedBack: Snapshot | null = null;
    for (let i = 0; i < 20 && handedBack === null; i += 1) {
      const r = await s.reconcile();
      if (r.outcome === 'removed') handedBack = await s.snapshot();
      else await sleep(300);
    }
    assert.ok(handedBack, 'the rollout was removed');
    const d = handedBack.deployment;
    assert.notEqual(d.spec?.paused, true, 'handed back unpaused, as the user had it');
    assert.deepEqual({ ...d.spec?.strategy?.rollingUpdate }, { maxSurge: 1, maxUnavailable: '10%' });
    assert.equal(d.spec?.strategy?.type, 'RollingUpdate');
    assert.equal(d.spec?.minReadySeconds, 1);
    assert.equal(d.spec?.progressDeadlineSeconds, 600);
    for (const a of ORIGINAL_ANNOTATIONS) assert.equal(d.metadata?.annotations?.[a], undefined);
    assert.equal((await engine.store.load(s.key)).spec, null);
    const done = await waitFor(s, (x) => x.deployment.status?.updatedReplicas === 10 && x.deployment.status?.availableReplicas === 10 && (x.pods[V1]?.total ?? 0) === 0, 'the native rollout to finish');
    assert.equal(done.pods[V2]?.ready, 10);
    clean(watcher);
  });

  it('kubectl scale 10 → 20: proportional scaling, no pod lost; the batch restarts against 20 and completes', async () => {
    const { s, watcher, kubectl } = await atFirstPause('absent-scale');
    await kubectl.scale('web', 20);
    await sleep(ABSENT_MS);
    const scaled = await s.snapshot();
    assert.ok((scaled.pods[V1]?.ready ?? 0) + (scaled.pods[V2]?.ready ?? 0) >= 15, 'the new replicas come up; nothing was removed');
    await finish(s, V2, 20);
    clean(watcher);
  });

  it('paused: false with a changed minReadySeconds (a GitOps sync): the native controller goes on within its budget, the release takes over again', async () => {
    const { s, watcher, kubectl } = await atFirstPause('absent-minready');
    // kubectl patch deployment web --type merge -p '{"spec":{"paused":false,"minReadySeconds":2}}'
    await kubectl.patchMerge('web', { spec: { paused: false, minReadySeconds: 2 } });
    await sleep(ABSENT_MS);
    const back = await s.reconcileUntil((x) => x.deployment.spec?.minReadySeconds === 2147483646, 'the inflated field to be put back');
    assert.equal(back.deployment.metadata?.annotations?.['rollouts.kruise.io/original-min-ready-seconds'], '__k8s_default__', 'the user\'s original stays the one restored at the end');
    await finish(s, V2);
    clean(watcher);
  });

  it('Partition strategy, kubectl rollout resume mid-release: refused by the admission policy with what to do, nothing moves, and it completes', async () => {
    const { s, watcher, kubectl } = await atFirstPause('absent-partition-resume', { deploymentStrategy: 'Partition' });
    const taken = await s.snapshot();
    assert.equal(taken.deployment.spec?.strategy?.type, 'Recreate', 'two revisions run: the Partition takeover is on');
    await assert.rejects(kubectl.rolloutResume('web'), (err: unknown) => {
      const body = String((err as { body?: unknown }).body ?? err);
      assert.match(body, /is mid-release by serverless-rollouts \(Partition strategy\).*unpausing it now would delete every old pod at once/);
      return (err as { code?: number }).code === 403;
    });
    await sleep(ABSENT_MS);
    const still = await s.snapshot();
    assert.equal(still.deployment.spec?.paused, true);
    assert.deepEqual([still.pods[V1]?.total, still.pods[V2]?.total], [9, 1], 'nothing moved');
    await finish(s, V2);
    clean(watcher);
  });

  it('Partition strategy, the Rollout deleted mid-release: the user\'s strategy comes back in the patch that unpauses, never Recreate unpaused', async () => {
    const { s, watcher } = await atFirstPause('absent-partition', { deploymentStrategy: 'Partition' });
    const taken = await s.snapshot();
    assert.equal(taken.deployment.spec?.strategy?.type, 'Recreate', 'two revisions run: the Partition takeover is on');
    await s.command({ type: 'delete' });
    let removed = false;
    for (let i = 0; i < 20 && !removed; i += 1) {
      removed = (await s.reconcile()).outcome === 'removed';
      if (!removed) await sleep(300);
    }
    assert.ok(removed);
    const done = await waitFor(s, (x) => x.deployment.status?.updatedReplicas === 10 && x.deployment.status?.availableReplicas === 10 && (x.pods[V1]?.total ?? 0) === 0, 'the native rollout to finish');
    assert.equal(done.deployment.spec?.strategy?.type, 'RollingUpdate');
    assert.equal(done.deployment.metadata?.annotations?.[ORIGINAL_STRATEGY], undefined);
    clean(watcher);
  });
});

/** The user's fields, as the scenarios create them (25%/25%, minReadySeconds and progressDeadlineSeconds unset), and no annotation of ours. */
function assertUserFields(x: Snapshot, held: boolean): void {
  const d = x.deployment;
  assert.equal(d.spec?.paused === true, held);
  assert.deepEqual({ ...d.spec?.strategy?.rollingUpdate }, { maxSurge: '25%', maxUnavailable: '25%' });
  assert.equal(d.spec?.minReadySeconds ?? 0, 0);
  assert.equal(d.spec?.progressDeadlineSeconds, 600);
  for (const a of [...ORIGINAL_ANNOTATIONS, ORIGINAL_STRATEGY]) assert.equal(d.metadata?.annotations?.[a], undefined);
}

/** Without reconciling: the native controller alone. */
async function waitFor(s: Scenario, done: (x: Snapshot) => boolean, what: string, timeoutMs = 60_000): Promise<Snapshot> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const snap = await s.snapshotWithoutState();
    if (done(snap)) return snap;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(snap.pods)}`);
    await sleep(300);
  }
}
