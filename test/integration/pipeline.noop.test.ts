// Issue acceptance: a no-op reconcile writes nothing, asserted at the servers — dynalite counts
// every DynamoDB request it receives, and the apiserver's audit log records every request of the
// product's user — and the Meter the benchmarks read (ReconcileResult.counts) equals those counts,
// for a no-op pass and for a batch-advancing one.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AuditEvent } from '../../shared/adapters/local/controlPlane.ts';
import { STATE_TABLE } from '../../shared/adapters/dynamodb/table.ts';
import { sweepDue } from '../../shared/reconcile/sweep.ts';
import { reconcile, type ReconcileResult } from '../../shared/reconcile/reconcile.ts';
import { LocalKeyedQueue } from '../../shared/adapters/local/keyedQueue.ts';
import { isFleetQueueKey, type QueueKey } from '../../shared/fleet/key.ts';
import { Engine, type Scenario } from '../../bench/testbed/engine.ts';
import { awaitingApproval, releaseToFirstApproval } from '../../bench/testbed/pipeline.ts';

const V2 = 'registry.invalid/web:v2';
const KUBE_READS = new Set(['get', 'list', 'watch']);
const KUBE_WRITES = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
const DDB_READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan']);
const DDB_WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

interface Measured {
  result: ReconcileResult;
  /** Requests of `serverless-rollouts` the apiserver completed during the pass. */
  audit: AuditEvent[];
  /** DynamoDB requests dynalite received during the pass, by operation. */
  dynamo: Record<string, number>;
}

describe('what a reconcile sends, counted by the servers', () => {
  let engine: Engine;
  before(async () => { engine = await Engine.start({ podReadyDelayMs: 100, auditLog: true }); });
  after(async () => { await engine?.stop(); });

  /** One reconcile, with the audit log and dynalite's counter bracketing it. */
  async function measure(s: Scenario): Promise<Measured> {
    const seen = engine.cluster.auditEvents().length;
    engine.dynamo.resetCounts();
    const result = await s.reconcile();
    const dynamo = Object.fromEntries(engine.dynamo.requests().map(({ op, count }) => [op, count]));
    return { result, audit: engine.cluster.auditEvents().slice(seen), dynamo };
  }

  it('a reconcile of a settled rollout sends no write to DynamoDB or Kubernetes, only reads', async (t) => {
    const s = await engine.scenario('noop-healthy', { replicas: 4 });
    await s.reconcileUntil((x) => x.deployment.spec?.paused === true && x.state.phase === 'Healthy', 'the Deployment to be held');
    const m = await measure(s);
    t.diagnostic(report('no-op (Healthy)', m));
    assert.equal(m.result.outcome, 'noop');
    assertOnlyReads(m);
    assertMeterMatchesServers(m);
  });

  it('the resync of a settled rollout: the sweep finds it in its resync window, and its pass writes nothing either', async (t) => {
    const s = await engine.scenario('noop-resync', { replicas: 4 });
    await s.reconcileUntil((x) => x.deployment.spec?.paused === true && x.state.phase === 'Healthy', 'the Deployment to be held');
    // A Healthy rollout has no wake-up: only its resync entry (on its SPEC) can bring it to the sweep.
    assert.deepEqual(await engine.store.queryDue(new Date(Date.now() + 86_400_000)), [], 'nothing due');
    // Local mode's queue, whose worker here only records what the sweep queued (the pass is run below).
    const ran: [QueueKey, string][] = [];
    const queue = new LocalKeyedQueue(async (key, reason) => {
      ran.push([key, reason]);
      return [];
    });
    t.after(() => queue.stop());
    const now = new Date();
    engine.dynamo.resetCounts();
    const swept = await sweepDue({ store: engine.store, queue, clock: { now: () => now }, resyncPeriodMs: 300_000 }, { from: new Date(now.getTime() - 300_000), to: now });
    const sweepDynamo = Object.fromEntries(engine.dynamo.requests().map(({ op, count }) => [op, count]));
    // A window of a whole period holds every rollout of this engine (the other tests' too).
    await queue.idle();
    assert.deepEqual(ran.filter(([key]) => !isFleetQueueKey(key) && key.namespace === s.key.namespace), [[s.key, 'sweep']]);
    assert.equal(swept.resync, swept.enqueued);
    assert.deepEqual(sweepDynamo, { Query: STATE_TABLE.dueIndex.shardCount + 1 }, 'the sweep itself: the due shards and one resync range, no write');
    const seen = engine.cluster.auditEvents().length;
    engine.dynamo.resetCounts();
    const result = await reconcile(s.key, engine.deps());
    const m: Measured = { result, audit: engine.cluster.auditEvents().slice(seen), dynamo: Object.fromEntries(engine.dynamo.requests().map(({ op, count }) => [op, count])) };
    t.diagnostic(report('no-op resync (Healthy, found by the sweep)', m));
    assert.equal(m.result.outcome, 'noop');
    assertOnlyReads(m);
    assertMeterMatchesServers(m);
  });

  it('a reconcile of a release waiting for approval sends no write either', async (t) => {
    const s = await engine.scenario('noop-paused', { replicas: 4 });
    await releaseToFirstApproval(s, V2, 1);
    const m = await measure(s);
    t.diagnostic(report('no-op (awaiting approval)', m));
    assert.equal(m.result.outcome, 'noop');
    assertOnlyReads(m);
    assertMeterMatchesServers(m);
  });

  it('a release waiting for approval after batches we drain ourselves: the pass after the drain writes nothing, nor do the next', async (t) => {
    // Batches beyond the user's maxUnavailable (25% of 10: 2): the old pods past the controller's
    // reach are ours to scale down (shared/workloads/deployment/minReadyWrites.ts), and the pause that
    // holds the complete batch goes with that drain, not in a pass of its own while the release waits.
    const s = await engine.scenario('noop-every-step', { replicas: 10, steps: [{ replicas: '50%' }, { replicas: '80%' }, { replicas: '100%' }] });
    await s.reconcileUntil((x) => x.deployment.spec?.paused === true && x.state.phase === 'Healthy', 'the Deployment to be held');
    await s.setImage(V2);
    for (let step = 0; step < 2; step += 1) {
      if (step > 0) await s.command({ type: 'approve' });
      await s.reconcileUntil((x) => awaitingApproval(x, step), `batch ${step + 1} to be ready and drained`);
      for (let pass = 0; pass < 2; pass += 1) {
        const m = await measure(s);
        t.diagnostic(report(`no-op (awaiting approval after step ${step + 1}, pass ${pass + 1})`, m));
        assert.equal(m.result.outcome, 'noop', `step ${step + 1}, pass ${pass + 1}`);
        assertOnlyReads(m);
        assertMeterMatchesServers(m);
      }
      assert.equal((await s.snapshot()).deployment.spec?.paused, true, 'the batch is held by the pause');
    }
  });

  it('a batch-advancing reconcile is counted by the meter exactly as the servers count it', async (t) => {
    const s = await engine.scenario('advance', { replicas: 4 });
    await releaseToFirstApproval(s, V2, 1);
    await s.command({ type: 'approve' });
    const m = await measure(s);
    t.diagnostic(report('batch-advancing (approved step 1 → step 2)', m));
    assert.equal(m.result.outcome, 'progressed');
    assert.equal(m.result.writes, m.audit.filter((e) => KUBE_WRITES.has(e.verb)).length, 'each planned write is one request');
    assert.ok(m.audit.every((e) => (e.responseStatus?.code ?? 0) < 300), 'no request refused');
    assert.ok((m.dynamo.PutItem ?? 0) >= 1, 'STATE persisted');
    assertMeterMatchesServers(m);
    await s.reconcileUntil((x) => awaitingApproval(x, 1), 'batch 2 to be ready');
  });
});

