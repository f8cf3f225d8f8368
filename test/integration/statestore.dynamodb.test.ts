// DynamoStateStore against a real (in-process) dynalite: the shared StateStore contract, then what
// only a real table can show: the request count seen by the server, the item layout, capacity
// units, and persistence across a restart.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DescribeTableCommand, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { DynamoStateStore } from '../../shared/adapters/dynamodb/stateStore.ts';
import { STATE_TABLE, ensureTable } from '../../shared/adapters/dynamodb/table.ts';
import { dueShard, rolloutPk } from '../../shared/adapters/dynamodb/keys.ts';
import { ConfigError } from '../../shared/errors.ts';
import { Meter } from '../../shared/meter.ts';
import { initialState } from '../../shared/rollout/state.ts';
import type { RolloutKey } from '../../shared/rollout/types.ts';
import { startDynalite } from '../../bench/testbed/dynalite.ts';
import type { DynaliteHarness } from '../../bench/testbed/dynalite.ts';
import { stateStoreContract } from '../support/stateStoreContract.ts';
import {
  ManualClock, T0, activeState, approve, completedState, historyEntry, rolloutKey, sampleDocument, sampleOutbox, sampleSpec,
} from '../../bench/testbed/stateStoreFixtures.ts';

let dynalite: DynaliteHarness;
let tables = 0;

before(async () => {
  dynalite = await startDynalite();
});
after(async () => {
  await dynalite.stop();
});

/** A store on a fresh table of the shared dynalite, so every test starts empty. */
async function freshStore(clock = new ManualClock(), meter = new Meter()): Promise<{ store: DynamoStateStore; tableName: string; meter: Meter }> {
  const tableName = `state-${++tables}`;
  await ensureTable(dynalite.client, tableName);
  dynalite.resetCounts();
  return { store: new DynamoStateStore({ client: dynalite.client, tableName, meter, clock }), tableName, meter };
}

stateStoreContract('DynamoStateStore on dynalite', async (clock) => (await freshStore(clock)).store);

async function rawItem(tableName: string, key: RolloutKey, sk: string): Promise<Record<string, unknown> | null> {
  const out = await dynalite.client.send(new GetItemCommand({ TableName: tableName, Key: marshall({ pk: rolloutPk(key), sk }), ConsistentRead: true }));
  return out.Item ? unmarshall(out.Item) : null;
}

const noOutbox = { history: [], events: [] };

