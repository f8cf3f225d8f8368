// Issue acceptance: the reconcile pipeline is idempotent under races, on the real control plane and
// DynamoDB (dynalite). Concurrent passes of one key, a command delivered several times, a writer
// that changes a ReplicaSet between observe and apply (Kubernetes 409), and a command recorded
// between load and persist (ConditionalCheckFailed) all end with the release exactly one batch
// further and every transition recorded once.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AppsV1Api } from '@kubernetes/client-node';
import type { HistoryEntry } from '../../shared/ports.ts';
import { Engine, sleep, type Scenario, type Snapshot } from '../../bench/testbed/engine.ts';
import { mergePatch } from '../../bench/testbed/kube.ts';
import { awaitingApproval, duplicateTransitions, historyLine, releaseToFirstApproval } from '../../bench/testbed/pipeline.ts';

const V1 = 'registry.invalid/web:v1';
const V2 = 'registry.invalid/web:v2';
const TOUCHED = 'test.serverless-rollouts.io/touched';

describe('the pipeline under races', () => {
  let engine: Engine;
  before(async () => { engine = await Engine.start({ podReadyDelayMs: 100 }); });
  after(async () => { await engine?.stop(); });

  it('ten concurrent reconciles at a batch boundary advance exactly one batch and record each transition once, also interleaved', async (t) => {
    const s = await engine.scenario('concurrent'); // 10 replicas: step 2 (50%) is 5 pods
    const watcher = await s.watch();
    await releaseToFirstApproval(s, V2, 1, watcher);
    watcher.capPods(V2, 5);
    const approval = await s.command({ type: 'approve' });

    const outcomes = (await Promise.all(Array.from({ length: 10 }, () => s.reconcile()))).map((r) => r.outcome);
    t.diagnostic(`concurrent outcomes: ${outcomes.join(', ')}`);
    assert.ok(outcomes.includes('progressed'), 'one of them moves the release');

    const snap = await s.reconcileUntil((x) => awaitingApproval(x, 1), 'batch 2 to be ready');
    await assertStaysPut(s, snap);
    assert.deepEqual(pods(await s.snapshot()), { [V1]: [5, 5], [V2]: [5, 5] });
    assert.deepEqual((await s.state()).appliedCommandIds.filter((id) => id === approval), [approval]);

    const history = await engine.store.listHistory(s.key);
    assert.deepEqual(duplicateTransitions(history), []);
    assert.deepEqual(history.map(historyLine).slice(-4), [
      'r1 Step Approved step=0 Progressing: step 1 approved by test',
      'r1 Step Started step=1 Progressing: step 2 of 3 started',
      'r1 Batch Ready step=1 Progressing: step 2: 5 of 10 pods on the new revision and available',
      'r1 Awaiting Approval step=1 Progressing: step 2 is waiting for approval',
    ]);
    assertPublished(engine, s, history);

    // Again at the next boundary, with the ten passes interleaved: they start a little apart and
    // each pauses a different while at every crash point, so some load STATE while another is
    // between its cluster writes, or between persisting and flushing its outbox.
    watcher.capPods(V2, 10);
    await s.command({ type: 'approve' });
    const staggered = await Promise.all(Array.from({ length: 10 }, async (_, i) => {
      await sleep(i * 20);
      return s.reconcile({ crashPoint: () => sleep(((i * 37) % 10) * 15) });
    }));
    t.diagnostic(`staggered outcomes: ${staggered.map((r) => r.outcome).join(', ')}`);
    await s.reconcileUntil((x) => x.state.phase === 'Completed', 'the release to complete');
    assert.deepEqual(pods(await s.snapshot()), { [V2]: [10, 10] });
    const all = await engine.store.listHistory(s.key);
    assert.deepEqual(duplicateTransitions(all), []);
    assert.deepEqual(all.filter((e) => e.type === 'Step Approved').map((e) => e.stepIndex), [0, 1]);
    assertPublished(engine, s, all);
    watcher.stop();
    watcher.assertClean();
  });

  it('the same approve command delivered three times advances exactly one batch', async () => {
    const s = await engine.scenario('approve-thrice', { replicas: 4 });
    const watcher = await s.watch();
    await releaseToFirstApproval(s, V2, 1, watcher);
    watcher.capPods(V2, 2);

    engine.dynamo.resetCounts();
    const recorded = [await record(s, 'approve-1'), await record(s, 'approve-1'), await record(s, 'approve-1')];
    assert.deepEqual(recorded, ['recorded', 'duplicate', 'duplicate']);
    assert.equal(engine.dynamo.requestCount('PutItem'), 1, 'a duplicate is answered without writing STATE');
    assert.deepEqual((await s.state()).commands.map((c) => c.id), ['approve-1']);

    const snap = await s.reconcileUntil((x) => awaitingApproval(x, 1), 'batch 2 to be ready');
    await assertStaysPut(s, snap);
    assert.deepEqual(pods(await s.snapshot()), { [V1]: [2, 2], [V2]: [2, 2] });
    assertOneApproval(await engine.store.listHistory(s.key));
    watcher.stop();
    watcher.assertClean();
  });

  it('an approve command redelivered after it was consumed changes nothing', async () => {
    const s = await engine.scenario('approve-redelivered', { replicas: 4 });
    const watcher = await s.watch();
    await releaseToFirstApproval(s, V2, 1, watcher);
    watcher.capPods(V2, 2);
    assert.equal(await record(s, 'approve-1'), 'recorded');
    const snap = await s.reconcileUntil((x) => awaitingApproval(x, 1), 'batch 2 to be ready');

    const version = (await engine.store.load(s.key)).state.version;
    assert.equal(await record(s, 'approve-1'), 'duplicate', 'the consumed id is remembered');
    assert.equal((await engine.store.load(s.key)).state.version, version, 'STATE was not written');
    await assertStaysPut(s, snap);
    assert.deepEqual(pods(await s.snapshot()), { [V1]: [2, 2], [V2]: [2, 2] });
    assertOneApproval(await engine.store.listHistory(s.key));
    watcher.stop();
    watcher.assertClean();
  });

  it('a writer changing the Deployment and its ReplicaSets between observe and apply makes that pass a conflict that persists nothing', async () => {
    const s = await engine.scenario('kube-409', { replicas: 4 });
    const watcher = await s.watch();
    await releaseToFirstApproval(s, V2, 1, watcher);
    watcher.capPods(V2, 2);
    await s.command({ type: 'approve' });
    const stored = await engine.store.load(s.key);
    const history = await engine.store.listHistory(s.key);
    const replicas = replicaCounts(await s.snapshot());

    // Another writer (an admin's kubectl annotate) bumps the resourceVersion our plan was computed from.
    const result = await s.reconcile({ crashPoint: async (point) => { if (point === 'observed') await touchReplicaSets(s); } });
    assert.equal(result.outcome, 'conflict');
    assert.equal(result.writes, 0, 'the first write was refused, nothing after it was sent');
    assert.equal(result.requeueSeconds, 1);
    assert.deepEqual(await engine.store.load(s.key), stored, 'STATE untouched');
    assert.deepEqual(await engine.store.listHistory(s.key), history, 'no history written');
    assert.deepEqual(replicaCounts(await s.snapshot()), replicas, 'no ReplicaSet scaled');

    assert.equal((await s.reconcile()).outcome, 'progressed', 'the next pass moves on');
    const snap = await s.reconcileUntil((x) => awaitingApproval(x, 1) && (x.pods[V1]?.total ?? 0) === 2, 'batch 2 to be ready');
    assert.deepEqual(pods(snap), { [V1]: [2, 2], [V2]: [2, 2] });
    assert.ok(snap.replicaSets.every((rs) => rs.metadata?.annotations?.[TOUCHED] === 'yes'), "the other writer's change is kept");
    assert.equal(snap.deployment.metadata?.annotations?.[TOUCHED], 'yes');
    assertOneApproval(await engine.store.listHistory(s.key));
    watcher.stop();
    watcher.assertClean();
  });

  it('a command recorded between load and persist is kept: that pass persists its own transition, and the next pass applies the command', async () => {
    const s = await engine.scenario('ddb-conflict', { replicas: 4 });
    const watcher = await s.watch();
    await releaseToFirstApproval(s, V2, 1, watcher);
    watcher.capPods(V2, 2);
    const approval = await s.command({ type: 'approve' });
    const history = await engine.store.listHistory(s.key);

    let pause = '';
    const result = await s.reconcile({ crashPoint: async (point) => { if (point === 'before-persist') pause = await s.command({ type: 'pause' }); } });
    assert.equal(result.outcome, 'progressed', 'the pass keeps its work (it had already moved pods) and the command recorded meanwhile');
    const after = await engine.store.load(s.key);
    assert.deepEqual(after.state.state.commands.map((c) => c.id), [pause], 'the command recorded meanwhile waits for the next pass');
    assert.ok(after.state.state.appliedCommandIds.includes(approval), 'the approval was applied by that pass');

    assert.equal((await s.reconcile()).outcome, 'progressed');
    const paused = await s.state();
    assert.deepEqual(paused.appliedCommandIds.slice(-2), [approval, pause], 'both commands applied, in order');
    assert.equal(paused.phase, 'Paused');
    const lines = (await engine.store.listHistory(s.key)).map(historyLine).slice(history.length);
    assert.deepEqual(lines.filter((l) => /Step Approved|Rollout Paused/.test(l)).map((l) => l.split(' ')[1] + ' ' + l.split(' ')[2]), ['Step Approved', 'Rollout Paused'], lines.join('\n'));

    await s.command({ type: 'resume' });
    const snap = await s.reconcileUntil((x) => awaitingApproval(x, 1), 'batch 2 to be ready');
    assert.deepEqual(pods(snap), { [V1]: [2, 2], [V2]: [2, 2] });
    const all = await engine.store.listHistory(s.key);
    assert.deepEqual(duplicateTransitions(all), []);
    assertOneApproval(all);
    watcher.stop();
    watcher.assertClean();
  });
});

