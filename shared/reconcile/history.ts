// Planner events → history items with deterministic keys: the sequence is derived from the STATE
// version that records them, so a retried flush rewrites the same items instead of adding more.
import type { RolloutEvent } from '../rollout/types.ts';
import type { HistoryEntry } from '../ports.ts';

/** Room for this many events per STATE version (a plan emits a handful at most). */
const EVENTS_PER_VERSION = 100;

/** The events a STATE version records, each with its deterministic sequence number. */
export function numbered<E>(events: readonly E[], version: number): { e: E; seq: number }[] {
  return events.slice(0, EVENTS_PER_VERSION).map((e, i) => ({ e, seq: version * EVENTS_PER_VERSION + i }));
}

export function historyEntries(events: RolloutEvent[], version: number): HistoryEntry[] {
  return numbered(events, version).map(({ e, seq }) => ({
    releaseId: e.releaseId ?? 'none',
    seq,
    at: e.at,
    type: e.type,
    phase: e.phase,
    stepIndex: e.stepIndex,
    message: e.message,
    by: e.by ?? null,
    reason: e.reason,
    cause: e.cause,
    ...(e.commandId ? { commandId: e.commandId } : {}),
  }));
}
