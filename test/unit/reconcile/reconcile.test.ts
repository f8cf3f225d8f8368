// The reconcile pipeline (load → flush outbox → observe → plan → apply → persist → flush) over
// in-memory fakes: what a crash, a lost race or a missing/deleted rollout leaves behind.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { HistoryEntry } from '../../../shared/ports.ts';
import type { RolloutKey } from '../../../shared/rollout/types.ts';
import { MemoryStateStore } from '../../support/fakes/memoryStateStore.ts';
import { initialState } from '../../../shared/rollout/state.ts';
import { ConfigError } from '../../../shared/errors.ts';
import { DEPLOYMENT, dieAt, KEY, Pipeline } from './pipelineFixtures.ts';

const ADOPTED = 'Workload Adopted';

describe('reconcile: the transactional outbox', () => {
  it('a crash after persist leaves the outbox, and the next pass — otherwise a no-op — flushes it once', async () => {
    const p = await Pipeline.start();
    await assert.rejects(p.reconcile({ crashPoint: dieAt('after-persist') }), /simulated crash/);
    const crashed = await p.store.load(KEY);
    assert.equal(crashed.state.version, 1);
    assert.deepEqual(crashed.state.outbox.history.map((h) => h.type), [ADOPTED], 'the transition waits in the outbox');
    assert.deepEqual(await p.store.listHistory(KEY), []);
    assert.deepEqual(p.events.types(), []);

    const next = await p.reconcile();
    assert.equal(next.outcome, 'progressed', 'the flush itself wrote STATE (cleared the outbox), nothing else');
    assert.equal(next.writes, 0);
    assert.deepEqual((await p.store.listHistory(KEY)).map((h) => h.type), [ADOPTED]);
    assert.deepEqual(p.events.types(), [ADOPTED]);
    const flushed = await p.store.load(KEY);
    assert.deepEqual(flushed.state.outbox, { history: [], events: [] });
    assert.deepEqual(flushed.state.state, crashed.state.state, 'the flush changed nothing but the outbox');

    const quiet = await p.reconcile();
    assert.equal(quiet.counts['ddb.write'], 0, 'with the outbox empty, a no-op writes nothing');
    assert.deepEqual((await p.store.listHistory(KEY)).map((h) => h.type), [ADOPTED]);
    assert.deepEqual(p.events.types(), [ADOPTED]);
  });

  it('a crash after persist is flushed before the next pass records its own transition, in order', async () => {
    const p = await Pipeline.start();
    await assert.rejects(p.reconcile({ crashPoint: dieAt('after-persist') }), /simulated crash/);
    p.setImage('web:v2');

    assert.equal((await p.reconcile()).outcome, 'progressed');
    const history = await p.store.listHistory(KEY);
    assert.deepEqual(history.map((h) => h.type), [ADOPTED, 'Release Started']);
    assert.equal(new Set(history.map((h) => `${h.releaseId}#${h.seq}`)).size, 2, 'distinct items');
    assert.deepEqual(p.events.types(), [ADOPTED, 'Release Started']);
    assert.deepEqual((await p.store.load(KEY)).state.outbox, { history: [], events: [] });
  });

  it('a failed publish keeps the outbox, and the retry rewrites the same history items', async () => {
    const p = await Pipeline.start();
    let failures = 1;
    const publish = p.events.publish.bind(p.events);
    p.events.publish = async (events) => {
      if (failures-- > 0) throw new Error('EventBridge unavailable');
      await publish(events);
    };
    await assert.rejects(p.reconcile(), /EventBridge unavailable/);
    assert.deepEqual(historyKeys(await p.store.listHistory(KEY)), ['none#100'], 'history went out before the publish failed');
    assert.equal((await p.store.load(KEY)).state.outbox.events.length, 1, 'the events wait for the next pass');

    await p.reconcile();
    assert.deepEqual(historyKeys(await p.store.listHistory(KEY)), ['none#100'], 'the same item, not a second one');
    assert.deepEqual(p.events.types(), [ADOPTED]);
    assert.deepEqual((await p.store.load(KEY)).state.outbox, { history: [], events: [] });
  });
});

