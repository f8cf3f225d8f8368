// The fleet overhead of issue 24, read from the product's own records: for each wave transition of
// each completed fleet release, the last member of the earlier wave "Release Completed" (its own
// history, in its cluster) → the first member of the next wave "Release Started" (its history).
// The fleet's history (shared/fleet/events.ts) splits that time in four: the fleet saw the member
// done ("Fleet Member Completed"), opened the next wave ("Fleet Wave Started"), permitted its first
// member ("Fleet Member Permitted"), and the member started ("Release Started").
import { RolloutsError } from '../../shared/errors.ts';
import type { HistoryEntry } from '../../shared/ports.ts';

export interface Handoff {
  releaseId: string;
  fromWave: string;
  toWave: string;
  /** The member of `fromWave` whose "Release Completed" came last, and the first of `toWave` to start. */
  lastCluster: string;
  firstCluster: string;
  lastCompletedAt: string;
  firstStartedAt: string;
  overheadMs: number;
  parts: { fleetSawItMs: number; waveStartedMs: number; permittedMs: number; memberStartedMs: number };
}

export interface FleetReleaseSpan {
  releaseId: string;
  startedAt: string;
  completedAt: string;
  totalMs: number;
}

/** A record the handoffs need is missing: the figure would be wrong, so there is none. */
export class FleetRecordError extends RolloutsError {}

const ms = (a: string, b: string): number => Date.parse(b) - Date.parse(a);

/** Every completed fleet release in the fleet's history, oldest first. */
export function completedFleetReleases(fleet: readonly HistoryEntry[]): FleetReleaseSpan[] {
  return fleet.filter((h) => h.type === 'Fleet Release Started').flatMap((s) => {
    const done = fleet.find((h) => h.releaseId === s.releaseId && h.type === 'Fleet Release Completed');
    return done ? [{ releaseId: s.releaseId, startedAt: s.at, completedAt: done.at, totalMs: ms(s.at, done.at) }] : [];
  });
}

/**
 * The handoffs of every completed fleet release. `members`: each member cluster's own history (as
 * `rollouts history web --cluster c` shows it); a member's release belongs to the fleet release
 * during which it started.
 */
export function fleetHandoffs(fleet: readonly HistoryEntry[], members: Readonly<Record<string, readonly HistoryEntry[]>>): Handoff[] {
  return completedFleetReleases(fleet).flatMap((span) => {
    const mine = fleet.filter((h) => h.releaseId === span.releaseId).sort((a, b) => a.seq - b.seq);
    const waves = mine.filter((h) => h.type === 'Fleet Wave Started').map((h) => h.wave as string);
    const permits = mine.filter((h) => h.type === 'Fleet Member Permitted');
    const within = (h: HistoryEntry) => Date.parse(h.at) >= Date.parse(span.startedAt) && Date.parse(h.at) <= Date.parse(span.completedAt);
    const memberEntry = (cluster: string, type: string): HistoryEntry => {
      const started = (members[cluster] ?? []).find((h) => h.type === 'Release Started' && within(h));
      const found = type === 'Release Started' ? started : (members[cluster] ?? []).find((h) => h.type === type && h.releaseId === started?.releaseId);
      if (!found) throw new FleetRecordError(`fleet release ${span.releaseId}: no "${type}" in the history of the member in ${cluster}`);
      return found;
    };
    const fleetEntry = (type: string, where: { wave?: string; cluster?: string }): HistoryEntry => {
      const found = mine.find((h) => h.type === type && (where.wave === undefined || h.wave === where.wave) && (where.cluster === undefined || h.cluster === where.cluster));
      if (!found) throw new FleetRecordError(`fleet release ${span.releaseId}: no "${type}" for ${where.wave ?? ''}${where.cluster ?? ''} in the fleet's history`);
      return found;
    };
    return waves.slice(1).map((toWave, i) => {
      const fromWave = waves[i] as string;
      const clustersOf = (wave: string) => permits.filter((p) => p.wave === wave).map((p) => p.cluster as string);
      const completed = clustersOf(fromWave).map((c) => ({ c, at: memberEntry(c, 'Release Completed').at })).sort((a, b) => ms(a.at, b.at))[0]; // the latest
      const started = clustersOf(toWave).map((c) => ({ c, at: memberEntry(c, 'Release Started').at })).sort((a, b) => ms(b.at, a.at))[0]; // the earliest
      if (!completed || !started) throw new FleetRecordError(`fleet release ${span.releaseId}: wave ${completed ? toWave : fromWave} permitted no member`);
      const saw = fleetEntry('Fleet Member Completed', { cluster: completed.c }).at;
      const opened = fleetEntry('Fleet Wave Started', { wave: toWave }).at;
      const permitted = fleetEntry('Fleet Member Permitted', { cluster: started.c }).at;
      return {
        releaseId: span.releaseId, fromWave, toWave, lastCluster: completed.c, firstCluster: started.c,
        lastCompletedAt: completed.at, firstStartedAt: started.at, overheadMs: ms(completed.at, started.at),
        parts: { fleetSawItMs: ms(completed.at, saw), waveStartedMs: ms(saw, opened), permittedMs: ms(opened, permitted), memberStartedMs: ms(permitted, started.at) },
      };
    });
  });
}
