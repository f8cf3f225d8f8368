// One SQS batch → one reconcile per key, partial failures per key, follow-up messages.
import { queueKeyName } from '../../../shared/fleet/key.ts';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { WakeScheduler } from '../../../shared/ports.ts';
import { encodeReconcileMessage } from '../../../shared/adapters/sqs/messages.ts';
import { reconcileBatch, type BatchRecord, type ReconcileBatchDeps } from '../../../shared/app/reconcileBatch.ts';
import { Meter } from '../../../shared/meter.ts';
import type { Trigger } from '../../../shared/adapters/sqs/messages.ts';
import type { ReconcileResult } from '../../../shared/reconcile/reconcile.ts';
import type { RolloutKey } from '../../../shared/rollout/types.ts';
import { MemoryQueue } from '../../../bench/testbed/fakes/memoryQueue.ts';
import { ManualClock, T0 } from '../../../bench/testbed/stateStoreFixtures.ts';

const web: RolloutKey = { cluster: 'prod', namespace: 'shop', name: 'web' };
const api: RolloutKey = { cluster: 'prod', namespace: 'shop', name: 'api' };

function record(id: string, key: RolloutKey, reason = 'api'): BatchRecord {
  return { messageId: id, body: encodeReconcileMessage(key, reason) };
}

function watchEvent(id: string, key: RolloutKey): BatchRecord {
  const event = { version: '0', id: 'e1', 'detail-type': 'Workload Changed', source: 'serverless-rollouts.watch', detail: { ...key, reasons: ['ReplicaSet web-1 MODIFIED'] } };
  return { messageId: id, body: JSON.stringify(event) };
}

function result(overrides: Partial<ReconcileResult> = {}): ReconcileResult {
  return { outcome: 'noop', phase: 'Healthy', requeueSeconds: null, wakeAt: null, previousWakeAt: null, writes: 0, counts: new Meter().snapshot(), ...overrides };
}

class RecordingWakeups implements WakeScheduler {
  readonly calls: string[] = [];
  async schedule(_key: RolloutKey, at: Date): Promise<void> {
    this.calls.push(`schedule ${at.toISOString()}`);
  }
  async cancel(_key: RolloutKey, at: Date): Promise<void> {
    this.calls.push(`cancel ${at.toISOString()}`);
  }
}

const silent = { info: () => {}, warn: () => {}, error: () => {} };

function deps(run: ReconcileBatchDeps['run'], queue = new MemoryQueue()): ReconcileBatchDeps & { queue: MemoryQueue } {
  return { run, queue, clock: new ManualClock(), log: silent };
}

