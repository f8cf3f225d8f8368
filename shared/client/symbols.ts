// Status icons and ages as kubectl-argo-rollouts shows them (pkg/kubectl-argo-rollouts/info), so
// people who know that tool read ours at a glance, with one difference: every glyph is one that
// common monospace fonts draw (checked against DejaVu Sans Mono, the default of most Linux terminals,
// with `fc-list ':charset=<hex>'`). Argo's ॥ (U+0965, Devanagari), ⧉ and ⟳ show as boxes there or
// shift the tree's columns; COVERED_GLYPHS lists what may be used and a unit test holds us to it.
import type { Phase } from '../rollout/types.ts';

export const ICON = {
  ok: '✔',
  progressing: '◌',
  paused: '‖',
  bad: '✖',
  warning: '⚠',
  waiting: '◷',
  neutral: '•',
  unknown: '?',
} as const;

/** The revision tree's node marks (Argo: ⟳ rollout, ⧉ ReplicaSet, □ pod). */
export const TREE_ICON = {
  rollout: '↻',
  replicaSet: '◫',
  pod: '□',
} as const;

/**
 * Every non-ASCII character the CLI's views and the dashboard's status cells may print: each is in
 * DejaVu Sans Mono (`fc-list ':charset=2016' | grep -c "DejaVu Sans Mono"` and so on) and is one
 * column wide. Box drawing (├ │ └ ─) and the step marker ◀ are here too.
 */
export const COVERED_GLYPHS: ReadonlySet<string> = new Set([
  ...Object.values(ICON), ...Object.values(TREE_ICON), '├', '│', '└', '─', '◀', '·', '→',
]);

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
