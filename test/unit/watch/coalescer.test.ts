// Per-key coalescing with hand-driven timers: what is sent, not when.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { RolloutKey } from '../../../shared/rollout/types.ts';
import { Coalescer, type Timers } from '../../../shared/watch/coalescer.ts';
import type { WorkloadChange } from '../../../shared/watch/types.ts';

const web: RolloutKey = { cluster: 'prod', namespace: 'shop', name: 'web' };
const api: RolloutKey = { cluster: 'prod', namespace: 'shop', name: 'api' };

/** Timers the test fires by hand. */
class ManualTimers implements Timers {
  armed = new Map<number, () => void>();
  private seq = 0;
  set(fn: () => void): unknown {
    this.armed.set(++this.seq, fn);
    return this.seq;
  }
  clear(handle: unknown): void {
    this.armed.delete(handle as number);
  }
  fire(): void {
    const fns = [...this.armed.values()];
    this.armed.clear();
    for (const fn of fns) fn();
  }
}

function setup(send: (c: WorkloadChange[]) => Promise<void> = async () => {}) {
  const timers = new ManualTimers();
  const batches: WorkloadChange[][] = [];
  const errors: unknown[] = [];
  const coalescer = new Coalescer({
    windowMs: 1000,
    timers,
    send: async (c) => {
      await send(c);
      batches.push(c);
    },
    onSendError: (err) => errors.push(err),
    maxReasons: 3,
  });
  return { timers, batches, errors, coalescer };
}

async function settle(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}

describe('coalescer', () => {
  test('events of one window are sent once per key, with their distinct reasons', async () => {
    const { timers, batches, coalescer } = setup();
    coalescer.add(web, 'ReplicaSet web-1 MODIFIED');
    coalescer.add(web, 'ReplicaSet web-1 MODIFIED');
    coalescer.add(web, 'Deployment web MODIFIED');
    coalescer.add(api, 'Deployment api MODIFIED');
    assert.equal(timers.armed.size, 1, 'one timer for the window, not one per event');
    assert.deepEqual(batches, []);
    timers.fire();
    await settle();
    assert.deepEqual(batches, [[
      { ...web, reasons: ['ReplicaSet web-1 MODIFIED', 'Deployment web MODIFIED'] },
      { ...api, reasons: ['Deployment api MODIFIED'] },
    ]]);
    assert.equal(coalescer.sent, 2);
  });

  test('a new window starts after a flush', async () => {
    const { timers, batches, coalescer } = setup();
    coalescer.add(web, 'a');
    timers.fire();
    await settle();
    coalescer.add(web, 'b');
    timers.fire();
    await settle();
    assert.deepEqual(batches.map((b) => b.map((c) => c.reasons)), [[['a']], [['b']]]);
  });

  test('a failed send keeps the changes for the next window', async () => {
    let fail = true;
    const { timers, batches, errors, coalescer } = setup(async () => {
      if (fail) throw new Error('throttled');
    });
    coalescer.add(web, 'a');
    timers.fire();
    await settle();
    assert.equal(errors.length, 1);
    assert.equal(coalescer.pendingCount, 1);
    fail = false;
    timers.fire();
    await settle();
    assert.deepEqual(batches, [[{ ...web, reasons: ['a'] }]]);
  });

  test('many reasons are capped with a count of the rest', async () => {
    const { timers, batches, coalescer } = setup();
    for (const r of ['a', 'b', 'c', 'd', 'e']) coalescer.add(web, r);
    timers.fire();
    await settle();
    assert.deepEqual(batches[0]?.[0]?.reasons, ['a', 'b', 'and 3 more']);
  });

  test('drain sends what is pending and leaves no timer armed', async () => {
    const { timers, batches, coalescer } = setup();
    coalescer.add(web, 'a');
    await coalescer.drain();
    assert.deepEqual(batches.length, 1);
    assert.equal(timers.armed.size, 0);
  });
});