describe('reconcile batch', () => {
  test('several messages for one key make one reconcile, and none is reported failed', async () => {
    const calls: string[] = [];
    const out = await reconcileBatch([record('m1', web), record('m2', web, 'sweep'), record('m3', api)], deps(async (key, trigger) => {
      calls.push(`${queueKeyName(key)}:${trigger}`);
      return result();
    }));
    assert.deepEqual(calls.sort(), ['api:api', 'web:api']);
    assert.deepEqual(out.failures, []);
    assert.deepEqual(out.keys.find((k) => queueKeyName(k.key) === 'web')?.messageIds, ['m1', 'm2']);
  });

  test('a fleet key and a rollout key of the same name are two keys: each runs once, with its own key', async () => {
    const seen: string[] = [];
    const fleet = { messageId: 'f1', body: encodeReconcileMessage({ fleet: 'web' }, 'member') };
    const again = { messageId: 'f2', body: encodeReconcileMessage({ fleet: 'web' }, 'api') };
    const out = await reconcileBatch([fleet, record('m1', web), again], deps(async (key) => {
      seen.push(JSON.stringify(key));
      return result();
    }));
    assert.deepEqual(seen.sort(), [JSON.stringify({ fleet: 'web' }), JSON.stringify(web)].sort());
    assert.deepEqual(out.keys.find((k) => 'fleet' in k.key)?.messageIds, ['f1', 'f2']);
    assert.equal(out.invalid, 0);
  });

  test('a fleet message with a name no fleet can have is dropped', async () => {
    const out = await reconcileBatch([{ messageId: 'x', body: JSON.stringify({ fleet: 'a#b', reason: 'api' }) }], deps(async () => result()));
    assert.deepEqual([out.invalid, out.keys.length], [1, 0]);
  });

  test('a key whose reconcile throws fails all of its messages and only those', async () => {
    const out = await reconcileBatch([record('m1', web), record('m2', api), record('m3', web)], deps(async (key) => {
      if (queueKeyName(key) === 'web') throw new Error('apiserver unreachable');
      return result();
    }));
    assert.deepEqual(out.failures, ['m1', 'm3']);
  });

  test('a watch event routed from EventBridge is decoded from its detail and runs as a watch trigger', async () => {
    const triggers: Trigger[] = [];
    await reconcileBatch([watchEvent('m1', web)], deps(async (_key, trigger) => {
      triggers.push(trigger);
      return result();
    }));
    assert.deepEqual(triggers, ['watch']);
  });

  test('a body that names no rollout is dropped, not retried forever', async () => {
    let runs = 0;
    const out = await reconcileBatch([{ messageId: 'm1', body: 'not json' }, { messageId: 'm2', body: '{"cluster":"prod"}' }], deps(async () => {
      runs += 1;
      return result();
    }));
    assert.deepEqual([runs, out.invalid, out.failures], [0, 2, []]);
  });

  test('a pass that asks to run again soon leaves a delayed message', async () => {
    const d = deps(async () => result({ outcome: 'progressed', requeueSeconds: 0.2 }));
    await reconcileBatch([record('m1', web)], d);
    assert.deepEqual(d.queue.sent, [{ key: web, delaySeconds: 1, reason: 'requeue' }]);
  });

  test('a wake-up set by this pass within 15 minutes is a delayed message; a later one a one-off schedule; an unchanged one neither', async () => {
    const at = (ms: number) => new Date(T0.getTime() + ms).toISOString();
    const soon = deps(async () => result({ outcome: 'progressed', wakeAt: at(90_000) }));
    await reconcileBatch([record('m1', web)], soon);
    assert.deepEqual(soon.queue.sent, [{ key: web, delaySeconds: 90, reason: 'wake' }]);
    const later = { ...deps(async () => result({ outcome: 'progressed', wakeAt: at(3_600_000) })), wakeups: new RecordingWakeups() };
    await reconcileBatch([record('m1', web)], later);
    assert.deepEqual(later.queue.sent, []);
    assert.deepEqual(later.wakeups.calls, [`schedule ${at(3_600_000)}`]);
    const unchanged = deps(async () => result({ outcome: 'noop', wakeAt: at(90_000), previousWakeAt: at(90_000) }));
    await reconcileBatch([record('m1', web)], unchanged);
    assert.deepEqual(unchanged.queue.sent, [], 'the many no-op passes of a pause add no messages');
    const progressedSameWake = deps(async () => result({ outcome: 'progressed', requeueSeconds: 2, wakeAt: at(90_000), previousWakeAt: at(90_000) }));
    await reconcileBatch([record('m1', web)], progressedSameWake);
    assert.deepEqual(progressedSameWake.queue.sent.map((m) => m.reason), ['requeue'], 'a wake-up already sent is not sent again');
  });

  test('a pass that asks to run again soon AND sets a wake-up leaves both messages (the wake-up is not dropped)', async () => {
    const d = deps(async () => result({ outcome: 'progressed', requeueSeconds: 2, wakeAt: new Date(T0.getTime() + 10_000).toISOString() }));
    await reconcileBatch([record('m1', web)], d);
    assert.deepEqual(d.queue.sent, [{ key: web, delaySeconds: 2, reason: 'requeue' }, { key: web, delaySeconds: 10, reason: 'wake' }]);
  });

  test('a redelivered message sends the stored wake-up again: the attempt that set it may have died before sending it', async () => {
    const wake = new Date(T0.getTime() + 30_000).toISOString();
    const d = deps(async () => result({ outcome: 'noop', wakeAt: wake, previousWakeAt: wake }));
    await reconcileBatch([{ ...record('m1', web), receiveCount: 2 }], d);
    assert.deepEqual(d.queue.sent, [{ key: web, delaySeconds: 30, reason: 'wake' }]);
  });

  test('a wake-up that moved deletes the schedule of the one it replaced', async () => {
    const far = new Date(T0.getTime() + 7_200_000).toISOString();
    const d = { ...deps(async () => result({ outcome: 'progressed', wakeAt: null, previousWakeAt: far })), wakeups: new RecordingWakeups() };
    await reconcileBatch([record('m1', web)], d);
    assert.deepEqual(d.wakeups.calls, [`cancel ${far}`]);
  });

  test('when the re-run cannot be queued the messages fail, so SQS delivers them again', async () => {
    const queue = new MemoryQueue();
    queue.failWith = new Error('throttled');
    const out = await reconcileBatch([record('m1', web)], deps(async () => result({ requeueSeconds: 5 }), queue));
    assert.deepEqual(out.failures, ['m1']);
  });

  test('keys run in parallel up to the limit', async () => {
    let running = 0;
    let peak = 0;
    const releases: (() => void)[] = [];
    const keys = ['a', 'b', 'c', 'd', 'e'].map((name) => ({ ...web, name }));
    const done = reconcileBatch(keys.map((k, i) => record(`m${i}`, k)), {
      ...deps(async () => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running -= 1;
        return result();
      }),
      concurrency: 2,
    });
    let finished = false;
    void done.then(() => (finished = true));
    // Let the workers start, then finish one pass at a time until the batch is done.
    while (!finished) {
      await new Promise((resolve) => setImmediate(resolve));
      releases.shift()?.();
    }
    assert.equal(peak, 2);
  });
});