describe('reconcile: a lost race persists nothing', () => {
  it('another pass that wrote STATE since load returns conflict and writes no history', async () => {
    const p = await Pipeline.start();
    let raced = false;
    const result = await p.reconcile({ crashPoint: async (point) => {
      if (point !== 'before-persist' || raced) return;
      raced = true;
      await p.reconcile(); // a concurrent pass gets there first
    } });
    assert.equal(result.outcome, 'conflict');
    assert.equal(result.requeueSeconds, 1);
    const stored = await p.store.load(KEY);
    assert.equal(stored.state.version, 2, 'only the other pass wrote (its transition, then its flush)');
    assert.deepEqual(stored.state.outbox, { history: [], events: [] });
    assert.deepEqual((await p.store.listHistory(KEY)).map((h) => h.type), [ADOPTED], 'one adoption, not two');
  });

  it('a Kubernetes 409 on a write returns conflict before anything is persisted', async () => {
    const p = await Pipeline.start({ paused: false });
    const bump = (point: string): void => {
      if (point === 'observed') p.cluster.put(p.cluster.object(DEPLOYMENT)!); // another writer got there first
    };
    const result = await p.reconcile({ crashPoint: bump });
    assert.equal(result.outcome, 'conflict');
    assert.equal(result.writes, 0);
    assert.deepEqual(p.cluster.writeRequests().map((w) => w.verb), ['patch'], 'the hold was tried and refused');
    assert.equal(p.cluster.object(DEPLOYMENT)?.spec?.paused, false);
    assert.equal((await p.store.load(KEY)).state.version, 0, 'no STATE written');
    assert.deepEqual(await p.store.listHistory(KEY), []);

    assert.equal((await p.reconcile()).outcome, 'progressed');
    assert.equal(p.cluster.object(DEPLOYMENT)?.spec?.paused, true, 'held on the next pass');
  });

  it('a command recorded while a pending outbox is flushed is applied, not overwritten', async () => {
    const store = new HookedStore();
    const p = await Pipeline.start({ store });
    await assert.rejects(p.reconcile({ crashPoint: dieAt('after-persist') }), /simulated crash/);
    await p.command({ type: 'pause' });
    store.onPutHistory = () => p.command({ type: 'resume' }); // lands between the flush's read and its write

    await p.reconcile();
    assert.ok((await p.store.load(KEY)).state.state.commands.some((c) => c.id === 'c2') || (await p.store.load(KEY)).state.state.appliedCommandIds.includes('c2'), 'the flush kept the command that landed during it');
    for (let i = 0; i < 5 && (await p.reconcile()).outcome !== 'noop'; i += 1);
    const state = (await p.store.load(KEY)).state.state;
    assert.deepEqual(state.appliedCommandIds, ['c1', 'c2'], 'both commands applied');
    assert.equal(state.userPaused, false);
    assert.deepEqual((await p.store.listHistory(KEY)).map((h) => h.type), [ADOPTED, 'Rollout Paused', 'Rollout Resumed']);
  });
});

describe('reconcile: outcomes', () => {
  it('a rollout without SPEC is missing and touches nothing', async () => {
    const p = await Pipeline.start({ spec: false });
    const result = await p.reconcile();
    assert.equal(result.outcome, 'missing');
    assert.deepEqual(p.cluster.requests, []);
    assert.equal((await p.store.load(KEY)).state.version, 0);
    assert.deepEqual(result.counts['ddb.write'], 0);
  });

  it('STATE left without SPEC by a delete that died half-way is finished off, not reconciled forever', async () => {
    const p = await Pipeline.start({ spec: false });
    await p.store.saveState(KEY, { state: initialState(), outbox: { history: [], events: [] } }, 0);
    const result = await p.reconcile();
    assert.equal(result.outcome, 'removed');
    assert.deepEqual(p.cluster.requests, [], 'the cluster is not touched');
    assert.equal((await p.store.load(KEY)).state.version, 0, 'the leftover STATE is gone');
  });

  it('a settled rollout is a no-op that only reads: one Query, one GET and one LIST', async () => {
    const p = await Pipeline.start();
    await p.reconcile();
    const result = await p.reconcile();
    assert.equal(result.outcome, 'noop');
    assert.deepEqual([result.counts['ddb.read'], result.counts['ddb.write'], result.counts['k8s.read'], result.counts['k8s.write']], [1, 0, 2, 0]);
  });

  it('a deleted rollout hands the workload back, then removes its items', async () => {
    const p = await Pipeline.start();
    await p.reconcile();
    await p.command({ type: 'delete' });

    const handingBack = await p.reconcile();
    assert.equal(handingBack.outcome, 'progressed');
    assert.equal(p.cluster.object(DEPLOYMENT)?.spec?.paused, false, 'unpaused: the native controller owns it again');
    assert.equal((await p.store.load(KEY)).state.state.removing, true);

    const removed = await p.reconcile();
    assert.equal(removed.outcome, 'removed');
    const after = await p.store.load(KEY);
    assert.equal(after.spec, null);
    assert.equal(after.state.version, 0, 'no STATE item');
    assert.deepEqual(await p.store.listHistory(KEY), []);
    assert.deepEqual(await p.store.listRollouts(), []);
    assert.equal((await p.reconcile()).outcome, 'missing');
  });
});

describe('reconcile: a cluster registration that cannot work', () => {
  it('goes Degraded with the registration\'s reason in one pass, and a second pass writes nothing (no redelivery loop)', async () => {
    const p = await Pipeline.start();
    await p.reconcile();
    const broken = { client: async () => { throw new ConfigError('cluster "test": token secret arn:x cannot be read: marked for deletion'); } };
    const first = await p.reconcile({ clusters: broken });
    assert.equal(first.outcome, 'degraded');
    const state = (await p.store.load(KEY)).state.state;
    assert.equal(state.phase, 'Degraded');
    assert.match(state.message, /token secret arn:x cannot be read: marked for deletion/);
    const again = await p.reconcile({ clusters: broken });
    assert.equal(again.outcome, 'degraded');
    assert.equal(again.counts['ddb.write'] ?? 0, 0, 'the same reason is not written twice');
  });
});

/** A state store that runs a hook once, inside putHistory, to interleave another writer with a flush. */
class HookedStore extends MemoryStateStore {
  onPutHistory: (() => Promise<unknown>) | null = null;

  override async putHistory(key: RolloutKey, entries: HistoryEntry[]): Promise<void> {
    await super.putHistory(key, entries);
    const hook = this.onPutHistory;
    this.onPutHistory = null;
    if (hook) await hook();
  }
}

function historyKeys(entries: HistoryEntry[]): string[] {
  return entries.map((h) => `${h.releaseId}#${h.seq}`);
}
