// The key rules of the single table, without a database: they decide what load, listHistory and
// the sweep can find, so their ordering and shape are pinned here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  HISTORY_PREFIX, SK_SPEC, SK_STATE, allDueShards, dueAtFor, dueShard, historyExpiresAt, historySk, parseRolloutPk, resyncPhase, resyncPhaseRanges, rolloutPk, validateRolloutKey,
} from '../../../shared/adapters/dynamodb/keys.ts';
import { STATE_TABLE, createTableInput } from '../../../shared/adapters/dynamodb/table.ts';
import { ValidationError } from '../../../shared/errors.ts';
import { initialState } from '../../../shared/rollout/state.ts';
import { activeState, completedState } from '../../../bench/testbed/stateStoreFixtures.ts';

const part = fc.string({ minLength: 1, maxLength: 30 }).filter((s) => !s.includes('#'));

test('a rollout pk parses back to the key it was built from', () => {
  fc.assert(fc.property(part, part, part, (cluster, namespace, name) => {
    const key = { cluster, namespace, name };
    validateRolloutKey(key);
    assert.deepEqual(parseRolloutPk(rolloutPk(key)), key);
  }));
  assert.equal(parseRolloutPk('CLUSTERS'), null);
});

test('history sorts before SPEC and STATE, so one BETWEEN range reads exactly SPEC and STATE', () => {
  const sks = [historySk('r9', 123), historySk('zzz', 9_999_999_999), SK_STATE, SK_SPEC].sort();
  assert.deepEqual(sks.slice(2), [SK_SPEC, SK_STATE]);
  assert.ok(sks.slice(0, 2).every((sk) => sk.startsWith(HISTORY_PREFIX)));
});

test('history sort keys are zero-padded so seq order is string order within a release', () => {
  assert.equal(historySk('r2', 7), 'H#r2#0000000007');
  assert.ok(historySk('r2', 9) < historySk('r2', 10));
  assert.throws(() => historySk('r2', -1), ValidationError);
  assert.throws(() => historySk('r#2', 1), ValidationError);
});

test('every pk lands in one stable shard within the shard count, and rollouts spread over all shards', () => {
  fc.assert(fc.property(part, part, part, (c, n, m) => {
    const pk = rolloutPk({ cluster: c, namespace: n, name: m });
    assert.equal(dueShard(pk), dueShard(pk));
    assert.ok(allDueShards().includes(dueShard(pk)));
  }));
  const used = new Set(Array.from({ length: 200 }, (_, i) => dueShard(rolloutPk({ cluster: 'prod', namespace: 'shop', name: `app-${i}` }))));
  assert.equal(used.size, STATE_TABLE.dueIndex.shardCount);
});

test('a rollout is due at its wake-up, at the write while active, and never when idle', () => {
  const now = new Date('2030-01-01T00:00:00.000Z');
  assert.equal(dueAtFor(activeState({ nextWakeAt: '2030-01-01T01:00:00Z' }), now), '2030-01-01T01:00:00.000Z', 'normalised to toISOString');
  assert.equal(dueAtFor(activeState({ nextWakeAt: null }), now), now.toISOString());
  assert.equal(dueAtFor({ ...initialState(), nextWakeAt: '2030-01-02T00:00:00.000Z' }, now), '2030-01-02T00:00:00.000Z');
  assert.equal(dueAtFor(completedState(), now), null);
  assert.throws(() => dueAtFor(activeState({ nextWakeAt: 'tomorrow' }), now), ValidationError);
});

test('history expires 90 days after the entry, whenever it is written', () => {
  const later = new Date('2031-06-01T00:00:00.000Z');
  assert.equal(historyExpiresAt('2030-01-01T00:00:00.000Z', later), Date.parse('2030-04-01T00:00:00.000Z') / 1000);
  assert.equal(historyExpiresAt('not a date', later), Date.parse('2031-08-30T00:00:00.000Z') / 1000);
});

test('the CreateTable input is derived from STATE_TABLE', () => {
  const input = createTableInput('rollouts');
  assert.equal(input.BillingMode, 'PAY_PER_REQUEST');
  assert.deepEqual(input.KeySchema?.map((k) => k.AttributeName), [STATE_TABLE.partitionKey.name, STATE_TABLE.sortKey.name]);
  const gsi = input.GlobalSecondaryIndexes?.[0];
  assert.equal(gsi?.IndexName, STATE_TABLE.dueIndex.name);
  assert.deepEqual(gsi?.KeySchema?.map((k) => k.AttributeName), ['dueShard', 'dueAt']);
  assert.deepEqual(gsi?.Projection, { ProjectionType: 'KEYS_ONLY' });
  assert.ok(input.AttributeDefinitions?.every((a) => a.AttributeType === 'S'));
});

test('consecutive sweep windows cover every resync phase exactly once per period, whatever the tick spacing', () => {
  const period = 300_000;
  const covers = (ranges: { lo: string; hi: string }[], phase: string) => ranges.filter(({ lo, hi }) => lo <= phase && phase <= hi).length;
  fc.assert(fc.property(
    fc.array(fc.integer({ min: 1, max: 90_000 }), { minLength: 1, maxLength: 40 }),
    fc.integer({ min: 0, max: 10 ** 12 }),
    fc.array(part, { minLength: 1, maxLength: 5 }),
    (gaps, start, names) => {
      const phases = names.map((n) => resyncPhase(rolloutPk({ cluster: 'c', namespace: 'ns', name: n })));
      let from = start;
      const hits = phases.map(() => 0);
      for (const gap of gaps) {
        const ranges = resyncPhaseRanges(new Date(from), new Date(from + gap), period);
        phases.forEach((p, i) => (hits[i]! += covers(ranges, p)));
        from += gap;
      }
      // Over a span of T ms a phase comes round floor(T / period) or one more times: never skipped, never doubled.
      const span = from - start;
      for (const h of hits) assert.ok(h === Math.floor(span / period) || h === Math.floor(span / period) + 1, `${h} hits over ${span} ms`);
    },
  ));
});

test('a resync window is one sort-key range, two when it wraps round the period, all of them for a whole period', () => {
  const period = 60_000;
  const t = (s: number) => new Date(Date.parse('2030-01-01T00:00:00.000Z') + s * 1000);
  assert.equal(resyncPhaseRanges(t(10), t(20), period).length, 1);
  assert.equal(resyncPhaseRanges(t(50), t(70), period).length, 2);
  assert.deepEqual(resyncPhaseRanges(t(0), t(60), period), [{ lo: '0000000000', hi: '4294967295' }]);
  assert.deepEqual(resyncPhaseRanges(t(5), t(5), period), []);
  assert.throws(() => resyncPhaseRanges(t(0), t(1), 0), ValidationError);
  assert.match(resyncPhase(rolloutPk({ cluster: 'c', namespace: 'n', name: 'web' })), /^\d{10}$/);
});
