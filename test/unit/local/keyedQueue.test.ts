import { describe, it } from 'node:test';
import { queueKeyName } from '../../../shared/fleet/key.ts';
import assert from 'node:assert/strict';
import { LocalKeyedQueue } from '../../../shared/adapters/local/keyedQueue.ts';
import type { RolloutKey } from '../../../shared/rollout/types.ts';

const key = (name: string): RolloutKey => ({ cluster: 'local', namespace: 'default', name });

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('LocalKeyedQueue (the SQS FIFO stand-in of local mode)', () => {
  it('never runs one key on two workers at once, and runs it once more if asked while running', async () => {
    const gate = deferred();
    let concurrent = 0;
    let maxConcurrent = 0;
    let runs = 0;
    const q = new LocalKeyedQueue(async () => {
      runs += 1;
      concurrent += 1;
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      if (runs === 1) await gate.promise;
      concurrent -= 1;
      return [];
    });
    await q.enqueue(key('a'));
    await q.enqueue(key('a'));
    await q.enqueue(key('a'));
    gate.resolve();
    await q.idle();
    assert.equal(maxConcurrent, 1);
    assert.equal(runs, 2, 'three asks while running collapse into one more run');
  });

  it('collapses asks for a key that is already waiting', async () => {
    const gate = deferred();
    const seen: string[] = [];
    const q = new LocalKeyedQueue(async (k) => {
      if (queueKeyName(k) === 'blocker') await gate.promise;
      seen.push(queueKeyName(k));
      return [];
    }, { concurrency: 1 });
    await q.enqueue(key('blocker'));
    for (let i = 0; i < 5; i += 1) await q.enqueue(key('b'));
    gate.resolve();
    await q.idle();
    assert.deepEqual(seen, ['blocker', 'b']);
  });

  it('runs different keys in parallel up to the concurrency', async () => {
    const gate = deferred();
    let concurrent = 0;
    let maxConcurrent = 0;
    const q = new LocalKeyedQueue(async () => {
      concurrent += 1;
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      await gate.promise;
      concurrent -= 1;
      return [];
    }, { concurrency: 3 });
    for (const n of ['a', 'b', 'c', 'd']) await q.enqueue(key(n));
    await new Promise((r) => setImmediate(r));
    gate.resolve();
    await q.idle();
    assert.equal(maxConcurrent, 3);
  });

  it('re-runs a key after the delay its run asked for, and retries a failing key with backoff', async () => {
    const runs: string[] = [];
    const errors: unknown[] = [];
    const q = new LocalKeyedQueue(async (k, reason) => {
      runs.push(`${queueKeyName(k)}:${reason}`);
      if (queueKeyName(k) === 'moving' && runs.filter((r) => r.startsWith('moving')).length === 1) return [{ afterSeconds: 0.02, reason: 'requeue' }];
      if (queueKeyName(k) === 'broken' && runs.filter((r) => r.startsWith('broken')).length === 1) throw new Error('boom');
      return [];
    }, { retryDelayMs: 10, onError: (_k, e) => errors.push(e) });
    await q.enqueue(key('moving'), { reason: 'api' });
    await q.enqueue(key('broken'), { reason: 'api' });
    await q.idle();
    assert.deepEqual(runs.sort(), ['broken:api', 'broken:requeue', 'moving:api', 'moving:requeue']);
    assert.equal(errors.length, 1);
  });

  it('keeps only the earliest of several delayed asks', async () => {
    let runs = 0;
    const q = new LocalKeyedQueue(async () => {
      runs += 1;
      return [];
    });
    await q.enqueue(key('a'), { delaySeconds: 0.05 });
    await q.enqueue(key('a'), { delaySeconds: 0.01 });
    await q.enqueue(key('a'), { delaySeconds: 0.03 });
    await q.idle();
    assert.equal(runs, 1);
  });

  it('keeps the wake-up a pass asked for when a rerun was requested while it ran (the wake-up is not merged away)', async () => {
    const gate = deferred();
    const runs: { reason: string; at: number }[] = [];
    const scheduled: string[] = [];
    const t0 = Date.now();
    const q = new LocalKeyedQueue(async (_k, reason) => {
      runs.push({ reason, at: Date.now() - t0 });
      if (runs.length === 1) {
        await gate.promise;
        return [{ afterSeconds: 0.15, reason: 'wake' }]; // a timed pause ends in 150 ms
      }
      return [];
    }, { onScheduled: (_k, _at, reason) => scheduled.push(reason) });
    await q.enqueue(key('a'), { reason: 'api' });
    await new Promise((r) => setImmediate(r));
    await q.enqueue(key('a'), { reason: 'watch' }); // while the first pass runs
    gate.resolve();
    await q.idle();
    assert.deepEqual(runs.map((r) => r.reason), ['api', 'watch', 'wake'], 'the rerun ran at once and the wake-up still fired');
    assert.deepEqual(scheduled, ['wake']);
    assert.ok((runs[2]?.at ?? 0) >= 150, `the wake-up ran at ${runs[2]?.at} ms`);
  });

  it('an ask "now" does not cancel a pending wake-up', async () => {
    const runs: string[] = [];
    const q = new LocalKeyedQueue(async (_k, reason) => {
      runs.push(reason);
      return [];
    });
    await q.enqueue(key('a'), { delaySeconds: 0.05, reason: 'wake' });
    await q.enqueue(key('a'), { reason: 'watch' });
    await q.idle();
    assert.deepEqual(runs, ['watch', 'wake']);
  });

  it('stops taking work and waits for runs in progress', async () => {
    const gate = deferred();
    let finished = false;
    const q = new LocalKeyedQueue(async () => {
      await gate.promise;
      finished = true;
      return [{ afterSeconds: 5, reason: 'requeue' }];
    });
    await q.enqueue(key('a'));
    await new Promise((r) => setImmediate(r));
    const stopping = q.stop();
    gate.resolve();
    await stopping;
    assert.equal(finished, true);
    await q.enqueue(key('a'));
    await q.idle();
  });
});
