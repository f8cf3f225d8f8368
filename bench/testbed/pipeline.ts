// Helpers for the pipeline's idempotency and crash-safety tests: crash injection through the
// reconcile's crashPoint hook, and comparable summaries of where a release ended up (cluster
// objects, STATE, history), so an interrupted run can be compared with an uninterrupted one.
import type { HistoryEntry } from '../../shared/ports.ts';
import { noSurplus, settleAtPause, type Scenario, type Snapshot } from './engine.ts';
import type { InvariantWatcher } from './invariants.ts';

/** What the crashPoint hook throws: the process "dies" at that line. */
export class SimulatedCrash extends Error {
  constructor(readonly point: string) {
    super(`simulated crash at ${point}`);
    this.name = 'SimulatedCrash';
  }
}

/**
 * A crashPoint hook that records every point the passes it is given to visit and, when armed with
 * `at`, dies there exactly once (later passes with the same hook run through).
 */
export class CrashHook {
  readonly visited: string[] = [];
  fired = false;

  constructor(private readonly at: string | null = null) {}

  readonly crashPoint = (point: string): void => {
    this.visited.push(point);
    if (point === this.at && !this.fired) {
      this.fired = true;
      throw new SimulatedCrash(point);
    }
  };
}

/**
 * Reconciles with a hook armed at `point` until the pass dies there. Usually the first pass does;
 * a pass may end before the point when it loses a race with a native controller (409), and the
 * next one, re-deriving the same transition, gets there.
 */
export async function crashAt(s: Scenario, point: string, maxPasses = 5): Promise<void> {
  const hook = new CrashHook(point);
  for (let pass = 0; pass < maxPasses && !hook.fired; pass += 1) {
    try {
      await s.reconcile({ crashPoint: hook.crashPoint });
    } catch (err) {
      if (!(err instanceof SimulatedCrash)) throw err;
    }
  }
  if (!hook.fired) throw new Error(`no pass reached crash point ${point}; visited ${hook.visited.join(', ')}`);
}

/** The release waits for approval after step `step` (0-based). */
export function awaitingApproval(x: Snapshot, step: number): boolean {
  return x.state.release?.stepIndex === step && x.state.release.stepState === 'StepPaused' && noSurplus(x);
}

/**
 * Adopt and hold the Deployment, switch it to `image` and reconcile until the first batch is ready
 * and waits for approval. With a watcher, the first batch is also the gate for `image`'s pods.
 */
export async function releaseToFirstApproval(s: Scenario, image: string, firstBatch: number, watcher?: InvariantWatcher): Promise<Snapshot> {
  await s.reconcileUntil((x) => x.deployment.spec?.paused === true && x.state.phase === 'Healthy', 'the Deployment to be held');
  watcher?.capPods(image, firstBatch);
  await s.setImage(image);
  await s.reconcileUntil((x) => awaitingApproval(x, 0), 'batch 1 to be ready');
  await settleAtPause(() => s.reconcile());
  return s.snapshot();
}

/** One history entry without what legitimately differs between runs (time, sequence numbers). */
export function historyLine(e: HistoryEntry): string {
  return `${e.releaseId} ${e.type} step=${e.stepIndex ?? '-'} ${e.phase}: ${e.message}`;
}

/** Transitions recorded more than once: the same event type for the same release and step. */
export function duplicateTransitions(entries: HistoryEntry[]): string[] {
  const seen = new Map<string, number>();
  for (const e of entries) {
    const key = `${e.releaseId} ${e.type} step=${e.stepIndex ?? '-'}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  return [...seen.entries()].filter(([, n]) => n > 1).map(([key, n]) => `${key} ×${n}`);
}

export interface EndState {
  /** image → [live pods, ready pods] */
  pods: Record<string, [number, number]>;
  /** name image replicas revision, sorted by name. */
  replicaSets: string[];
  deployment: { paused: boolean; strategy: string | undefined; annotations: string[] };
  state: { phase: string; stableRevision: string | null; release: string | null; lastRelease: string | null; commands: number; userPaused: boolean };
  history: string[];
}

/** Where a rollout ended up, comparable across namespaces and runs (names and revisions are template hashes). */
export function endState(snap: Snapshot, history: HistoryEntry[]): EndState {
  const s = snap.state;
  const describeRelease = (r: typeof s.release) => (r ? `${r.id} ${r.kind} step=${r.stepIndex} ${r.stepState} finalizing=${r.finalizing} end=${r.endPhase}` : null);
  return {
    pods: Object.fromEntries(Object.entries(snap.pods).sort(([a], [b]) => a.localeCompare(b)).map(([image, p]) => [image, [p.total, p.ready]])),
    replicaSets: snap.replicaSets
      .map((rs) => `${rs.metadata?.name} ${rs.spec?.template?.spec?.containers[0]?.image} ${rs.spec?.replicas} rev=${rs.metadata?.annotations?.['deployment.kubernetes.io/revision']}`)
      .sort(),
    deployment: {
      paused: snap.deployment.spec?.paused === true,
      strategy: snap.deployment.spec?.strategy?.type,
      annotations: Object.keys(snap.deployment.metadata?.annotations ?? {}).sort(),
    },
    state: {
      phase: s.phase,
      stableRevision: s.stableRevision,
      release: describeRelease(s.release),
      lastRelease: describeRelease(s.lastRelease),
      commands: s.commands.length,
      userPaused: s.userPaused,
    },
    history: history.map(historyLine),
  };
}

/** Indexes of the steps whose batch became ready, in the order history recorded them. */
export function readyBatches(history: HistoryEntry[]): (number | null)[] {
  return history.filter((e) => e.type === 'Batch Ready').map((e) => e.stepIndex);
}

/** True when the numbers never go down. */
export function nonDecreasing(values: number[]): boolean {
  return values.every((v, i) => i === 0 || v >= (values[i - 1] ?? v));
}
