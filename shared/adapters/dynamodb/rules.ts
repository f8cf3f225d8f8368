// Semantics of the StateStore that do not depend on DynamoDB: input checks, duplicate commands,
// history order. Pure, and shared with the in-memory fake so both stores behave the same.
import { ValidationError } from '../../errors.ts';
import type { FieldIssue } from '../../errors.ts';
import type { ClusterRegistration, HistoryEntry } from '../../ports.ts';
import type { RolloutKey, RolloutSpec } from '../../rollout/types.ts';
import { validateKeyPart } from './keys.ts';

/**
 * Oldest first. `seq` derives from the STATE version, which only grows for a rollout, so it orders
 * entries across releases too; the sort key alone would not (`H#r10#…` sorts before `H#r2#…`).
 * The sort is stable, so entries with the same seq keep their key order.
 */
export function sortHistory(entries: HistoryEntry[]): HistoryEntry[] {
  return [...entries].sort((a, b) => a.seq - b.seq);
}

export function validateCommandId(id: unknown): void {
  if (typeof id !== 'string' || id.length === 0) throw new ValidationError([{ path: 'command.id', reason: 'must be a non-empty string' }]);
}

export function validateLimit(limit: number | undefined): void {
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1)) {
    throw new ValidationError([{ path: 'limit', reason: 'must be a positive integer' }]);
  }
}

export function validateVersion(version: number, path: string): void {
  if (!Number.isSafeInteger(version) || version < 0) {
    throw new ValidationError([{ path, reason: 'must be a non-negative integer' }]);
  }
}

/** The SPEC is stored under the key it names; a mismatch is a caller bug we refuse to persist. */
export function validateSpecKey(key: RolloutKey, spec: RolloutSpec): void {
  const issues: FieldIssue[] = [];
  for (const field of ['cluster', 'namespace', 'name'] as const) {
    if (spec[field] !== key[field]) issues.push({ path: `spec.${field}`, reason: `is "${spec[field]}" but the key says "${key[field]}"` });
  }
  if (issues.length > 0) throw new ValidationError(issues);
}

export function validateListFilter(filter: { cluster?: string; namespace?: string }): void {
  if (filter.cluster !== undefined) validateKeyPart(filter.cluster, 'cluster');
  if (filter.namespace !== undefined) validateKeyPart(filter.namespace, 'namespace');
}

/** A registration names how to reach the cluster: EKS or a static endpoint, exactly one. */
export function validateClusterRegistration(reg: ClusterRegistration): void {
  validateKeyPart(reg.name, 'name');
  const ways = [reg.eks, reg.endpoint].filter((w) => w !== undefined).length;
  if (ways !== 1) {
    throw new ValidationError([{ path: 'eks', reason: 'exactly one of eks or endpoint must be set' }]);
  }
}
