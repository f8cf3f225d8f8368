// A fleet pass's events → history items with deterministic keys, as shared/reconcile/history.ts does
// for a rollout: the sequence derives from the fleet STATE version that records them.
import type { FleetEvent } from '../../fleet/types.ts';
import type { HistoryEntry } from '../../ports.ts';
import { numbered } from '../history.ts';

export function fleetHistoryEntries(events: readonly FleetEvent[], version: number): HistoryEntry[] {
  return numbered(events, version).map(({ e, seq }) => ({
    releaseId: e.releaseId ?? 'none',
    seq,
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