/** Every recorded transition went out as an event (at least once: a flush retried after a lost race sends again). */
function assertPublished(engine: Engine, s: Scenario, history: HistoryEntry[]): void {
  const published = new Set(engine.events.events.filter((e) => e.rollout.namespace === s.namespace).map((e) => `${e.type}: ${e.message}`));
  assert.deepEqual(history.filter((h) => !published.has(`${h.type}: ${h.message}`)).map(historyLine), [], 'every transition published');
}

function record(s: Scenario, id: string): Promise<'recorded' | 'duplicate'> {
  return s.engine.store.recordCommand(s.key, { type: 'approve', id, at: s.engine.clock.now().toISOString(), by: 'test' });
}

/** A few more passes while the release waits for approval: no writes anywhere, nothing moves. */
/**
 * Awaiting approval, nothing more moves. A MinReadySeconds Deployment may first finish the batch's own
 * settling (drain its surge pods once the controller acts on the lowered maxSurge, then set the
 * budget that follows: minReadyWrites.ts), within a few passes and never beyond the batch.
 */
async function assertStaysPut(s: Scenario, snap: Snapshot): Promise<void> {
  const batch = snap.pods[V2]?.total ?? 0;
  // Settled: two passes in a row, 300 ms apart, write nothing (pods turning Available change the budget).
  for (let i = 0, quiet = 0; i < 12 && quiet < 2; i += 1) {
    quiet = (await s.reconcile()).writes === 0 ? quiet + 1 : 0;
    assert.ok(((await s.snapshot()).pods[V2]?.total ?? 0) <= batch, 'never beyond the batch');
    await sleep(300);
  }
  const settled = await s.snapshot();
  for (let i = 0; i < 3; i += 1) {
    const r = await s.reconcile();
    assert.equal(r.writes, 0);
    assert.equal(r.counts['ddb.write'], 0);
  }
  assert.deepEqual(replicaCounts(await s.snapshot()), replicaCounts(settled));
}

