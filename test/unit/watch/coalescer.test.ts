// Per-key coalescing with hand-driven timers: what is sent, and at which edge (leading / trailing).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { RolloutKey } from '../../../shared/rollout/types.ts';
import { Coalescer, type Timers } from '../../../shared/watch/coalescer.ts';
import type { WorkloadChange } from '../../../shared/ports.ts';

const web: RolloutKey = { cluster: 'prod', namespace: 'shop', name: 'web' };
const api: RolloutKey = { cluster: 'prod', namespace: 'shop', name: 'api' };

/** Timers the test fires by hand: `tick()` runs the 0 ms ones (the next tick), `endWindow()` the window's. */
class ManualTimers implements Timers {
  armed = new Map<number, { fn: () => void; ms: number }>();
  private seq = 0;
  set(fn: () => void, ms: number): unknown {
    this.armed.set(++this.seq, { fn, ms });
    return this.seq;
  }
  clear(handle: unknown): void {
    this.armed.delete(handle as number);
  }
  private fire(which: (ms: number) => boolean): void {
    for (const [id, t] of [...this.armed]) {
      if (!which(t.ms)) continue;
      this.armed.delete(id);
      t.fn();
    }
  }
  tick(): void {
    this.fire((ms) => ms === 0);
  }
  endWindow(): void {
    this.fire((ms) => ms > 0);
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

const reasons = (batches: WorkloadChange[][]) => batches.map((b) => b.map((c) => `${c.name}:${c.reasons.join('+')}`));

describe('coalescer: leading edge, then trailing', () => {
  test('the first event of a quiet key goes out at once (with the rest of the same tick), not after the window', async () => {
    const { timers, batches, coalescer } = setup();
    coalescer.add(web, 'Deployment web MODIFIED');
    coalescer.add(web, 'Deployment web MODIFIED');
    coalescer.add(api, 'Deployment api MODIFIED');
    timers.tick();
    await settle();
    assert.deepEqual(reasons(batches), [['web:Deployment web MODIFIED', 'api:Deployment api MODIFIED']]);
    timers.endWindow();
    await settle();
    assert.equal(batches.length, 1, 'nothing more happened: no trailing send');
    assert.equal(coalescer.sent, 2);
  });

  test('later events of a key within the window are one trailing send at its end, with their distinct reasons', async () => {
    const { timers, batches, coalescer } = setup();
    coalescer.add(web, 'a');
    timers.tick();
    await settle();
    for (const r of ['b', 'b', 'c']) coalescer.add(web, r);
    timers.tick();
    await settle();
    assert.equal(batches.length, 1, 'held until the window ends');
    timers.endWindow();
    await settle();
    assert.deepEqual(reasons(batches), [['web:a'], ['web:b+c']]);
  });

  test('a key that keeps changing is sent at most once per window; once quiet for a window its next event leads again', async () => {
    const { timers, batches, coalescer } = setup();
    coalescer.add(web, 'a');
    timers.tick();
    coalescer.add(web, 'b');
    timers.endWindow(); // trailing b; web stays hot
    coalescer.add(web, 'c');
    timers.tick();
    await settle();
    assert.deepEqual(reasons(batches), [['web:a'], ['web:b']], 'c waits: web was sent in this window');
    timers.endWindow(); // trailing c
    timers.endWindow(); // a quiet window: web cools down
    coalescer.add(web, 'd');
    timers.tick();
    await settle();
    assert.deepEqual(reasons(batches), [['web:a'], ['web:b'], ['web:c'], ['web:d']]);
  });

  test('a failed send keeps the changes for the end of the window', async () => {
    let fail = true;
    const { timers, batches, errors, coalescer } = setup(async () => {
      if (fail) throw new Error('throttled');
    });
    coalescer.add(web, 'a');
    timers.tick();
    await settle();
    assert.equal(errors.length, 1);
    assert.equal(coalescer.pendingCount, 1);
    fail = false;
    timers.endWindow();
    await settle();
    assert.deepEqual(batches, [[{ ...web, reasons: ['a'] }]]);
  });

  test('many reasons are capped with a count of the rest', async () => {
    const { timers, batches, coalescer } = setup();
    for (const r of ['a', 'b', 'c', 'd', 'e']) coalescer.add(web, r);
    timers.tick();
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
