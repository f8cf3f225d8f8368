// Keys of the single-table layout (docs/architecture.md, "State model") and the rule that puts a rollout in the due-index.
// Pure (no SDK), so the in-memory fake store follows exactly the same rules.
import { ValidationError } from '../../errors.ts';
import type { FieldIssue } from '../../errors.ts';
import { FLEET_KEY_PREFIX, fleetKey, type QueueKey } from '../../fleet/key.ts';
import { isFleetActive } from '../../fleet/state.ts';
import type { FleetState } from '../../fleet/types.ts';
import { isActive } from '../../rollout/state.ts';
import type { ReleaseState, RolloutKey } from '../../rollout/types.ts';
import { STATE_TABLE } from './table.ts';

export const SK_SPEC = 'SPEC';
export const SK_STATE = 'STATE';
export const HISTORY_PREFIX = 'H#';
/** Fixed partition listing every rollout with a SPEC (sk = `<cluster>#<ns>#<name>`), for `rollouts list`. */
export const INDEX_PK = 'INDEX';
/** Fixed partition of cluster registrations (sk = `C#<cluster>`), so listing them is one Query. */
export const CLUSTERS_PK = 'CLUSTERS';
/** Fixed partition listing every fleet with a SPEC (sk = its name), for `rollouts fleet list`. */
export const FLEETS_PK = 'FLEETS';

const ROLLOUT_PREFIX = 'R#';
const CLUSTER_SK_PREFIX = 'C#';
const SEQ_WIDTH = 10;

const HASH_REASON = 'must not contain "#" (it separates the parts of the DynamoDB keys)';

/** Throws ValidationError (field + reason) unless every part is a non-empty string without `#`. */
export function validateRolloutKey(key: RolloutKey): void {
  const issues: FieldIssue[] = [];
  for (const field of ['cluster', 'namespace', 'name'] as const) {
    const issue = keyPartIssue(field, key[field]);
    if (issue) issues.push(issue);
  }
  if (issues.length > 0) throw new ValidationError(issues);
}

/** The same check for one part on its own (cluster name, list filters). */
export function validateKeyPart(value: string, path: string): void {
  const issue = keyPartIssue(path, value);
  if (issue) throw new ValidationError([issue]);
}

function keyPartIssue(path: string, value: unknown): FieldIssue | null {
  if (typeof value !== 'string' || value.length === 0) return { path, reason: 'must be a non-empty string' };
  if (value.includes('#')) return { path, reason: HASH_REASON };
  return null;
}

export function rolloutPk(key: RolloutKey): string {
  return `${ROLLOUT_PREFIX}${key.cluster}#${key.namespace}#${key.name}`;
}

/** Inverse of rolloutPk; null for any other partition. */
export function parseRolloutPk(pk: string): RolloutKey | null {
  if (!pk.startsWith(ROLLOUT_PREFIX)) return null;
  const parts = pk.slice(ROLLOUT_PREFIX.length).split('#');
  if (parts.length !== 3) return null;
  const [cluster, namespace, name] = parts as [string, string, string];
  return { cluster, namespace, name };
}

/** A fleet's partition: `F#<name>` (shared/fleet/key.ts). */
export function fleetPk(name: string): string {
  return fleetKey(name);
}

/** The queue key of a partition that the sweep may find due: a rollout's or a fleet's; null for any other. */
export function parseQueuePk(pk: string): QueueKey | null {
  if (pk.startsWith(FLEET_KEY_PREFIX)) {
    const fleet = pk.slice(FLEET_KEY_PREFIX.length);
    return fleet.length > 0 && !fleet.includes('#') ? { fleet } : null;
  }
  return parseRolloutPk(pk);
}

export function indexSk(key: RolloutKey): string {
  return `${key.cluster}#${key.namespace}#${key.name}`;
}

export function clusterSk(name: string): string {
  return `${CLUSTER_SK_PREFIX}${name}`;
}

/**
 * `H#<releaseId>#<seq>`, seq zero-padded so the entries of one release sort by seq. The key is
 * deterministic: a retried flush rewrites the same item instead of adding one.
 */
export function historySk(releaseId: string, seq: number): string {
  if (!Number.isSafeInteger(seq) || seq < 0 || seq >= 10 ** SEQ_WIDTH) {
    throw new ValidationError([{ path: 'history.seq', reason: `must be an integer in [0, 1e${SEQ_WIDTH})` }]);
  }
  if (releaseId.length === 0 || releaseId.includes('#')) {
    throw new ValidationError([{ path: 'history.releaseId', reason: `must be non-empty and ${HASH_REASON}` }]);
  }
  return `${HISTORY_PREFIX}${releaseId}#${String(seq).padStart(SEQ_WIDTH, '0')}`;
}

