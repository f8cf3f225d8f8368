// The one-line status message shown by `rollouts get`. Derived from the state only (never from pod
// counts), so it changes exactly when the state does and a no-op reconcile rewrites nothing.
import { isWindowOpen, nextWindowOpening } from './windows.ts';
import type { ReleaseState, RolloutSpec } from './types.ts';

export function describe(spec: RolloutSpec, s: ReleaseState, now: Date): string {
  const rel = s.release;
  if (s.removing) return 'deleting: handing the workload back to its native controller';
  if (spec.paused) return 'paused by spec.strategy.paused';
  if (s.userPaused) return rel ? `paused at step ${rel.stepIndex + 1}/${spec.steps.length}` : 'paused: the next release will wait for resume';
  if (!rel) {
    if (s.refusal) return s.refusal;
    const last = s.lastRelease;
    if (!last) return s.stableRevision ? `stable at revision ${s.stableRevision}` : 'waiting for the workload to finish its native rollout';
    return `${last.kind} ${last.id} ${s.phase.toLowerCase()}: stable at revision ${s.stableRevision}`;
  }
  if (rel.failure) return `failed: ${rel.failure}`;
  if (rel.kind !== 'release') return `${rel.kind === 'undo' ? 'undo' : 'rolling back'} to revision ${rel.targetRevision}`;
  if (rel.finalizing) return 'finishing: last pods moving, then handing back to the native controller';
  if (rel.notBefore && now.getTime() < Date.parse(rel.notBefore)) return `scheduled: starts at ${rel.notBefore}`;
  if (!isWindowOpen(spec.windows, now)) {
    const opens = nextWindowOpening(spec.windows, now);
    return `outside the release windows${opens ? `; next opens at ${opens.toISOString()}` : ''}`;
  }
  const step = `step ${rel.stepIndex + 1}/${spec.steps.length}`;
  const pause = spec.steps[rel.stepIndex]?.pause;
  if (rel.stepState === 'StepPaused') return pause?.type === 'timed' ? `${step}: pausing ${pause.seconds}s` : `${step}: awaiting approval`;
  return `${step}: ${rel.stepState === 'Upgrading' ? 'moving pods' : 'waiting for pods to be ready'}`;
}