function assertOneApproval(history: HistoryEntry[]): void {
  const approvals = history.filter((e) => e.type === 'Step Approved');
  assert.deepEqual(approvals.map((e) => e.stepIndex), [0], 'one approval, of step 1');
  assert.deepEqual(history.filter((e) => e.type === 'Step Started').map((e) => e.stepIndex), [1], 'one batch started');
}

/** What the pass computed its writes from changes under it: the Deployment (MinReadySeconds writes it first) and its ReplicaSets (Partition). */
async function touchReplicaSets(s: Scenario): Promise<void> {
  const apps = s.engine.cluster.admin.makeApiClient(AppsV1Api);
  const body = { metadata: { annotations: { [TOUCHED]: 'yes' } } };
  await apps.patchNamespacedDeployment({ name: 'web', namespace: s.namespace, body }, mergePatch);
  for (const rs of (await apps.listNamespacedReplicaSet({ namespace: s.namespace })).items) {
    await apps.patchNamespacedReplicaSet({ name: rs.metadata?.name ?? '', namespace: s.namespace, body }, mergePatch);
  }
}

function pods(snap: Snapshot): Record<string, [number, number]> {
  return Object.fromEntries(Object.entries(snap.pods).map(([image, p]) => [image, [p.total, p.ready]]));
}

function replicaCounts(snap: Snapshot): Record<string, number | undefined> {
  return Object.fromEntries(snap.replicaSets.map((rs) => [rs.metadata?.name ?? '', rs.spec?.replicas]));
}