/** FNV-1a (32 bit) of the pk: deterministic and well spread, so it places a rollout in shards and resync slots. */
function pkHash(pk: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(pk, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/**
 * The due shard of a rollout: its hash modulo the shard count. Deterministic, so one rollout
 * always lands in the same shard (the sweep can never see it twice in one pass).
 */
export function dueShard(pk: string): string {
  return String(pkHash(pk) % STATE_TABLE.dueIndex.shardCount);
}

export function allDueShards(): string[] {
  return Array.from({ length: STATE_TABLE.dueIndex.shardCount }, (_, i) => String(i));
}

/**
 * Resync (docs/architecture.md, "Data flow": a missed event costs latency, never a release). Every SPEC item carries a
 * permanent entry in the due index: partition RESYNC_SHARD, sort key = its resync phase, the pk's
 * hash as a fixed-width decimal. The rollout is due for a resync once per period, at the instants
 * whose position in the period, (t mod period) / period, equals phase / 2^32. A sweep covering the
 * window (from, to] queries exactly the phases that window passed: a range of the sort key, so a
 * tick reads only the rollouts it resyncs (O(due), not O(all)), and nothing is written to keep the
 * entry current: a no-op resync pass writes nothing, and the entry never goes stale. The period is
 * not stored, so changing it needs no migration.
 */
export const RESYNC_SHARD = 'resync';
const PHASE_SPACE = 2 ** 32;
const PHASE_WIDTH = 10;

/** The sort key of a rollout's resync entry. */
export function resyncPhase(pk: string): string {
  return phaseKey(pkHash(pk));
}

function phaseKey(phase: number): string {
  return String(phase).padStart(PHASE_WIDTH, '0');
}

/**
 * The inclusive sort-key ranges of the phases a sweep window (from, to] passes, for `periodMs`.
 * One range, two when the window wraps round the end of a period, everything when it spans a
 * whole period (a first sweep, or one after a long gap), nothing for an empty window.
 */
export function resyncPhaseRanges(from: Date, to: Date, periodMs: number): { lo: string; hi: string }[] {
  if (!Number.isSafeInteger(periodMs) || periodMs <= 0) throw new ValidationError([{ path: 'resyncPeriodMs', reason: 'must be a positive integer' }]);
  const span = to.getTime() - from.getTime();
  if (!(span > 0)) return [];
  const all = { lo: phaseKey(0), hi: phaseKey(PHASE_SPACE - 1) };
  if (span >= periodMs) return [all];
  // A phase p is due at the instants t with frac(t / period) = p / 2^32: those in (a, b].
  const position = (t: number): number => Math.floor((((t % periodMs) + periodMs) % periodMs) / periodMs * PHASE_SPACE);
  const a = position(from.getTime()) + 1;
  const b = position(to.getTime());
  const wraps = Math.floor(to.getTime() / periodMs) !== Math.floor(from.getTime() / periodMs);
  if (!wraps) return a <= b ? [{ lo: phaseKey(a), hi: phaseKey(b) }] : [];
  const out: { lo: string; hi: string }[] = [];
  if (a <= PHASE_SPACE - 1) out.push({ lo: phaseKey(a), hi: all.hi });
  out.push({ lo: phaseKey(0), hi: phaseKey(b) });
  return out;
}

/**
 * When the sweep should next look at this rollout, or null to keep it out of the sparse index:
 * its wake-up if it has one; otherwise the time of the write while a release is active (so an active
 * release is swept every tick as a safety net); otherwise never (Healthy, Completed, Aborted...).
 */
export function dueAtFor(state: ReleaseState, writtenAt: Date): string | null {
  if (state.nextWakeAt !== null) return toIsoInstant(state.nextWakeAt, 'state.nextWakeAt');
  if (isActive(state)) return writtenAt.toISOString();
  return null;
}

/** The same rule for a fleet: its wake-up, else every tick while a fleet release runs, else never. */
export function fleetDueAtFor(state: FleetState, writtenAt: Date): string | null {
  if (state.nextWakeAt !== null) return toIsoInstant(state.nextWakeAt, 'state.nextWakeAt');
  if (isFleetActive(state)) return writtenAt.toISOString();
  return null;
}

/** Normalise to `toISOString()` form: the index sorts strings, so every dueAt must have the same shape. */
export function toIsoInstant(value: string, path: string): string {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new ValidationError([{ path, reason: `"${value}" is not an ISO 8601 instant` }]);
  return new Date(ms).toISOString();
}

/** Epoch seconds at which a history entry recorded at `at` expires (TTL). Derived from the entry so retries write identical items. */
export function historyExpiresAt(at: string, fallback: Date): number {
  const ms = Date.parse(at);
  const base = Number.isNaN(ms) ? fallback.getTime() : ms;
  return Math.floor(base / 1000) + STATE_TABLE.historyRetentionDays * 24 * 3600;
}
