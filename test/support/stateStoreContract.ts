// The behaviour every StateStore must have, as one suite run against each implementation
// (in-memory fake: test/unit/adapters/memoryStateStore.test.ts; DynamoDB on dynalite:
// test/integration/statestore.dynamodb.test.ts). The factory returns a fresh, empty store per test.
import { queueKeyName } from '../../shared/fleet/key.ts';
import type { RolloutKey } from '../../shared/rollout/types.ts';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConflictError, StaleStateError, ValidationError, WorkloadClaimedError } from '../../shared/errors.ts';
import type { StateStore } from '../../shared/ports.ts';
import { initialState } from '../../shared/rollout/state.ts';
import { parseFleetRollout } from '../../shared/fleet/parse.ts';
import { initialFleetState } from '../../shared/fleet/state.ts';
import { fleetDocument } from './sim/fleetSim.ts';
import {
  ManualClock, T0, activeState, approve, completedState, eksCluster, historyEntry, rolloutKey, sampleDocument, sampleOutbox, sampleSpec,
} from '../../bench/testbed/stateStoreFixtures.ts';

export type StateStoreFactory = (clock: ManualClock) => Promise<StateStore>;

export function stateStoreContract(name: string, factory: StateStoreFactory): void {
  const setup = async () => {
    const clock = new ManualClock();
    return { clock, store: await factory(clock) };
  };
  const noOutbox = { history: [], events: [] };

  describe(`${name} (StateStore contract)`, () => {
    test('loading a rollout that was never stored gives no spec and the initial state at version 0', async () => {
      const { store } = await setup();
      assert.deepEqual(await store.load(rolloutKey()), {
        spec: null,
        state: { state: initialState(), version: 0, outbox: { history: [], events: [] } },
      });
    });

    test('a saved state loads back deep-equal, with its outbox and the next version', async () => {
      const { store } = await setup();
      const key = rolloutKey();
      const next = { state: activeState({ commands: [approve('c1')] }), outbox: sampleOutbox(key) };
      assert.equal(await store.saveState(key, next, 0), 1);
      assert.equal(await store.saveState(key, next, 1), 2);
      const loaded = await store.load(key);
      assert.deepEqual(loaded.state, { ...next, version: 2 });
      assert.equal(loaded.spec, null);
    });

    test('a save from a stale version throws StaleStateError and writes nothing', async () => {
      const { store } = await setup();
      const key = rolloutKey();
      await store.saveState(key, { state: activeState(), outbox: noOutbox }, 0);
      await assert.rejects(store.saveState(key, { state: completedState(), outbox: noOutbox }, 0), StaleStateError);
      await assert.rejects(store.saveState(key, { state: completedState(), outbox: noOutbox }, 7), StaleStateError);
      const loaded = await store.load(key);
      assert.equal(loaded.state.version, 1);
      assert.deepEqual(loaded.state.state, activeState());
    });

    test('of ten concurrent saves from the same version exactly one wins', async () => {
      const { store } = await setup();
      const key = rolloutKey();
      await store.saveState(key, { state: activeState(), outbox: noOutbox }, 0);
      const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) =>
        store.saveState(key, { state: activeState({ message: `writer ${i}` }), outbox: noOutbox }, 1)));
      const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
      assert.equal(won.length, 1);
      for (const r of results) if (r.status === 'rejected') assert.ok(r.reason instanceof StaleStateError, String(r.reason));
      const loaded = await store.load(key);
      assert.equal(loaded.state.version, 2);
      assert.equal(loaded.state.state.message, `writer ${won[0]}`);
    });

    test('a command id already recorded or already applied is a duplicate and stored once', async () => {
      const { store } = await setup();
      const key = rolloutKey();
      await store.saveState(key, { state: activeState(), outbox: noOutbox }, 0);
      assert.equal(await store.recordCommand(key, approve('c1')), 'recorded');
      assert.equal(await store.recordCommand(key, approve('c1')), 'duplicate');
      assert.equal(await store.recordCommand(key, approve('cmd-old')), 'duplicate');
      const { state } = await store.load(key);
      assert.deepEqual(state.state.commands, [approve('c1')]);
      assert.equal(state.version, 2);
    });

    test('commands recorded concurrently are all kept, and a racing duplicate is kept once', async () => {
      const { store } = await setup();
      const key = rolloutKey();
      await store.saveState(key, { state: activeState(), outbox: noOutbox }, 0);
      const distinct = await Promise.all(['a', 'b', 'c', 'd'].map((id) => store.recordCommand(key, approve(id))));
      assert.deepEqual(distinct, ['recorded', 'recorded', 'recorded', 'recorded']);
      const same = await Promise.all(Array.from({ length: 4 }, () => store.recordCommand(key, approve('e'))));
      assert.deepEqual(same.filter((r) => r === 'recorded').length, 1);
      const { state } = await store.load(key);
      assert.deepEqual(state.state.commands.map((c) => c.id).sort(), ['a', 'b', 'c', 'd', 'e']);
      assert.equal(state.version, 6);
    });

    test('recording a command bumps the version, so a save from the version read before fails', async () => {
      const { store } = await setup();
      const key = rolloutKey();
      const outbox = sampleOutbox(key);
      await store.saveState(key, { state: activeState(), outbox }, 0);
      const before = await store.load(key);
      await store.recordCommand(key, approve('c1'));
      await assert.rejects(store.saveState(key, { state: completedState(), outbox: noOutbox }, before.state.version), StaleStateError);
      const after = await store.load(key);
      assert.equal(after.state.version, before.state.version + 1);
      assert.deepEqual(after.state.state.commands, [approve('c1')]);
      assert.deepEqual(after.state.outbox, outbox, 'the unflushed outbox survives the command');
    });

    test('a command for a rollout without STATE creates it from the initial state', async () => {
      const { store } = await setup();
      const key = rolloutKey();
      assert.equal(await store.recordCommand(key, approve('c1')), 'recorded');
      const { state } = await store.load(key);
      assert.equal(state.version, 1);
      assert.deepEqual(state.state, { ...initialState(), commands: [approve('c1')] });
    });

    test('history puts are idempotent and list in seq order across releases', async () => {
      const { store } = await setup();
      const key = rolloutKey();
      await store.putHistory(key, [historyEntry('r10', 40), historyEntry('r2', 12)]);
      await store.putHistory(key, [historyEntry('r2', 11), historyEntry('r2', 12), historyEntry('r10', 41)]);
      await store.putHistory(key, [historyEntry('r2', 11)]);
      await store.putHistory(key, []);
      const listed = await store.listHistory(key);
      assert.deepEqual(listed.map((e) => `${e.releaseId}/${e.seq}`), ['r2/11', 'r2/12', 'r10/40', 'r10/41']);
      assert.deepEqual(listed[0], historyEntry('r2', 11));
      assert.deepEqual(await store.listHistory(rolloutKey('other')), []);
    });

    test('a batch of more than 25 history entries is stored completely', async () => {
      const { store } = await setup();
      const key = rolloutKey();
      await store.putHistory(key, Array.from({ length: 60 }, (_, i) => historyEntry('r1', i)));
      assert.equal((await store.listHistory(key)).length, 60);
    });

    test('the due query returns only rollouts whose wake-up or active release is due', async () => {
      const { store, clock } = await setup();
      const save = (name: string, state = activeState()) => store.saveState(rolloutKey(name), { state, outbox: noOutbox }, 0);
      await save('wake-past', activeState({ nextWakeAt: '2029-12-31T23:59:00.000Z' }));
      await save('wake-future', activeState({ nextWakeAt: '2030-01-01T01:00:00.000Z' }));
      await save('active-no-wake', activeState({ nextWakeAt: null }));
      await save('completed', completedState());
      await save('healthy-timer', { ...initialState(), nextWakeAt: '2029-12-31T12:00:00.000Z' });
      clock.advance(1);
      const names = async (now: Date, limit?: number) => (await store.queryDue(now, limit)).map((k) => queueKeyName(k));
      assert.deepEqual(new Set(await names(clock.now())), new Set(['wake-past', 'active-no-wake', 'healthy-timer']));
      assert.deepEqual(await names(clock.now(), 2), ['healthy-timer', 'wake-past'], 'most overdue first');
      assert.deepEqual(new Set(await names(new Date('2030-01-01T02:00:00.000Z'))), new Set(['wake-past', 'wake-future', 'active-no-wake', 'healthy-timer']));
      assert.deepEqual(await names(new Date('2029-01-01T00:00:00.000Z')), []);
      assert.deepEqual(((await store.queryDue(clock.now()))[0] as RolloutKey | undefined)?.cluster, 'prod-eu', 'keys come back whole');
    });

    test('a rollout leaves the due index when its release ends and re-enters on a command', async () => {
      const { store, clock } = await setup();
      const key = rolloutKey();
      await store.saveState(key, { state: activeState({ nextWakeAt: null }), outbox: noOutbox }, 0);
      assert.equal((await store.queryDue(clock.now())).length, 1);
      await store.saveState(key, { state: completedState(), outbox: noOutbox }, 1);
      assert.deepEqual(await store.queryDue(new Date('2031-01-01T00:00:00.000Z')), []);
      clock.advance(60);
      await store.recordCommand(key, approve('c1'));
      assert.deepEqual(await store.queryDue(clock.now()), [key]);
    });

    test('every rollout with a SPEC, Healthy or not, is due for a resync exactly once per period', async () => {
      const { store } = await setup();
      const keys = Array.from({ length: 40 }, (_, i) => rolloutKey(`web-${i}`));
      for (const k of keys) await store.putSpec(k, sampleSpec(k), null, 0);
      await store.saveState(rolloutKey('state-only'), { state: activeState(), outbox: noOutbox }, 0);
      await store.saveState(keys[0]!, { state: completedState(), outbox: noOutbox }, 0);
      const period = 300_000;
      const start = Date.parse('2030-01-01T00:02:30.000Z');
      // Ten one-minute ticks (two periods, wrapping round the period's end twice).
      const seen: string[] = [];
      for (let t = 0; t < 10; t++) {
        const got = await store.queryResync(new Date(start + t * 60_000), new Date(start + (t + 1) * 60_000), period);
        seen.push(...got.map((k) => queueKeyName(k)));
        assert.ok((got as RolloutKey[]).every((k) => k.cluster === 'prod-eu' && k.namespace === 'shop'), 'keys come back whole');
      }
      const counts = new Map<string, number>();
      for (const n of seen) counts.set(n, (counts.get(n) ?? 0) + 1);
      assert.deepEqual([...counts.keys()].sort(), keys.map((k) => k.name).sort(), 'every SPEC, never a STATE alone');
      assert.ok([...counts.values()].every((n) => n === 2), 'exactly once per period');
      assert.deepEqual((await store.queryResync(new Date(start), new Date(start + period), period)).length, 40, 'a window of a whole period has everyone');
      assert.deepEqual(await store.queryResync(new Date(start), new Date(start), period), [], 'an empty window has no one');
      await store.deleteRollout(keys[1]!);
      assert.equal((await store.queryResync(new Date(start), new Date(start + period), period)).length, 39, 'a deleted rollout is not resynced');
    });

    test('putSpec creates at version 0, then only from the specVersion read', async () => {
      const { store } = await setup();
      const key = rolloutKey();
      const spec = sampleSpec(key);
      assert.equal(await store.putSpec(key, spec, sampleDocument(key), 0), 1);
      await assert.rejects(store.putSpec(key, spec, sampleDocument(key), 0), ConflictError);
      await assert.rejects(store.putSpec(key, spec, sampleDocument(key), 2), ConflictError);
      const changed = { ...spec, paused: true };
      assert.equal(await store.putSpec(key, changed, { changed: true }, 1), 2);
      const loaded = await store.load(key);
      assert.deepEqual(loaded.spec, { spec: changed, specVersion: 2, document: { changed: true } });
      assert.equal(loaded.state.version, 0, 'a spec alone has no STATE');
      await assert.rejects(store.putSpec(key, sampleSpec(rolloutKey('other')), null, 2), ValidationError);
    });

    test('one rollout per workload: a second one for the same workload is refused naming the first, and nothing is written', async () => {
      const { store } = await setup();
      const first = rolloutKey('web');
      const second = rolloutKey('web-canary');
      const onWeb = (key: typeof first) => ({ ...sampleSpec(key), workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment' as const, name: 'web' } });
      await store.putSpec(first, onWeb(first), null, 0);
      await assert.rejects(store.putSpec(second, onWeb(second), null, 0), (err: unknown) => {
        assert.ok(err instanceof WorkloadClaimedError && err instanceof ConflictError, String(err));
        assert.equal(err.owner, 'web');
        assert.match(err.message, /Deployment shop\/web is already managed by rollout web/);
        return true;
      });
      assert.equal((await store.load(second)).spec, null);
      assert.deepEqual(await store.listRollouts(), [first]);
      assert.equal(await store.putSpec(first, { ...onWeb(first), paused: true }, null, 1), 2, 'the owner may apply again');
      const otherKind = { ...sampleSpec(second), workloadRef: { apiVersion: 'apps/v1', kind: 'StatefulSet' as const, name: 'web' } };
      assert.equal(await store.putSpec(second, otherKind, null, 0), 1, 'a StatefulSet of the same name is another workload');
    });

    test('a workload is free again once its rollout is deleted or points elsewhere; two racing claims, one wins', async () => {
      const { store } = await setup();
      const [a, b, c] = [rolloutKey('a'), rolloutKey('b'), rolloutKey('c')];
      const on = (key: typeof a, name: string) => ({ ...sampleSpec(key), workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment' as const, name } });
      await store.putSpec(a, on(a, 'web'), null, 0);
      await store.deleteRollout(a);
      assert.equal(await store.putSpec(b, on(b, 'web'), null, 0), 1, 'released by the delete');
      await store.putSpec(b, on(b, 'api'), null, 1);
      assert.equal(await store.putSpec(c, on(c, 'web'), null, 0), 1, 'b points at api now: its claim on web is stale and taken over');
      await assert.rejects(store.putSpec(b, on(b, 'web'), null, 2), WorkloadClaimedError);
      const racers = [rolloutKey('x'), rolloutKey('y'), rolloutKey('z')];
      const results = await Promise.allSettled(racers.map((k) => store.putSpec(k, on(k, 'queue'), null, 0)));
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      for (const r of results) if (r.status === 'rejected') assert.ok(r.reason instanceof WorkloadClaimedError, String(r.reason));
    });

    test('listRollouts lists applied rollouts, filtered by cluster and namespace', async () => {
      const { store } = await setup();
      const keys = [rolloutKey('web', 'shop', 'a'), rolloutKey('api', 'shop', 'a'), rolloutKey('web', 'blog', 'a'), rolloutKey('web', 'shop', 'b')];
      for (const key of keys) await store.putSpec(key, sampleSpec(key), null, 0);
      await store.saveState(rolloutKey('state-only', 'shop', 'a'), { state: activeState(), outbox: noOutbox }, 0);
      const names = (ks: { cluster: string; namespace: string; name: string }[]) => ks.map((k) => `${k.cluster}/${k.namespace}/${k.name}`);
      assert.deepEqual(names(await store.listRollouts()), ['a/blog/web', 'a/shop/api', 'a/shop/web', 'b/shop/web']);
      assert.deepEqual(names(await store.listRollouts({ cluster: 'a' })), ['a/blog/web', 'a/shop/api', 'a/shop/web']);
      assert.deepEqual(names(await store.listRollouts({ cluster: 'a', namespace: 'shop' })), ['a/shop/api', 'a/shop/web']);
      assert.deepEqual(names(await store.listRollouts({ namespace: 'shop' })), ['a/shop/api', 'a/shop/web', 'b/shop/web']);
      assert.deepEqual(await store.listRollouts({ cluster: 'c' }), []);
    });

    test('deleteRollout removes spec, state, history and the listing entry, and is idempotent', async () => {
      const { store, clock } = await setup();
      const key = rolloutKey();
      const neighbour = rolloutKey('api');
      for (const k of [key, neighbour]) {
        await store.putSpec(k, sampleSpec(k), null, 0);
        await store.saveState(k, { state: activeState({ nextWakeAt: null }), outbox: noOutbox }, 0);
        await store.putHistory(k, Array.from({ length: 30 }, (_, i) => historyEntry('r1', i)));
      }
      await store.deleteRollout(key);
      await store.deleteRollout(key);
      assert.deepEqual(await store.load(key), { spec: null, state: { state: initialState(), version: 0, outbox: noOutbox } });
      assert.deepEqual(await store.listHistory(key), []);
      assert.deepEqual(await store.listRollouts(), [neighbour]);
      assert.deepEqual(await store.queryDue(clock.now()), [neighbour]);
      assert.equal((await store.listHistory(neighbour)).length, 30, 'other rollouts are untouched');
    });

    test('clusters are registered, read back, replaced and listed', async () => {
      const { store } = await setup();
      assert.equal(await store.getCluster('prod-eu'), null);
      await store.putCluster(eksCluster('prod-eu'));
      const local = { name: 'local', endpoint: { server: 'https://127.0.0.1:6443', caData: 'Q0E=', insecureSkipTlsVerify: false } };
      await store.putCluster(local);
      assert.deepEqual(await store.getCluster('prod-eu'), eksCluster('prod-eu'));
      const moved = { name: 'prod-eu', eks: { clusterName: 'prod-eu-2', region: 'eu-central-1' } };
      await store.putCluster(moved);
      assert.deepEqual(await store.getCluster('prod-eu'), moved);
      assert.deepEqual(await store.listClusters(), [local, moved]);
      await assert.rejects(store.putCluster({ name: 'nowhere' }), ValidationError);
    });

    test('names containing "#" are rejected with the field and the reason, before anything is written', async () => {
      const { store } = await setup();
      const bad = { cluster: 'prod', namespace: 'sh#op', name: 'web' };
      const hasIssue = (field: string) => (err: unknown) => {
        assert.ok(err instanceof ValidationError, String(err));
        assert.equal(err.issues[0]?.path, field);
        assert.match(err.issues[0]?.reason ?? '', /#/);
        return true;
      };
      await assert.rejects(store.load(bad), hasIssue('namespace'));
      await assert.rejects(store.saveState(bad, { state: activeState(), outbox: noOutbox }, 0), hasIssue('namespace'));
      await assert.rejects(store.putSpec(bad, sampleSpec(bad), null, 0), hasIssue('namespace'));
      await assert.rejects(store.recordCommand({ ...bad, namespace: 'shop', name: 'w#b' }, approve('c1')), hasIssue('name'));
      await assert.rejects(store.putHistory({ ...bad, namespace: 'shop', cluster: 'p#' }, [historyEntry('r1', 1)]), hasIssue('cluster'));
      await assert.rejects(store.putCluster(eksCluster('a#b')), hasIssue('name'));
      await assert.rejects(store.listRollouts({ cluster: 'a#' }), hasIssue('cluster'));
      assert.deepEqual(await store.listRollouts(), []);
      assert.deepEqual(await store.queryDue(new Date(T0.getTime() + 86_400_000)), []);
    });

    test('a fleet: SPEC conditional on its specVersion, STATE on its version, listed while it has a SPEC, deleted whole', async () => {
      const { store } = await setup();
      const spec = parseFleetRollout(fleetDocument('web'));
      assert.deepEqual(await store.loadFleet('web'), { spec: null, state: { state: initialFleetState(), version: 0, outbox: { history: [], events: [], memberCommands: [] } } });
      assert.equal(await store.putFleetSpec('web', spec, fleetDocument('web'), 0), 1);
      await assert.rejects(store.putFleetSpec('web', spec, null, 0), ConflictError);
      const active = { ...initialFleetState(), message: 'releasing', nextWakeAt: null };
      assert.equal(await store.saveFleetState('web', { state: active, outbox: { history: [], events: [], memberCommands: [] } }, 0), 1);
      await assert.rejects(store.saveFleetState('web', { state: active, outbox: { history: [], events: [], memberCommands: [] } }, 0), StaleStateError);
      const loaded = await store.loadFleet('web');
      assert.deepEqual([loaded.spec?.specVersion, loaded.spec?.document, loaded.state.version, loaded.state.state.message], [1, fleetDocument('web'), 1, 'releasing']);
      assert.deepEqual(loaded.spec?.spec, JSON.parse(JSON.stringify(spec)));
      assert.deepEqual(await store.listFleets(), ['web']);
      const entry = { ...historyEntry('f1', 100, 'Fleet Wave Started'), stepIndex: null, cluster: 'c1', wave: 'canary' };
      await store.putFleetHistory('web', [entry]);
      assert.deepEqual(await store.listFleetHistory('web'), [entry]);
      await store.deleteFleet('web');
      assert.deepEqual(await store.listFleets(), []);
      assert.equal((await store.loadFleet('web')).state.version, 0);
      assert.deepEqual(await store.listFleetHistory('web'), []);
    });

    test('a fleet command is recorded once by id, and makes the fleet due now', async () => {
      const { store, clock } = await setup();
      const command = { type: 'pause' as const, id: 'fc1', at: T0.toISOString(), by: 'alice' };
      assert.equal(await store.recordFleetCommand('web', command), 'recorded');
      assert.equal(await store.recordFleetCommand('web', command), 'duplicate');
      assert.deepEqual((await store.loadFleet('web')).state.state.commands, [command]);
      assert.deepEqual(await store.queryDue(clock.now()), [{ fleet: 'web' }], 'the sweep finds the fleet key');
    });

    test('the resync finds fleets with a SPEC beside rollouts', async () => {
      const { store } = await setup();
      await store.putFleetSpec('web', parseFleetRollout(fleetDocument('web')), null, 0);
      const period = 60_000;
      const all = await store.queryResync(new Date(0), new Date(period), period);
      assert.deepEqual(all, [{ fleet: 'web' }]);
    });
  });
}
