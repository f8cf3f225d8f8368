// The one status every view shows for a rollout: `rollouts list`, `rollouts get`, `rollouts status`,
// the dashboard's list and its rollout page all call rolloutStatus(), so one state never reads as two
// (a release awaiting approval was "Progressing" in the lists and "Paused" in `get`). As in Argo
// Rollouts, a release waiting at a pause step (approval or timer) or paused by a command is
// "‖ Paused"; the stored phase (JSON output, the CI verdict of `status`) stays Progressing.
// Also the words for what the current step does: the step states are Kruise's internal names
// (StepPaused, StepReady), never shown as such.
import type { RolloutSummary, StatusResponse } from '../api/types.ts';
import type { Phase, ReleaseState, RolloutSpec, StepState } from '../rollout/types.ts';
import { secondsLeft } from './progress.ts';
import { ICON, phaseIcon } from './symbols.ts';

/** What the status depends on, as every response carries it. */
export interface StatusFacts {
  phase: Phase;
  /** Paused by `rollouts pause` or spec.strategy.paused. */
  paused: boolean;
  /** The running release's step state; null without a release. */
  stepState: StepState | null;
}

export interface RolloutStatus {
  icon: string;
  /** One word: Healthy, Progressing, Paused, Completed, Failed, Aborted, Degraded. */
  word: string;
  /** "‖ Paused". */
  text: string;
}

export function rolloutStatus(f: StatusFacts): RolloutStatus {
  // A failed release is phase Failed (shared/rollout/plan.ts), so Progressing here has no failure.
  const paused = f.phase === 'Progressing' && (f.paused || f.stepState === 'StepPaused');
  const word = paused ? 'Paused' : f.phase;
  const icon = paused ? ICON.paused : phaseIcon(f.phase);
  return { icon, word, text: `${icon} ${word}` };
}

export function factsOfState(state: ReleaseState, spec?: Pick<RolloutSpec, 'paused'>): StatusFacts {
  return { phase: state.phase, paused: state.userPaused || (spec?.paused ?? false), stepState: state.release?.stepState ?? null };
}

export function factsOfSummary(r: RolloutSummary): StatusFacts {
  return { phase: r.phase, paused: r.paused, stepState: r.step?.state ?? null };
}

export function factsOfStatus(s: StatusResponse): StatusFacts {
  return { phase: s.phase, paused: s.paused.user || s.paused.spec, stepState: s.step?.state ?? null };
}

/** What the current step is doing, in the user's words: "awaiting approval", "pausing 60s (42s left)". */
export function stepStateLabel(spec: RolloutSpec, state: ReleaseState, now: Date): string {
  const rel = state.release;
  if (!rel) return '';
  if (rel.failure) return `failed: ${rel.failure}`;
  if (state.userPaused || spec.paused) return 'paused (rollouts resume)';
  if (rel.gated) return state.message;
  const pause = spec.steps[rel.stepIndex]?.pause;
  switch (rel.stepState) {
    case 'Upgrading':
      return 'moving pods';
    case 'Verifying':
      return 'waiting for pods to be ready';
    case 'Analyzing':
    case 'TrafficRouting':
      return state.message.replace(/^step \d+\/\d+: /, '');
    case 'StepReady':
      return 'ready';
    case 'StepPaused': {
      if (pause?.type !== 'timed') return `awaiting approval (rollouts approve ${spec.name})`;
      const left = secondsLeft(state.cause?.kind === 'TimedPause' ? state.cause.until : state.nextWakeAt, now);
      return `pausing ${pause.seconds}s${left !== null ? ` (${left}s left)` : ''}`;
    }
  }
}
