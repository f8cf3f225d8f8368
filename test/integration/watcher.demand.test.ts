// The on-demand watcher's lease (shared/watch/watcherDemand.ts) on its real store, the state table on
// dynalite: one launch per demand however many passes ask at once, successors before a holder
// ends, replacement of a holder that stopped beating, and a watcher that gives the lease up only
// when no demand came in since it looked. The launcher records launches (the real one, a Lambda
// invoke, runs in the deployed-bundles test: test/integration/deployed.bundles.test.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DynamoWatcherLease } from '../../shared/adapters/dynamodb/watcherLease.ts';
import { ensureTable } from '../../shared/adapters/dynamodb/table.ts';
import { HEARTBEAT_TIMEOUT_MS, IDLE_GRACE_MS, RENEW_BEFORE_MS, ensureWatcher, holdWatcherLease, type WatcherDemandDeps } from '../../shared/watch/watcherDemand.ts';
import { type WatcherLease } from '../../shared/ports.ts';
import { startDynalite, type DynaliteHarness } from '../../bench/testbed/dynalite.ts';
import { ManualClock } from '../../bench/testbed/stateStoreFixtures.ts';
import { waitFor } from '../../bench/testbed/wait.ts';

const WATCHER_MS = 880_000;
const SILENT = { info: () => {}, warn: () => {}, error: () => {} };
let dynamo: DynaliteHarness;
let tables = 0;

before(async () => {
  dynamo = await startDynalite();
});

after(async () => {
  await dynamo?.stop();
});

/** A fresh table per test: the lease is one item per table. */
async function harness() {
  const tableName = `lease-${(tables += 1)}`;
  await ensureTable(dynamo.client, tableName);
  const lease = new DynamoWatcherLease({ client: dynamo.client, tableName });
  const clock = new ManualClock();
  const launched: number[] = [];
  const deps: WatcherDemandDeps = { lease, clock, watcherMs: WATCHER_MS, launcher: { launch: async (g) => void launched.push(g) } };
  return { lease, clock, launched, deps };
}

describe('making sure a watcher runs', () => {
  test('the first pass that moves pods launches one; later passes find it running', async () => {
    const h = await harness();
    assert.equal(await ensureWatcher(h.deps), 'launched');
    h.clock.advance(5);
    assert.equal(await ensureWatcher(h.deps), 'running');
    assert.deepEqual(h.launched, [1]);
    const lease = await h.lease.read();
    assert.equal(lease.until, h.clock.now().getTime() - 5000 + WATCHER_MS);
    assert.equal(lease.demandAt, h.clock.now().getTime(), 'the later pass recorded its demand');
  });

  test('ten passes asking at once launch exactly one watcher', async () => {
    const h = await harness();
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => ensureWatcher(h.deps)));
    assert.deepEqual(h.launched, [1]);
    assert.equal(outcomes.filter((o) => o === 'launched').length, 1);
  });

  test('a successor is launched before the holder ends, so the watches overlap', async () => {
    const h = await harness();
    await ensureWatcher(h.deps);
    await h.lease.heartbeat(1, h.clock.now());
    h.clock.advance((WATCHER_MS - RENEW_BEFORE_MS) / 1000 - 1);
    await h.lease.heartbeat(1, h.clock.now());
    assert.equal(await ensureWatcher(h.deps), 'running');
    h.clock.advance(2);
    assert.equal(await ensureWatcher(h.deps), 'launched');
    assert.deepEqual(h.launched, [1, 2]);
  });

  test('a holder that stopped beating (crashed, or its launch was lost) is replaced', async () => {
    const h = await harness();
    await ensureWatcher(h.deps);
    h.clock.advance(HEARTBEAT_TIMEOUT_MS / 1000 - 1);
    assert.equal(await ensureWatcher(h.deps), 'running');
    h.clock.advance(2);
    assert.equal(await ensureWatcher(h.deps), 'launched');
    assert.deepEqual(h.launched, [1, 2]);
  });
});

describe('the watcher holding the lease', () => {
  test('beats while pods move, then gives the lease up once nothing moved for the grace period, and a new demand launches again', async () => {
    const h = await harness();
    await ensureWatcher(h.deps);
    const stop = new AbortController();
    const holding = holdWatcherLease(1, { lease: h.lease, clock: h.clock, log: SILENT, stop, checkEveryMs: 10 });
    try {
      h.clock.advance(30);
      await waitFor(async () => (await h.lease.read()).seenAt === h.clock.now().getTime(), { message: 'a heartbeat' });
      h.clock.advance(IDLE_GRACE_MS / 1000 + 1);
      assert.equal(await Promise.race([holding, new Promise((resolve) => setTimeout(resolve, 5000, 'still holding'))]), 'released');
    } finally {
      stop.abort();
    }
    assert.ok(stop.signal.aborted, 'the proxy is told to stop');
    assert.equal(await ensureWatcher(h.deps), 'launched', 'the released lease is free at once');
    assert.deepEqual(h.launched, [1, 2]);
  });

  test('a demand that comes in between its look and its release keeps it running', async () => {
    const h = await harness();
    await ensureWatcher(h.deps);
    h.clock.advance(IDLE_GRACE_MS / 1000 + 1);
    await h.lease.heartbeat(1, h.clock.now()); // it kept beating through the grace period
    // A reconcile records demand right after the watcher read the lease, before it gives it up.
    let raced = false;
    const racing: WatcherLease = Object.assign(Object.create(h.lease) as WatcherLease, {
      read: async () => {
        const seen = await h.lease.read();
        if (!raced) {
          raced = true;
          await ensureWatcher(h.deps);
        }
        return seen;
      },
    });
    const stop = new AbortController();
    const holding = holdWatcherLease(1, { lease: racing, clock: h.clock, log: SILENT, stop, checkEveryMs: 10 });
    try {
      await waitFor(() => raced, { message: 'the racing demand' });
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(stop.signal.aborted, false, 'still watching: the release was refused');
      assert.deepEqual(h.launched, [1], 'and no second watcher: the first still holds the lease');
    } finally {
      stop.abort();
    }
    assert.equal(await holding, 'ended');
  });

  test('a watcher whose lease a successor took stops beating and runs to its own end', async () => {
    const h = await harness();
    await ensureWatcher(h.deps);
    h.clock.advance(HEARTBEAT_TIMEOUT_MS / 1000 + 1);
    await ensureWatcher(h.deps);
    const before = (await h.lease.read()).seenAt;
    const stop = new AbortController();
    const holding = holdWatcherLease(1, { lease: h.lease, clock: h.clock, log: SILENT, stop, checkEveryMs: 10 });
    try {
      h.clock.advance(10);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal((await h.lease.read()).seenAt, before, 'generation 1 no longer writes the lease');
      assert.equal(stop.signal.aborted, false);
    } finally {
      stop.abort();
    }
    assert.equal(await holding, 'ended');
  });
});