describe('DynamoStateStore on dynalite (requests, layout, capacity)', () => {
  test('the server-side counter counts requests by operation', async () => {
    const { store } = await freshStore();
    const key = rolloutKey();
    await store.load(key);
    await store.saveState(key, { state: activeState(), outbox: noOutbox }, 0);
    await store.putHistory(key, Array.from({ length: 30 }, (_, i) => historyEntry('r1', i)));
    assert.deepEqual(dynalite.requests(), [{ op: 'BatchWriteItem', count: 2 }, { op: 'PutItem', count: 1 }, { op: 'Query', count: 1 }]);
    assert.equal(dynalite.requestCount(), 4);
    assert.equal(dynalite.requestCount('GetItem'), 0);
  });

  test('loading spec and state is exactly one request, also for a rollout with history', async () => {
    const { store, meter } = await freshStore();
    const key = rolloutKey();
    await store.putSpec(key, sampleSpec(key), sampleDocument(key), 0);
    await store.saveState(key, { state: activeState(), outbox: sampleOutbox(key) }, 0);
    await store.putHistory(key, [historyEntry('r1', 1), historyEntry('r1', 2)]);
    dynalite.resetCounts();
    const before = meter.snapshot();
    const loaded = await store.load(key);
    assert.deepEqual(dynalite.requests(), [{ op: 'Query', count: 1 }]);
    assert.equal(meter.get('ddb.read') - before['ddb.read'], 1);
    assert.equal(loaded.spec?.specVersion, 1);
    assert.equal(loaded.state.version, 1);
  });

  test('recording a command is one read and one write; a duplicate is one read only', async () => {
    const { store } = await freshStore();
    const key = rolloutKey();
    await store.saveState(key, { state: activeState(), outbox: noOutbox }, 0);
    dynalite.resetCounts();
    await store.recordCommand(key, approve('c1'));
    assert.deepEqual(dynalite.requests(), [{ op: 'GetItem', count: 1 }, { op: 'PutItem', count: 1 }]);
    dynalite.resetCounts();
    assert.equal(await store.recordCommand(key, approve('c1')), 'duplicate');
    assert.deepEqual(dynalite.requests(), [{ op: 'GetItem', count: 1 }]);
  });

  test('the due query sends one Query per shard to the due index and never scans', async () => {
    const { store } = await freshStore();
    for (let i = 0; i < 20; i++) await store.saveState(rolloutKey(`app-${i}`), { state: activeState({ nextWakeAt: null }), outbox: noOutbox }, 0);
    dynalite.resetCounts();
    const due = await store.queryDue(new Date(T0.getTime() + 1000));
    assert.equal(due.length, 20);
    assert.deepEqual(dynalite.requests(), [{ op: 'Query', count: STATE_TABLE.dueIndex.shardCount }]);
  });

  test('STATE carries the due attributes only while due; history items carry expiresAt', async () => {
    const { store, tableName } = await freshStore();
    const key = rolloutKey();
    await store.saveState(key, { state: activeState(), outbox: noOutbox }, 0);
    const active = await rawItem(tableName, key, 'STATE');
    assert.equal(active?.version, 1);
    assert.equal(active?.dueAt, '2030-01-01T00:15:00.000Z');
    assert.equal(active?.dueShard, dueShard(rolloutPk(key)));
    await store.saveState(key, { state: completedState(), outbox: noOutbox }, 1);
    const done = await rawItem(tableName, key, 'STATE');
    assert.equal('dueAt' in (done ?? {}), false);
    assert.equal('dueShard' in (done ?? {}), false);

    await store.putHistory(key, [historyEntry('r1', 7)]);
    const history = await rawItem(tableName, key, 'H#r1#0000000007');
    assert.equal(history?.expiresAt, Date.parse('2030-01-01T00:05:00.000Z') / 1000 + 90 * 86_400);

    await store.putSpec(key, sampleSpec(key), sampleDocument(key), 0);
    const spec = await rawItem(tableName, key, 'SPEC');
    assert.equal(spec?.document, JSON.stringify(sampleDocument(key)));
    assert.equal(spec?.specVersion, 1);
  });

  test('a STATE item written before fields were added to ReleaseState loads with their initial values', async () => {
    const { store, tableName } = await freshStore();
    const key = rolloutKey();
    const Item = marshall({ pk: rolloutPk(key), sk: 'STATE', version: 3, state: { phase: 'Completed', message: 'old' } });
    await dynalite.client.send(new PutItemCommand({ TableName: tableName, Item }));
    const { state } = await store.load(key);
    assert.deepEqual(state, { state: { ...initialState(), phase: 'Completed', message: 'old' }, version: 3, outbox: noOutbox });
  });

  test('the table is created from STATE_TABLE: keys, on-demand billing and the keys-only due index', async () => {
    const { tableName } = await freshStore();
    const { Table } = await dynalite.client.send(new DescribeTableCommand({ TableName: tableName }));
    assert.deepEqual(Table?.KeySchema, [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }]);
    assert.equal(Table?.BillingModeSummary?.BillingMode, 'PAY_PER_REQUEST');
    const index = Table?.GlobalSecondaryIndexes?.[0];
    assert.equal(index?.IndexName, STATE_TABLE.dueIndex.name);
    assert.deepEqual(index?.KeySchema, [{ AttributeName: 'dueShard', KeyType: 'HASH' }, { AttributeName: 'dueAt', KeyType: 'RANGE' }]);
    assert.equal(index?.Projection?.ProjectionType, 'KEYS_ONLY');
  });

  test('capacity units of the hot-path operations are metered from the responses', async () => {
    const { store, meter } = await freshStore();
    const key = rolloutKey();
    await store.putSpec(key, sampleSpec(key), sampleDocument(key), 0);
    await store.saveState(key, { state: activeState({ nextWakeAt: null }), outbox: sampleOutbox(key) }, 0);
    const cost = async (op: () => Promise<unknown>) => {
      const before = meter.snapshot();
      await op();
      const after = meter.snapshot();
      return { rcu: after['ddb.rcu'] - before['ddb.rcu'], wcu: after['ddb.wcu'] - before['ddb.wcu'] };
    };
    const costs = {
      load: await cost(() => store.load(key)),
      saveState: await cost(() => store.saveState(key, { state: activeState({ nextWakeAt: null }), outbox: sampleOutbox(key) }, 1)),
      recordCommand: await cost(() => store.recordCommand(key, approve('c1'))),
      queryDue: await cost(() => store.queryDue(new Date(T0.getTime() + 1000))),
    };
    // Spec and state are well under 4 KB together, the state under 1 KB: the minimum charge. A
    // command appended to a state whose unflushed outbox is kept (events carry the reason and its
    // cause since the reasons work) crosses 1 KB: 2 WCU, measured here so any further growth shows.
    assert.deepEqual(costs, {
      load: { rcu: 1, wcu: 0 },
      saveState: { rcu: 0, wcu: 1 },
      recordCommand: { rcu: 1, wcu: 2 },
      queryDue: { rcu: 0.5 * STATE_TABLE.dueIndex.shardCount, wcu: 0 },
    });
  });
});

describe('embedded dynalite with a data directory', () => {
  test('keeps the table and its items across a restart, and serves one process at a time', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rollouts-dynalite-'));
    try {
      const key = rolloutKey();
      const first = await startDynalite({ path: dir });
      const clock = new ManualClock();
      await new DynamoStateStore({ client: first.client, tableName: first.tableName, clock }).saveState(key, { state: activeState(), outbox: noOutbox }, 0);
      await first.stop();

      const second = await startDynalite({ path: dir });
      try {
        const loaded = await new DynamoStateStore({ client: second.client, tableName: second.tableName, clock }).load(key);
        assert.deepEqual(loaded.state, { state: activeState(), version: 1, outbox: noOutbox });
        await assert.rejects(startDynalite({ path: dir }), ConfigError, 'a second instance on the same directory is refused up front');
      } finally {
        await second.stop();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
