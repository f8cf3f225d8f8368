// Status icons and ages as kubectl-argo-rollouts shows them (pkg/kubectl-argo-rollouts/info), so
// people who know that tool read ours at a glance.
import type { Phase, ReleaseState } from '../rollout/types.ts';

export const ICON = {
  ok: '✔',
  progressing: '◌',
  paused: '॥',
  bad: '✖',
  warning: '⚠',
  waiting: '◷',
  neutral: '•',
  unknown: '?',
} as const;

const PHASE_ICON: Record<Phase, string> = {
  Healthy: ICON.ok,
  Completed: ICON.ok,
  Progressing: ICON.progressing,
  Paused: ICON.paused,
  Failed: ICON.bad,
  Degraded: ICON.bad,
  Aborted: ICON.bad,
};

export function phaseIcon(phase: Phase): string {
  return PHASE_ICON[phase] ?? ICON.unknown;
}

/**
 * The status shown for a rollout: its phase with the phase's icon, except that a release waiting at
 * a pause step (approval or timer), or paused by a command, shows as "॥ Paused" as Argo Rollouts
 * does. The phase itself (JSON output, `status`) stays Progressing.
 */
export function displayStatus(state: ReleaseState): string {
  const rel = state.release;
  if (state.phase === 'Progressing' && (state.userPaused || (rel !== null && rel.stepState === 'StepPaused' && rel.failure === null))) return `${ICON.paused} Paused`;
  return `${phaseIcon(state.phase)} ${state.phase}`;
}

/** kubectl's short ages: 42s, 3m20s, 25m, 5h10m, 3d. */
export function formatAge(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}
