// Commands recorded while a reconcile pass runs are kept, and the pass is persisted all the same
// (regressions the soak, npm run soak, found; each test is named after the failure it showed).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { appendedCommands } from '../../../shared/reconcile/saveState.ts';
import { EMPTY_FLEET_OUTBOX, saveFleetKeepingCommands } from '../../../shared/reconcile/fleet/outbox.ts';
import { MemoryStateStore } from '../../support/fakes/memoryStateStore.ts';
import { initialState } from '../../../shared/rollout/state.ts';
import type { Command } from '../../../shared/rollout/types.ts';
import { KEY, Pipeline } from './pipelineFixtures.ts';

const ADOPTED = 'Workload Adopted';
const EMPTY = { history: [], events: [] };
const cmd = (id: string): Command => ({ type: 'pause', id, at: '2026-11-30T10:00:00.000Z', by: 'tester' });

describe('reconcile: commands arriving during a pass (soak)', () => {
  it('keeps a command recorded while the pass ran and persists the pass all the same (commands sent faster than a pass completes starved the rollout for 14 minutes)', async () => {
    const p = await Pipeline.start();
    const result = await p.reconcile({ crashPoint: async (point) => { if (point === 'before-persist') await p.command({ type: 'pause' }); } });
    assert.equal(result.outcome, 'progressed');
    const stored = await p.store.load(KEY);
    assert.equal(stored.state.version, 3, 'the command (1), the pass kept it (2), the outbox flushed (3)');
    assert.notEqual(stored.state.state.stableRevision, null, 'the adoption was persisted');
    assert.deepEqual(stored.state.state.commands.map((c) => c.id), ['c1'], 'the command waits for the next pass');
    assert.deepEqual(stored.state.outbox, { history: [], events: [] });
    assert.deepEqual((await p.store.listHistory(KEY)).map((h) => h.type), [ADOPTED]);

    assert.equal((await p.reconcile()).outcome, 'progressed');
    assert.deepEqual((await p.store.listHistory(KEY)).map((h) => h.type), [ADOPTED, 'Rollout Paused'], 'the transition and the command, each once');
  });

  it('keeps commands recorded while the pass ran several times over', async () => {
    const p = await Pipeline.start();
    let sent = 0;
    const result = await p.reconcile({ crashPoint: async (point) => {
      if (point !== 'before-persist') return;
      for (; sent < 3; sent += 1) await p.command({ type: sent % 2 === 0 ? 'pause' : 'resume' });
    } });
    assert.equal(result.outcome, 'progressed');
    assert.deepEqual((await p.store.load(KEY)).state.state.commands.map((c) => c.id), ['c1', 'c2', 'c3']);
  });
});

describe('appendedCommands: only commands appended count as "nothing else changed"', () => {
  const base = { state: { ...initialState(), commands: [cmd('a')] }, version: 4, outbox: EMPTY };
  it('returns the commands added after the ones the pass read', () => {
    assert.deepEqual(appendedCommands(base, { ...base, version: 5, state: { ...base.state, commands: [cmd('a'), cmd('b')] } })?.map((c) => c.id), ['b']);
  });
  it('is null when anything else changed, a command was consumed, or the outbox differs', () => {
    assert.equal(appendedCommands(base, { ...base, version: 5, state: { ...base.state, userPaused: true, commands: [cmd('a'), cmd('b')] } }), null);
    assert.equal(appendedCommands(base, { ...base, version: 5, state: { ...base.state, commands: [cmd('b')] } }), null);
    assert.equal(appendedCommands(base, { ...base, version: 5, outbox: { history: [], events: [{ type: 'x' } as never] } }), null);
    assert.equal(appendedCommands(base, { ...base, version: 4 }), null, 'the same version is no change at all');
  });
});

describe('a fleet pass keeps commands the same way (shared/reconcile/saveState.ts saveKeepingCommands)', () => {
  it('writes the pass again on the newer version with a fleet command recorded meanwhile kept, and refuses a real conflict', async () => {
    const store = new MemoryStateStore();
    const base = (await store.loadFleet('shop')).state;
    const fleetCmd = (id: string) => ({ type: 'pause', id, at: '2026-11-30T10:00:00.000Z', by: 'tester' }) as never;
    await store.recordFleetCommand('shop', fleetCmd('f1'));
    const saved = await saveFleetKeepingCommands(store, 'shop', { state: { ...base.state, userPaused: true } as never, outbox: EMPTY_FLEET_OUTBOX }, base);
    assert.deepEqual(saved.state.commands.map((c) => c.id), ['f1']);
    assert.deepEqual((await store.loadFleet('shop')).state.state.commands.map((c) => c.id), ['f1']);
    assert.equal(saved.version, (await store.loadFleet('shop')).state.version);
    await assert.rejects(saveFleetKeepingCommands(store, 'shop', { state: base.state, outbox: EMPTY_FLEET_OUTBOX }, base), /version|conflict/i);
  });
});