describe('the on-demand watcher', () => {
  function watcher(outcome: 'running' | 'launched' | Error) {
    const asked: string[] = [];
    const lease = {
      demand: async () => {
        asked.push('demand');
        if (outcome instanceof Error) throw outcome;
        return { generation: outcome === 'running' ? 1 : 0, until: Number.MAX_SAFE_INTEGER, seenAt: T0.getTime(), demandAt: T0.getTime() };
      },
      claim: async () => 1,
      heartbeat: async () => true,
      release: async () => true,
      read: async () => ({ generation: 0, until: 0, seenAt: 0, demandAt: 0 }),
    };
    return { asked, deps: { lease, launcher: { launch: async () => void asked.push('launch') }, clock: new ManualClock(), watcherMs: 880_000 } };
  }

  test('is asked for once per batch when a pass moves pods, and not when nothing moves', async () => {
    const w = watcher('launched');
    await reconcileBatch([record('m1', web), record('m2', api)], { ...deps(async (key) => result({ outcome: 'progressed', requeueSeconds: queueKeyName(key) === 'web' ? 5 : null })), watcher: w.deps });
    assert.deepEqual(w.asked, ['demand', 'launch']);
    const idle = watcher('launched');
    await reconcileBatch([record('m1', web)], { ...deps(async () => result()), watcher: idle.deps });
    assert.deepEqual(idle.asked, []);
  });

  test('a failure to reach the lease fails no message: the re-run is already queued', async () => {
    const w = watcher(new Error('DynamoDB throttled'));
    const queue = new MemoryQueue();
    const out = await reconcileBatch([record('m1', web)], { ...deps(async () => result({ outcome: 'progressed', requeueSeconds: 5 }), queue), watcher: w.deps });
    assert.deepEqual(out.failures, []);
    assert.deepEqual(w.asked, ['demand']);
  });
});
