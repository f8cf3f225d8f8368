// What the soak checks in a rollout's history (read straight from the store, not through the API):
// batch order kept (each release's steps start 2, 3, … in order, none skipped or repeated), no
// batch advanced without its gate (an approval step's next step starts only after a Step Approved
// of that step; a timed step's only after its pause has run from Batch Ready), every release has
// exactly one end with a reason (Completed, Aborted, Rolled Back, Superseded) unless it is still
// Failed and waiting, and every command the API accepted left exactly one event (none lost, none
// applied twice). Pure: entries in, violations out.
import type { HistoryEntry } from '../../../shared/ports.ts';
import { EVENT } from '../../../shared/rollout/events.ts';
import type { ReleaseState, Step } from '../../../shared/rollout/types.ts';

const ENDS: readonly string[] = [EVENT.ReleaseCompleted, EVENT.ReleaseAborted, EVENT.RolledBack, EVENT.ReleaseSuperseded];
const STARTS: readonly string[] = [EVENT.ReleaseStarted, EVENT.ReleaseRestarted, EVENT.UndoStarted];

export interface HistoryVerdict {
  violations: string[];
  /** Forward releases started (Release Started or Restarted). */
  releases: number;
  /** Releases ended, by end event. */
  ends: Record<string, number>;
}

export function checkHistory(name: string, steps: Step[], history: HistoryEntry[], finalState: ReleaseState, acceptedCommands: readonly string[]): HistoryVerdict {
  const violations: string[] = [];
  const entries = [...history].sort((a, b) => a.seq - b.seq);
  const byRelease = new Map<string, HistoryEntry[]>();
  for (const e of entries) if (e.releaseId !== 'none') byRelease.set(e.releaseId, [...(byRelease.get(e.releaseId) ?? []), e]);
  let releases = 0;
  const ends: Record<string, number> = {};

  // The release a Release Restarted starts is a new id, its predecessor ended by Superseded.
  const started = new Set(entries.filter((e) => STARTS.includes(e.type)).map((e) => e.releaseId));
  for (const id of started) {
    const events = byRelease.get(id) ?? [];
    const forward = events.some((e) => e.type === EVENT.ReleaseStarted || e.type === EVENT.ReleaseRestarted);
    if (forward) {
      releases += 1;
      violations.push(...stepViolations(name, id, steps, events));
    }
    const endings = events.filter((e) => ENDS.includes(e.type));
    for (const e of endings) ends[e.type] = (ends[e.type] ?? 0) + 1;
    const open = finalState.release?.id === id;
    if (open) {
      if (finalState.release?.failure === null) violations.push(`${name} ${id}: still in flight at the end (${finalState.message})`);
      else if (!finalState.release?.failure) violations.push(`${name} ${id}: failed without a reason`);
      else ends['Failed (waiting)'] = (ends['Failed (waiting)'] ?? 0) + 1;
      if (endings.length > 0) violations.push(`${name} ${id}: in flight yet ended by ${endings.map((e) => e.type).join(', ')}`);
    } else if (endings.length !== 1) {
      violations.push(`${name} ${id}: ${endings.length} ends (${endings.map((e) => e.type).join(', ') || 'none'}), expected exactly one; its events: ${events.map((e) => e.type).join(' → ')}`);
    } else if (!endings[0]?.message) {
      violations.push(`${name} ${id}: ended by ${endings[0]?.type} without a reason`);
    }
  }

  const byCommand = new Map<string, number>();
  for (const e of entries) if (e.commandId) byCommand.set(e.commandId, (byCommand.get(e.commandId) ?? 0) + 1);
  for (const id of acceptedCommands) {
    const n = byCommand.get(id) ?? 0;
    if (n === 0 && !finalState.commands.some((c) => c.id === id)) violations.push(`${name}: command ${id} was accepted but never applied (lost)`);
    if (n > 1) violations.push(`${name}: command ${id} was applied ${n} times`);
  }
  if (finalState.commands.length > 0) violations.push(`${name}: commands still pending at the end: ${finalState.commands.map((c) => `${c.type} ${c.id}`).join(', ')}`);
  return { violations, releases, ends };
}

function stepViolations(name: string, id: string, steps: Step[], events: HistoryEntry[]): string[] {
  const out: string[] = [];
  let expected = 1;
  for (const [i, e] of events.entries()) {
    const next = e.type === EVENT.StepStarted ? e.stepIndex : e.type === EVENT.Finalizing ? steps.length : null;
    if (next === null) continue;
    if (e.type === EVENT.StepStarted && next !== expected) out.push(`${name} ${id}: step ${Number(next) + 1} started after step ${expected} (batch order)`);
    if (e.type === EVENT.StepStarted) expected = Number(next) + 1;
    // Leaving step k (its index is next - 1) needs what its pause asks.
    const k = Number(next) - 1;
    const step = steps[k];
    if (!step || k < 0) continue;
    const before = events.slice(0, i);
    if (step.pause.type === 'approval' && !before.some((b) => b.type === EVENT.StepApproved && b.stepIndex === k)) {
      out.push(`${name} ${id}: ${e.type} at ${e.at} left step ${k + 1} without its approval`);
    }
    if (step.pause.type === 'timed') {
      const ready = [...before].reverse().find((b) => b.type === EVENT.BatchReady && b.stepIndex === k);
      if (!ready || Date.parse(e.at) < Date.parse(ready.at) + step.pause.seconds * 1000) {
        out.push(`${name} ${id}: ${e.type} at ${e.at} left step ${k + 1} before its ${step.pause.seconds}s pause ran out (ready ${ready?.at ?? 'never'})`);
      }
    }
  }
  return out;
}
