// Local mode's sweep tick: the same sweepDue as the sweep Lambda, every interval, never overlapping.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Timers } from '../../../shared/watch/coalescer.ts';
import { SweepTimer } from '../../../shared/local/sweepTimer.ts';
import type { RolloutKey } from '../../../shared/rollout/types.ts';
import { MemoryQueue } from '../../../bench/testbed/fakes/memoryQueue.ts';
import { queueKeyName } from '../../../shared/fleet/key.ts';

/** Timers driven by hand: fire() runs the pending one. */
function manualTimers() {
  const pending = new Map<number, { fn: () => void; ms: number }>();
  let next = 0;
  const timers: Timers = {
    set: (fn, ms) => (pending.set(++next, { fn, ms }), next),
    clear: (handle) => void pending.delete(handle as number),
  };
  return {
    timers,
    pending: () => [...pending.values()].map((p) => p.ms),
    fire() {
      const [id, t] = [...pending.entries()][0] ?? [];
      if (id === undefined || !t) throw new Error('no timer pending');
      pending.delete(id);
      t.fn();
    },
  };
}

const key = (name: string): RolloutKey => ({ cluster: 'local', namespace: 'default', name });
const settle = () => new Promise((resolve) => setImmediate(resolve));

const noResync = async () => [];
const clock = { now: () => new Date() };

describe('SweepTimer (local stand-in for the Scheduler tick)', () => {
  test('it sweeps at start, then every interval, queueing the due keys with reason "sweep"', async () => {
    const t = manualTimers();
    const queue = new MemoryQueue();
    const due = [[key('a'), key('b')], [key('c')]];
    const sweep = new SweepTimer({ deps: { store: { queryDue: async () => due.shift() ?? [], queryResync: noResync }, queue, clock, resyncPeriodMs: 30_000 }, intervalMs: 10_000, timers: t.timers });
    sweep.start();
    await settle();
    assert.deepEqual(queue.sent.map((s) => [queueKeyName(s.key), s.reason]), [['a', 'sweep'], ['b', 'sweep']]);
    assert.deepEqual(t.pending(), [10_000]);
    t.fire();
    await settle();
    assert.deepEqual(queue.keys(), ['local/default/a', 'local/default/b', 'local/default/c']);
    await sweep.stop();
    assert.deepEqual(t.pending(), []);
  });

  test('resync windows join up: the first spans a whole period, each next one starts where the last ended', async () => {
    const t = manualTimers();
    let now = Date.parse('2030-01-01T00:00:00.000Z');
    const windows: [number, number, number][] = [];
    const sweep = new SweepTimer({
      deps: {
        store: { queryDue: async () => [], queryResync: async (from, to, period) => (windows.push([from.getTime(), to.getTime(), period]), [key('idle')]) },
        queue: new MemoryQueue(), clock: { now: () => new Date(now) }, resyncPeriodMs: 30_000,
      },
      intervalMs: 10_000, timers: t.timers,
    });
    sweep.start();
    await settle();
    for (let i = 0; i < 2; i++) {
      now += 10_500;
      t.fire();
      await settle();
    }
    const t0 = Date.parse('2030-01-01T00:00:00.000Z');
    assert.deepEqual(windows, [[t0 - 30_000, t0, 30_000], [t0, t0 + 10_500, 30_000], [t0 + 10_500, t0 + 21_000, 30_000]]);
    await sweep.stop();
  });

  test('a slow sweep is not overlapped: the next tick is only scheduled when it is done', async () => {
    const t = manualTimers();
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    let queries = 0;
    const sweep = new SweepTimer({
      deps: { store: { queryDue: async () => (queries++, await slow, []), queryResync: noResync }, queue: new MemoryQueue(), clock, resyncPeriodMs: 30_000 },
      timers: t.timers,
    });
    sweep.start();
    await settle();
    assert.deepEqual(t.pending(), [], 'no tick while one runs');
    const joined = sweep.tick(); // joins the running sweep instead of starting another
    assert.equal(queries, 1);
    release();
    await joined;
    await settle();
    assert.deepEqual(t.pending().length, 1, 'the next tick once it is done');
    await sweep.stop();
  });

  test('a failing sweep is reported and the ticks go on; stop waits for the running one', async () => {
    const t = manualTimers();
    const errors: string[] = [];
    const sweep = new SweepTimer({
      deps: { store: { queryDue: async () => { throw new Error('dynalite is down'); }, queryResync: noResync }, queue: new MemoryQueue(), clock, resyncPeriodMs: 30_000 },
      timers: t.timers,
      onError: (err) => errors.push((err as Error).message),
    });
    sweep.start();
    await settle();
    assert.deepEqual(errors, ['dynalite is down']);
    assert.equal(t.pending().length, 1);
    await sweep.stop();
    assert.deepEqual(t.pending(), []);
  });
});
