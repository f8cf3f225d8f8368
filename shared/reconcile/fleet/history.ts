// A fleet pass's events → history items with deterministic keys, as shared/reconcile/history.ts does
// for a rollout: the sequence derives from the fleet STATE version that records them.
import type { FleetEvent } from '../../fleet/types.ts';
import type { HistoryEntry } from '../../ports.ts';

const EVENTS_PER_VERSION = 100;

export function fleetHistoryEntries(events: readonly FleetEvent[], version: number): HistoryEntry[] {
  return events.slice(0, EVENTS_PER_VERSION).map((e, i) => ({
    releaseId: e.releaseId ?? 'none',
    seq: version * EVENTS_PER_VERSION + i,
    at: e.at,
    type: e.type,
    phase: e.phase,
    stepIndex: null,
    message: e.message,
    by: e.by ?? null,
    reason: e.reason,
    cause: null,
    wave: e.wave,
    cluster: e.cluster,
    ...(e.commandId ? { commandId: e.commandId } : {}),
  }));
}
