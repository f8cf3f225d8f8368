// Where `undo` goes and how it moves (issue 21): a revision that completed a release is a known-good
// state, so an undo to it moves every pod at once, as a rollback does; a revision that never
// completed one (a release aborted, superseded or failed) is no known-good state, so an undo to it
// goes through the Rollout's steps like a release, with their batches, gates and approvals. Without
// --to-revision an undo goes to the last revision that completed a release, other than the current
// one; never to "the newest other revision", which after an abort is the very release just aborted.
// The planner (commands.ts) and the API (shared/api/liveChecks.ts, to refuse and to preview) both
// decide it here, from STATE's record of completed revisions and the live workload's revisions.
import type { ReleaseState, RevisionView, WorkloadView } from './types.ts';

/** Revisions kept in ReleaseState.completedRevisions (newest last). */
export const COMPLETED_REVISION_MEMORY = 10;

export type UndoMove = 'all-at-once' | 'through-steps';

export interface UndoTarget {
  revision: RevisionView;
  move: UndoMove;
}

/** The revisions known to have completed a release (or been adopted as running), newest last. */
export function completedRevisions(state: ReleaseState): string[] {
  // STATE written before the record existed knows one known-good revision: the stable one.
  return state.completedRevisions ?? (state.stableRevision === null ? [] : [state.stableRevision]);
}

/** `completed` with `revision` as the newest entry, bounded. */
export function withCompleted(state: ReleaseState, revision: string): string[] {
  return [...completedRevisions(state).filter((r) => r !== revision), revision].slice(-COMPLETED_REVISION_MEMORY);
}

/** The undo's target and how it moves, or why there is none (a sentence naming the field). */
export function undoTarget(state: ReleaseState, view: WorkloadView, toRevision: number | undefined): UndoTarget | string {
  const current = state.release?.targetRevision ?? view.templateRevision;
  const completed = completedRevisions(state);
  const move = (r: RevisionView): UndoTarget => ({ revision: r, move: completed.includes(r.id) ? 'all-at-once' : 'through-steps' });
  if (toRevision !== undefined) {
    const found = view.revisions.find((r) => r.number === toRevision);
    if (!found) return `toRevision: revision ${toRevision} is not retained (retained: ${retainedList(view)})`;
    if (found.id === current && !state.release) return `toRevision: revision ${toRevision} is already the current revision`;
    return move(found);
  }
  for (const id of [...completed].reverse()) {
    if (id === current) continue;
    const found = view.revisions.find((r) => r.id === id);
    if (found) return move(found);
  }
  return `there is no earlier revision that completed a release to go back to (retained: ${retainedList(view)}); ` +
    'name one with toRevision (--to-revision): one that never completed a release goes through the Rollout\'s steps';
}

/** "web=nginx:1.30, sidecar=envoy:1.2": a revision's images for a message. */
export function imagesText(images: Record<string, string>): string {
  return Object.entries(images).map(([c, i]) => `${c}=${i}`).join(', ') || 'no images known';
}

function retainedList(view: WorkloadView): string {
  const numbers = view.revisions.map((r) => r.number).filter((n) => n > 0).sort((a, b) => a - b);
  return numbers.length > 0 ? numbers.join(', ') : 'none';
}
