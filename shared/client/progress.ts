// Where a release stands, for every viewer (the CLI's `get` and `status`, the dashboard): which
// steps are done, which one is current, and how many pods of the current batch have moved. Pure:
// the stored state plus, for the pod counts, the live workload (GET .../workload).
import type { WorkloadResponse } from '../api/workloadRoutes.ts';
import { stepTarget } from '../rollout/arithmetic.ts';
import type { ReleaseState, RolloutSpec } from '../rollout/types.ts';

export type StepStatus = 'done' | 'current' | 'waiting';

/** Step `i` of the spec: done, the release's current one, or still to come. */
export function stepStatus(state: ReleaseState, i: number): StepStatus {
  const rel = state.release?.kind === 'release' ? state.release : null;
  const completed = !rel && state.phase === 'Completed' && state.lastRelease?.kind === 'release';
  if (completed || (rel && (rel.finalizing || i < rel.stepIndex))) return 'done';
  return rel && i === rel.stepIndex ? 'current' : 'waiting';
}

export interface BatchProgress {
  /** 1-based step, of `steps` (a rollback or undo is one step of its own). */
  step: number;
  steps: number;
  /** Pods of the release's revision that are Available, at most the batch. */
  moved: number;
  /** Pods the current batch asks of the release's revision. */
  batch: number;
}

/** The current batch's progress, or null without a release or without the live workload. */
export function batchProgress(spec: RolloutSpec, state: ReleaseState, workload: Pick<WorkloadResponse, 'replicas' | 'revisions'> | null): BatchProgress | null {
  const rel = state.release;
  if (!rel || !workload) return null;
  const total = workload.replicas;
  const whole = rel.kind !== 'release' || rel.finalizing;
  const batch = whole ? total : stepTarget(spec, rel.stepIndex, total);
  const target = workload.revisions.find((r) => r.id === rel.targetRevision);
  return {
    step: rel.kind === 'release' ? rel.stepIndex + 1 : 1,
    steps: rel.kind === 'release' ? spec.steps.length : 1,
    moved: Math.min(batch, target?.available ?? 0),
    batch,
  };
}

/** Seconds until `until` (a timed pause's end, a window's opening), or null when past or unknown. */
export function secondsLeft(until: string | null | undefined, now: Date): number | null {
  const t = until ? Date.parse(until) : Number.NaN;
  if (Number.isNaN(t)) return null;
  const left = Math.ceil((t - now.getTime()) / 1000);
  return left > 0 ? left : null;
}

/** Revision id → tag: the release's target is the canary, the revision it started from the stable one. */
export function revisionTags(state: ReleaseState): Record<string, string> {
  const rel = state.release;
  if (!rel) return state.stableRevision ? { [state.stableRevision]: 'stable' } : {};
  // A rollback or undo moves pods back to a known-good revision: that one is the stable one.
  if (rel.kind !== 'release') return { [rel.targetRevision]: 'stable' };
  return { [rel.targetRevision]: 'canary', [rel.stableRevision]: 'stable' };
}