function assertOnlyReads(m: Measured): void {
  for (const op of DDB_WRITES) assert.equal(m.dynamo[op] ?? 0, 0, `DynamoDB ${op}`);
  assert.ok((m.dynamo.Query ?? 0) >= 1, 'SPEC and STATE were read');
  assert.deepEqual(m.audit.filter((e) => !KUBE_READS.has(e.verb)).map(describeEvent), [], 'no Kubernetes write');
  assert.ok(m.audit.some((e) => e.verb === 'get') && m.audit.some((e) => e.verb === 'list'), 'the workload was observed');
  assert.equal(m.result.writes, 0);
}

function assertMeterMatchesServers(m: Measured): void {
  const c = m.result.counts;
  const dynamo = (ops: Set<string>) => Object.entries(m.dynamo).filter(([op]) => ops.has(op)).reduce((n, [, k]) => n + k, 0);
  assert.deepEqual(
    { 'k8s.read': c['k8s.read'], 'k8s.write': c['k8s.write'], 'ddb.read': c['ddb.read'], 'ddb.write': c['ddb.write'] },
    {
      'k8s.read': m.audit.filter((e) => KUBE_READS.has(e.verb)).length,
      'k8s.write': m.audit.filter((e) => KUBE_WRITES.has(e.verb)).length,
      'ddb.read': dynamo(DDB_READS),
      'ddb.write': dynamo(DDB_WRITES),
    },
    'the meter counts what the servers received',
  );
  assert.equal(m.audit.length, c['k8s.read'] + c['k8s.write'], 'no other Kubernetes request');
  assert.equal(Object.values(m.dynamo).reduce((a, b) => a + b, 0), c['ddb.read'] + c['ddb.write'], 'no other DynamoDB request');
}

function describeEvent(e: AuditEvent): string {
  return `${e.verb} ${e.requestURI} → ${e.responseStatus?.code ?? '?'}`;
}

/** One line for the test output (and the issue note): what the servers saw and what it cost. */
function report(what: string, m: Measured): string {
  const c = m.result.counts;
  const kube = m.audit.map(describeEvent).join('; ');
  const dynamo = Object.entries(m.dynamo).map(([op, n]) => `${op}×${n}`).join(', ');
  return `${what}: kubernetes [${kube}]; dynamodb [${dynamo}]; RCU ${c['ddb.rcu']}, WCU ${c['ddb.wcu']}`;
}
