// Issue acceptance: the reconcile pipeline is crash-safe. A batch-advancing pass is killed at each
// of its crash points (after observing, after each cluster write, before and after persisting
// STATE); the normal loop then runs to completion, and the release must end exactly where an
// uninterrupted one does — same pods, ReplicaSets, STATE and history, no duplicate transitions —
// while the invariant watcher sees no availability breach, no native-controller fight and no pod
// beyond the approved batch. One control plane; one namespace per crash point.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { HistoryEntry } from '../../shared/ports.ts';
import { Engine, type Scenario } from '../../bench/testbed/engine.ts';
import type { InvariantWatcher } from '../../bench/testbed/invariants.ts';
import {
  awaitingApproval, CrashHook, crashAt, duplicateTransitions, endState, nonDecreasing, readyBatches, type EndState,
} from '../../bench/testbed/pipeline.ts';

const V2 = 'registry.invalid/web:v2';
/** 4 replicas keep each namespace cheap; steps 1 → 50% → 100% move 1, then 2, then 4 pods. */
const REPLICAS = 4;
const BATCHES = [1, 2, 4] as const;

/**
 * The batch-advancing passes: the one that starts the release (batch 1, creating the new
 * ReplicaSet and taking the Deployment over) and the two approved ones (batch 2, and batch 3 = 100%).
 */
const PASSES = ['start', 'advance', 'final'] as const;
type Pass = (typeof PASSES)[number];
interface Interruption { pass: Pass; point: string }

interface Run {
  end: EndState;
  history: HistoryEntry[];
  watcher: InvariantWatcher;
  /** Crash points each pass visited (recorded only on an uninterrupted run). */
  points: Record<Pass, string[]>;
}

describe('the pipeline survives a crash at every point of a batch-advancing reconcile', () => {
  let engine: Engine;
  let baseline: Run;
  before(async () => { engine = await Engine.start({ podReadyDelayMs: 100 }); });
  after(async () => { await engine?.stop(); });

  it('an uninterrupted release records its crash points and ends Completed with each transition once', async () => {
    baseline = await release('baseline', null);
    for (const pass of PASSES) {
      const points = baseline.points[pass];
      const writes = points.filter((p) => p.startsWith('wrote:'));
      assert.ok(writes.length > 0, `the ${pass} pass writes to the cluster`);
      assert.deepEqual(points, ['observed', ...writes, 'before-persist', 'after-persist'], `the ${pass} pass visits every point`);
    }
    assert.equal(baseline.end.state.phase, 'Completed');
    assert.deepEqual(baseline.end.pods, { [V2]: [REPLICAS, REPLICAS] });
    assertCleanRun(baseline);
  });

  it('converges to the uninterrupted end state after a crash at each point', { concurrency: 3 }, async (t) => {
    assert.ok(baseline, 'the baseline run must pass first');
    const matrix: Interruption[] = PASSES.flatMap((pass) => baseline.points[pass].map((point) => ({ pass, point })));
    await Promise.all(matrix.map((crash) => t.test(`crash in the ${crash.pass} pass at ${crash.point}`, async () => {
      const run = await release(`crash-${crash.pass}-${crash.point.replace(':', '')}`, crash);
      assert.deepEqual(run.end, baseline.end);
      assertCleanRun(run);
    })));
  });

  /** Adopt, release V2 in 3 batches with two approvals, optionally killing one pass at one point. */
  async function release(prefix: string, crash: Interruption | null): Promise<Run> {
    const s = await engine.scenario(prefix, { replicas: REPLICAS });
    const watcher = await s.watch();
    try {
      const points: Record<Pass, string[]> = { start: [], advance: [], final: [] };
      await s.reconcileUntil((x) => x.deployment.spec?.paused === true && x.state.phase === 'Healthy', 'the Deployment to be held');

      watcher.capPods(V2, BATCHES[0]);
      await s.setImage(V2);
      points.start = await batchAdvancingPass(s, 'start', crash);
      await s.reconcileUntil((x) => awaitingApproval(x, 0), 'batch 1 to be ready');

      watcher.capPods(V2, BATCHES[1]);
      await s.command({ type: 'approve' });
      points.advance = await batchAdvancingPass(s, 'advance', crash);
      await s.reconcileUntil((x) => awaitingApproval(x, 1), 'batch 2 to be ready');

      watcher.capPods(V2, BATCHES[2]);
      await s.command({ type: 'approve' });
      points.final = await batchAdvancingPass(s, 'final', crash);
      const snap = await s.reconcileUntil((x) => x.state.phase === 'Completed', 'the release to complete');
      const history = await engine.store.listHistory(s.key);
      return { end: endState(snap, history), history, watcher, points };
    } finally {
      watcher.stop();
    }
  }
});

/**
 * The pass right after the event that moves a batch (new image, approval): killed at `crash.point`
 * when this is the interrupted pass, else run through while recording the points it visits (again
 * if it lost a race with a native controller, so the list is that of a pass that got to the end).
 */
async function batchAdvancingPass(s: Scenario, pass: Pass, crash: Interruption | null): Promise<string[]> {
  if (crash?.pass === pass) {
    await crashAt(s, crash.point);
    return [];
  }
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const hook = new CrashHook();
    const result = await s.reconcile({ crashPoint: hook.crashPoint });
    if (result.outcome !== 'conflict') {
      assert.equal(result.outcome, 'progressed', `the ${pass} pass moves the release`);
      return hook.visited;
    }
  }
  throw new Error(`the ${pass} pass kept losing races`);
}

/** No duplicate transitions, batches in order, new pods only ever added, and nothing the watcher objects to. */
function assertCleanRun(run: Run): void {
  assert.deepEqual(duplicateTransitions(run.history), [], 'each transition is recorded once');
  // The last step (every pod, no pause) is the finish itself (Release Finalizing), not a batch of its own.
  assert.deepEqual(readyBatches(run.history), [0, 1], 'batches became ready in order');
  const series = run.watcher.podCounts.get(V2) ?? [];
  assert.ok(nonDecreasing(series), `pods of the new revision only ever increase: ${series.join(' → ')}`);
  assert.equal(series[series.length - 1], REPLICAS);
  run.watcher.assertClean();
}
