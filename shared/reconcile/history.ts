// Planner events → history items with deterministic keys: the sequence is derived from the STATE
// version that records them, so a retried flush rewrites the same items instead of adding more.
import type { RolloutEvent } from '../rollout/types.ts';
import type { HistoryEntry } from '../ports.ts';

/** Room for this many events per STATE version (a plan emits a handful at most). */
const EVENTS_PER_VERSION = 100;

export function historyEntries(events: RolloutEvent[], version: number): HistoryEntry[] {
  return events.slice(0, EVENTS_PER_VERSION).map((e, i) => ({
    releaseId: e.releaseId ?? 'none',
    seq: version * EVENTS_PER_VERSION + i,
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
