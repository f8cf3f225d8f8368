// Translation between domain values and table items. Layout (docs/architecture.md, "State model"; see table.ts for keys):
//   SPEC     spec (map), document (the applied document as a JSON string), specVersion (N),
//            dueShard = "resync" + dueAt = its resync phase: a permanent entry for the resync (keys.ts)
//   STATE    state (map), outbox (map), version (N), dueShard + dueAt only while due (sparse GSI)
//   H#…      entry (map), expiresAt (N, epoch seconds: TTL)
//   INDEX    cluster, namespace, name (S): one per rollout with a SPEC
//   CLUSTERS registration (map)
//   CLAIM    owner (S): the rollout that manages a workload (claims.ts)
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { ClusterRegistration, FleetOutbox, HistoryEntry, Outbox, StoredFleetSpec, StoredFleetState, StoredSpec, StoredState } from '../../ports.ts';
import { initialFleetState } from '../../fleet/state.ts';
import type { FleetSpec, FleetState } from '../../fleet/types.ts';
import { initialState } from '../../rollout/state.ts';
import type { ReleaseState, RolloutKey, RolloutSpec } from '../../rollout/types.ts';
import { claimPk } from './claims.ts';
import {
  CLUSTERS_PK, FLEETS_PK, INDEX_PK, RESYNC_SHARD, SK_SPEC, SK_STATE, clusterSk, dueAtFor, dueShard, fleetDueAtFor, fleetPk, historyExpiresAt, historySk, indexSk,
  resyncPhase, rolloutPk,
} from './keys.ts';

export type Item = Record<string, AttributeValue>;

// Optional fields left undefined are dropped rather than rejected, like JSON.stringify does.
const OPTIONS = { removeUndefinedValues: true } as const;

export function toItem(value: Record<string, unknown>): Item {
  return marshall(value, OPTIONS);
}

export function fromItem(item: Item): Record<string, unknown> {
  return unmarshall(item);
}

export function specItem(key: RolloutKey, spec: RolloutSpec, document: unknown, specVersion: number, now: Date): Item {
  const pk = rolloutPk(key);
  return toItem({
    pk,
    sk: SK_SPEC,
    dueShard: RESYNC_SHARD,
    dueAt: resyncPhase(pk),
    spec,
    // The claim this SPEC holds, so a delete finds it without reading the spec.
    claim: claimPk(key, spec.workloadRef),
    // A string keeps the document exactly as applied (key order, nulls, empty maps) for `get`.
    document: JSON.stringify(document ?? null),
    specVersion,
    updatedAt: now.toISOString(),
  });
}

export function readSpecItem(item: Item): StoredSpec {
  const raw = fromItem(item);
  return {
    spec: raw.spec as RolloutSpec,
    specVersion: raw.specVersion as number,
    document: JSON.parse(raw.document as string) as unknown,
  };
}

/**
 * The whole STATE item. `dueAt` overrides the computed due time (recordCommand: due now); the due
 * attributes are omitted, not nulled, when the rollout is not due: a GSI key attribute that is
 * absent keeps the item out of the index (sparse).
 */
export function stateItem(key: RolloutKey, next: { state: ReleaseState; outbox: Outbox }, version: number, now: Date, dueAt?: string): Item {
  const pk = rolloutPk(key);
  const due = dueAt ?? dueAtFor(next.state, now);
  return toItem({
    pk,
    sk: SK_STATE,
    state: next.state,
    outbox: next.outbox,
    version,
    updatedAt: now.toISOString(),
    ...(due === null ? {} : { dueShard: dueShard(pk), dueAt: due }),
  });
}

export function readStateItem(item: Item): StoredState {
  const raw = fromItem(item);
  const outbox = (raw.outbox ?? {}) as Partial<Outbox>;
  return {
    // Defaults first: a STATE written before a field was added to ReleaseState still loads whole.
    state: { ...initialState(), ...(raw.state as Partial<ReleaseState>) },
    version: raw.version as number,
    outbox: { history: outbox.history ?? [], events: outbox.events ?? [] },
  };
}

export function historyItem(key: RolloutKey, entry: HistoryEntry, now: Date): Item {
  return historyItemOf(rolloutPk(key), entry, now);
}

/** A history item of any partition (a rollout's or a fleet's): the same key rule and TTL. */
export function historyItemOf(pk: string, entry: HistoryEntry, now: Date): Item {
  return toItem({
    pk,
    sk: historySk(entry.releaseId, entry.seq),
    entry,
    expiresAt: historyExpiresAt(entry.at, now),
  });
}

export function readHistoryItem(item: Item): HistoryEntry {
  return fromItem(item).entry as HistoryEntry;
}

export function indexItem(key: RolloutKey): Item {
  return toItem({ pk: INDEX_PK, sk: indexSk(key), cluster: key.cluster, namespace: key.namespace, name: key.name });
}

export function readIndexItem(item: Item): RolloutKey {
  const raw = fromItem(item);
  return { cluster: raw.cluster as string, namespace: raw.namespace as string, name: raw.name as string };
}

export function clusterItem(reg: ClusterRegistration, now: Date): Item {
  return toItem({ pk: CLUSTERS_PK, sk: clusterSk(reg.name), registration: reg, updatedAt: now.toISOString() });
}

export function readClusterItem(item: Item): ClusterRegistration {
  return fromItem(item).registration as ClusterRegistration;
}

// ---- Fleets: F#<name> holds SPEC, STATE and H#… like a rollout; FLEETS lists them ------------------

export function fleetSpecItem(name: string, spec: FleetSpec, document: unknown, specVersion: number, now: Date): Item {
  const pk = fleetPk(name);
  // The same permanent resync entry as a rollout's SPEC: the sweep resyncs fleets as it resyncs rollouts.
  return toItem({ pk, sk: SK_SPEC, dueShard: RESYNC_SHARD, dueAt: resyncPhase(pk), spec, document: JSON.stringify(document ?? null), specVersion, updatedAt: now.toISOString() });
}

export function readFleetSpecItem(item: Item): StoredFleetSpec {
  const raw = fromItem(item);
  return { spec: raw.spec as FleetSpec, specVersion: raw.specVersion as number, document: JSON.parse(raw.document as string) as unknown };
}

export function fleetStateItem(name: string, next: { state: FleetState; outbox: FleetOutbox }, version: number, now: Date, dueAt?: string): Item {
  const pk = fleetPk(name);
  const due = dueAt ?? fleetDueAtFor(next.state, now);
  return toItem({
    pk, sk: SK_STATE, state: next.state, outbox: next.outbox, version, updatedAt: now.toISOString(),
    ...(due === null ? {} : { dueShard: dueShard(pk), dueAt: due }),
  });
}

export function readFleetStateItem(item: Item): StoredFleetState {
  const raw = fromItem(item);
  const outbox = (raw.outbox ?? {}) as Partial<FleetOutbox>;
  return {
    state: { ...initialFleetState(), ...(raw.state as Partial<FleetState>) },
    version: raw.version as number,
    outbox: { history: outbox.history ?? [], events: outbox.events ?? [], memberCommands: outbox.memberCommands ?? [] },
  };
}

export function fleetIndexItem(name: string): Item {
  return toItem({ pk: FLEETS_PK, sk: name });
}
