// StateStore on one DynamoDB table (docs/architecture.md, "State model"; layout in items.ts, keys in keys.ts, table in table.ts).
// The STATE item is the unit of atomicity: every STATE write is one conditional PutItem on `version`,
// never a transaction (dynalite has none, and none is needed).
import { setTimeout as sleep } from 'node:timers/promises';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { ConflictError, StaleStateError } from '../../errors.ts';
import { NO_METER } from '../../meter.ts';
import type { Meter } from '../../meter.ts';
import type {
  Clock, ClusterRegistration, FleetOutbox, HistoryEntry, LoadedFleet, LoadedRollout, Outbox, QueueKey, StateStore, StoredFleetState, StoredState,
} from '../../ports.ts';
import { initialFleetState, isDuplicateFleetCommand } from '../../fleet/state.ts';
import type { FleetCommand, FleetSpec, FleetState } from '../../fleet/types.ts';
import { initialState } from '../../rollout/state.ts';
import type { Command, ReleaseState, RolloutKey, RolloutSpec, WorkloadRef } from '../../rollout/types.ts';
import { CLAIM_ATTEMPTS, SK_CLAIM, claimIsLive, claimPk, claimedError } from './claims.ts';
import {
  clusterItem, fleetIndexItem, fleetSpecItem, fleetStateItem, historyItem, historyItemOf, indexItem, readClusterItem, readFleetSpecItem, readFleetStateItem,
  readHistoryItem, readIndexItem, readSpecItem, readStateItem, specItem, stateItem,
} from './items.ts';
import type { Item } from './items.ts';
import {
  CLUSTERS_PK, FLEETS_PK, HISTORY_PREFIX, INDEX_PK, RESYNC_SHARD, SK_SPEC, SK_STATE, allDueShards, clusterSk, fleetPk, indexSk, parseQueuePk, resyncPhaseRanges,
  rolloutPk, validateKeyPart, validateRolloutKey,
} from './keys.ts';
import { MeteredTable } from './metered.ts';
import { STATE_TABLE } from './table.ts';
import { isDuplicateCommand } from '../../rollout/state.ts';
import { sortHistory, validateClusterRegistration, validateCommandId, validateLimit, validateListFilter, validateSpecKey, validateVersion } from './rules.ts';
import { rolloutKeyString } from '../../rollout/key.ts';
import { SYSTEM_CLOCK } from '../../clock.ts';

export interface DynamoStateStoreOptions {
  client: DynamoDBClient;
  tableName: string;
  meter?: Meter;
  clock?: Clock;
}

/** recordCommand re-reads and retries this many times when another write lands in between. */
const RECORD_COMMAND_ATTEMPTS = 8;


export class DynamoStateStore implements StateStore {
  private readonly table: MeteredTable;
  private readonly clock: Clock;

  constructor(opts: DynamoStateStoreOptions) {
    this.table = new MeteredTable(opts.client, opts.tableName, opts.meter ?? NO_METER);
    this.clock = opts.clock ?? SYSTEM_CLOCK;
  }

  async load(key: RolloutKey): Promise<LoadedRollout> {
    validateRolloutKey(key);
    // One request for both items: 'SPEC' < 'STATE' and history ('H#…') sorts before both, so the
    // BETWEEN range holds exactly SPEC and STATE. Two items of at most 400 KB fit in one 1 MB page.
    const out = await this.table.query({
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :spec AND :state',
      ExpressionAttributeValues: marshall({ ':pk': rolloutPk(key), ':spec': SK_SPEC, ':state': SK_STATE }),
      ConsistentRead: true,
    });
    const items = out.Items ?? [];
    const spec = items.find((i) => i.sk?.S === SK_SPEC);
    const state = items.find((i) => i.sk?.S === SK_STATE);
    return { spec: spec ? readSpecItem(spec) : null, state: state ? readStateItem(state) : emptyState() };
  }

  async saveState(key: RolloutKey, next: { state: ReleaseState; outbox: Outbox }, expectedVersion: number): Promise<number> {
    validateRolloutKey(key);
    validateVersion(expectedVersion, 'expectedVersion');
    return this.putState(key, next, expectedVersion);
  }

  async putHistory(key: RolloutKey, entries: HistoryEntry[]): Promise<void> {
    validateRolloutKey(key);
    const now = this.clock.now();
    // BatchWriteItem rejects two requests for one key; the last entry for a key wins, as with puts.
    const byKey = new Map<string, Item>();
    for (const entry of entries) {
      const item = historyItem(key, entry, now);
      byKey.set(item.sk?.S ?? '', item);
    }
    await this.table.batchWrite([...byKey.values()].map((Item) => ({ PutRequest: { Item } })));
  }

  async listHistory(key: RolloutKey): Promise<HistoryEntry[]> {
    validateRolloutKey(key);
    const items = await this.table.queryAll({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :h)',
      ExpressionAttributeValues: marshall({ ':pk': rolloutPk(key), ':h': HISTORY_PREFIX }),
      ConsistentRead: true,
    });
    return sortHistory(items.map(readHistoryItem));
  }

  async putSpec(key: RolloutKey, spec: RolloutSpec, document: unknown, expectedSpecVersion: number): Promise<number> {
    validateRolloutKey(key);
    validateSpecKey(key, spec);
    validateVersion(expectedSpecVersion, 'expectedSpecVersion');
    // The claim goes first: a SPEC never points at a workload without owning it.
    await this.claim(key, spec.workloadRef);
    const specVersion = expectedSpecVersion + 1;
    try {
      await this.table.putItem({ Item: specItem(key, spec, document, specVersion, this.clock.now()), ...versionCondition('specVersion', expectedSpecVersion) });
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) {
        throw new ConflictError(`SPEC of ${rolloutKeyString(key)} is not at specVersion ${expectedSpecVersion}`, { cause: err });
      }
      throw err;
    }
    // The listing entry, written after the SPEC and on every put (1 extra WCU per apply, which is
    // rare): without transactions a crash in between can lose it, and the next apply repairs it.
    await this.table.putItem({ Item: indexItem(key) });
    return specVersion;
  }

  async deleteRollout(key: RolloutKey): Promise<void> {
    validateRolloutKey(key);
    const items = await this.table.queryAll({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: marshall({ ':pk': rolloutPk(key) }),
      ProjectionExpression: 'pk, sk, claim',
      ConsistentRead: true,
    });
    const claim = items.find((k) => k.sk?.S === SK_SPEC)?.claim?.S;
    // SPEC first: once it is gone no reconcile touches the cluster for this key, and a reconcile that
    // finds STATE without SPEC finishes the delete. STATE goes last (it takes the item off the due index).
    const order = (sk: string) => (sk === 'SPEC' ? 0 : sk === 'STATE' ? 2 : 1);
    items.sort((a, b) => order(a.sk?.S ?? '') - order(b.sk?.S ?? ''));
    const keyOf = (k: (typeof items)[number]) => ({ pk: k.pk, sk: k.sk }) as Item;
    const spec = items.filter((k) => k.sk?.S === 'SPEC');
    if (spec.length > 0) await this.table.batchWrite(spec.map((k) => ({ DeleteRequest: { Key: keyOf(k) } })));
    await this.table.batchWrite(items.filter((k) => k.sk?.S !== 'SPEC').map((k) => ({ DeleteRequest: { Key: keyOf(k) } })));
    // The claim, if still ours: once the SPEC is gone a leftover is stale anyway (claims.ts).
    if (claim) await this.releaseClaim(claim, key.name);
    // The listing entry goes last: if we crash before, the half-deleted rollout is still listed
    // and the user can delete it again.
    await this.table.deleteItem({ Key: marshall({ pk: INDEX_PK, sk: indexSk(key) }) });
  }

  /**
   * Rollouts with a SPEC, from the INDEX partition: one Query (paged), never a table Scan, which
   * would read every STATE and history item. Filters on cluster (and namespace) are key prefixes;
   * a namespace alone is a FilterExpression over that partition.
   */
  async listRollouts(filter: { cluster?: string; namespace?: string } = {}): Promise<RolloutKey[]> {
    validateListFilter(filter);
    const prefix = filter.cluster === undefined ? '' : filter.namespace === undefined ? `${filter.cluster}#` : `${filter.cluster}#${filter.namespace}#`;
    const nsOnly = filter.cluster === undefined && filter.namespace !== undefined;
    const items = await this.table.queryAll({
      KeyConditionExpression: prefix === '' ? 'pk = :pk' : 'pk = :pk AND begins_with(sk, :prefix)',
      ...(nsOnly ? { FilterExpression: '#ns = :ns', ExpressionAttributeNames: { '#ns': 'namespace' } } : {}),
      ExpressionAttributeValues: marshall({
        ':pk': INDEX_PK,
        ...(prefix === '' ? {} : { ':prefix': prefix }),
        ...(nsOnly ? { ':ns': filter.namespace } : {}),
      }),
      ConsistentRead: true,
    });
    return items.map(readIndexItem);
  }

  /**
   * Appends the command to STATE and bumps `version`. The bump is what makes the command safe
   * against a concurrent reconcile: that reconcile read the old version, so its conditional save
   * fails (StaleStateError) instead of overwriting STATE without the command; it reloads and sees it.
   * The item also becomes due now, so the next sweep picks it up even if the enqueue is lost.
   */
  async recordCommand(key: RolloutKey, command: Command): Promise<'recorded' | 'duplicate'> {
    validateRolloutKey(key);
    validateCommandId(command.id);
    for (let attempt = 1; ; attempt++) {
      const current = await this.readState(key);
      if (isDuplicateCommand(current.state, command.id)) return 'duplicate';
      const state: ReleaseState = { ...current.state, commands: [...current.state.commands, command] };
      try {
        // The outbox is carried over untouched: it may hold side effects of the last reconcile not yet flushed.
        await this.putState(key, { state, outbox: current.outbox }, current.version, this.clock.now().toISOString());
        return 'recorded';
      } catch (err) {
        if (!(err instanceof StaleStateError) || attempt >= RECORD_COMMAND_ATTEMPTS) throw err;
        // Jitter, so commands racing each other do not collide again on the next attempt.
        await sleep(Math.random() * 20 * attempt);
      }
    }
  }

  /** Every shard of the due-index queried in parallel (one request per shard and page), most overdue first. */
  async queryDue(now: Date, limit?: number): Promise<QueueKey[]> {
    validateLimit(limit);
    const nowIso = now.toISOString();
    const perShard = await Promise.all(allDueShards().map((shard) => this.table.queryAll({
      IndexName: STATE_TABLE.dueIndex.name,
      KeyConditionExpression: 'dueShard = :shard AND dueAt <= :now',
      ExpressionAttributeValues: marshall({ ':shard': shard, ':now': nowIso }),
      ...(limit === undefined ? {} : { Limit: limit }),
    }, limit)));
    const due = perShard.flat()
      .map((i) => ({ pk: i.pk?.S ?? '', dueAt: i.dueAt?.S ?? '' }))
      .sort((a, b) => (a.dueAt < b.dueAt ? -1 : a.dueAt > b.dueAt ? 1 : 0));
    const keys = new Map<string, QueueKey>();
    for (const { pk } of due) {
      const key = parseQueuePk(pk);
      if (key && !keys.has(pk)) keys.set(pk, key);
    }
    return [...keys.values()].slice(0, limit);
  }

  /** One Query per phase range (one, or two when the window wraps) on the resync partition of the due-index. */
  async queryResync(from: Date, to: Date, periodMs: number): Promise<QueueKey[]> {
    const ranges = resyncPhaseRanges(from, to, periodMs);
    const items = (await Promise.all(ranges.map(({ lo, hi }) => this.table.queryAll({
      IndexName: STATE_TABLE.dueIndex.name,
      KeyConditionExpression: 'dueShard = :shard AND dueAt BETWEEN :lo AND :hi',
      ExpressionAttributeValues: marshall({ ':shard': RESYNC_SHARD, ':lo': lo, ':hi': hi }),
    })))).flat();
    const keys = new Map<string, QueueKey>();
    for (const item of items) {
      const pk = item.pk?.S ?? '';
      const key = parseQueuePk(pk);
      if (key) keys.set(pk, key);
    }
    return [...keys.values()];
  }

  async putCluster(reg: ClusterRegistration): Promise<void> {
    validateClusterRegistration(reg);
    await this.table.putItem({ Item: clusterItem(reg, this.clock.now()) });
  }

  async getCluster(name: string): Promise<ClusterRegistration | null> {
    validateKeyPart(name, 'name');
    const out = await this.table.getItem({ Key: marshall({ pk: CLUSTERS_PK, sk: clusterSk(name) }), ConsistentRead: true });
    return out.Item ? readClusterItem(out.Item) : null;
  }

  async deleteCluster(name: string): Promise<void> {
    validateKeyPart(name, 'name');
    await this.table.deleteItem({ Key: marshall({ pk: CLUSTERS_PK, sk: clusterSk(name) }) });
  }

  async listClusters(): Promise<ClusterRegistration[]> {
    const items = await this.table.queryAll({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: marshall({ ':pk': CLUSTERS_PK }),
      ConsistentRead: true,
    });
    return items.map(readClusterItem);
  }

  async loadFleet(name: string): Promise<LoadedFleet> {
    validateKeyPart(name, 'name');
    const out = await this.table.query({
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :spec AND :state',
      ExpressionAttributeValues: marshall({ ':pk': fleetPk(name), ':spec': SK_SPEC, ':state': SK_STATE }),
      ConsistentRead: true,
    });
    const items = out.Items ?? [];
    const spec = items.find((i) => i.sk?.S === SK_SPEC);
    const state = items.find((i) => i.sk?.S === SK_STATE);
    return { spec: spec ? readFleetSpecItem(spec) : null, state: state ? readFleetStateItem(state) : emptyFleetState() };
  }

  async saveFleetState(name: string, next: { state: FleetState; outbox: FleetOutbox }, expectedVersion: number): Promise<number> {
    validateKeyPart(name, 'name');
    validateVersion(expectedVersion, 'expectedVersion');
    return this.putFleetState(name, next, expectedVersion);
  }

  async putFleetSpec(name: string, spec: FleetSpec, document: unknown, expectedSpecVersion: number): Promise<number> {
    validateKeyPart(name, 'name');
    validateVersion(expectedSpecVersion, 'expectedSpecVersion');
    const specVersion = expectedSpecVersion + 1;
    try {
      await this.table.putItem({ Item: fleetSpecItem(name, spec, document, specVersion, this.clock.now()), ...versionCondition('specVersion', expectedSpecVersion) });
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) throw new ConflictError(`SPEC of fleet ${name} is not at specVersion ${expectedSpecVersion}`, { cause: err });
      throw err;
    }
    // As for rollouts: the listing entry after the SPEC, on every put, so a lost one is repaired by the next apply.
    await this.table.putItem({ Item: fleetIndexItem(name) });
    return specVersion;
  }

  async deleteFleet(name: string): Promise<void> {
    validateKeyPart(name, 'name');
    const items = await this.table.queryAll({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: marshall({ ':pk': fleetPk(name) }),
      ProjectionExpression: 'pk, sk',
      ConsistentRead: true,
    });
    // SPEC first (no pass acts without it), STATE last (it takes the fleet off the due index), the listing entry after.
    const order = (sk: string) => (sk === SK_SPEC ? 0 : sk === SK_STATE ? 2 : 1);
    items.sort((a, b) => order(a.sk?.S ?? '') - order(b.sk?.S ?? ''));
    for (const group of [items.filter((k) => k.sk?.S === SK_SPEC), items.filter((k) => k.sk?.S !== SK_SPEC)]) {
      if (group.length > 0) await this.table.batchWrite(group.map((k) => ({ DeleteRequest: { Key: { pk: k.pk, sk: k.sk } as Item } })));
    }
    await this.table.deleteItem({ Key: marshall({ pk: FLEETS_PK, sk: name }) });
  }

  async listFleets(): Promise<string[]> {
    const items = await this.table.queryAll({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: marshall({ ':pk': FLEETS_PK }),
      ConsistentRead: true,
    });
    return items.map((i) => i.sk?.S ?? '').filter((n) => n !== '').sort();
  }

  async recordFleetCommand(name: string, command: FleetCommand): Promise<'recorded' | 'duplicate'> {
    validateKeyPart(name, 'name');
    validateCommandId(command.id);
    for (let attempt = 1; ; attempt++) {
      const current = await this.readFleetState(name);
      if (isDuplicateFleetCommand(current.state, command.id)) return 'duplicate';
      const state: FleetState = { ...current.state, commands: [...current.state.commands, command] };
      try {
        await this.putFleetState(name, { state, outbox: current.outbox }, current.version, this.clock.now().toISOString());
        return 'recorded';
      } catch (err) {
        if (!(err instanceof StaleStateError) || attempt >= RECORD_COMMAND_ATTEMPTS) throw err;
        await sleep(Math.random() * 20 * attempt);
      }
    }
  }

  async putFleetHistory(name: string, entries: HistoryEntry[]): Promise<void> {
    validateKeyPart(name, 'name');
    const now = this.clock.now();
    const byKey = new Map<string, Item>();
    for (const entry of entries) {
      const item = historyItemOf(fleetPk(name), entry, now);
      byKey.set(item.sk?.S ?? '', item);
    }
    await this.table.batchWrite([...byKey.values()].map((Item) => ({ PutRequest: { Item } })));
  }

  async listFleetHistory(name: string): Promise<HistoryEntry[]> {
    validateKeyPart(name, 'name');
    const items = await this.table.queryAll({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :h)',
      ExpressionAttributeValues: marshall({ ':pk': fleetPk(name), ':h': HISTORY_PREFIX }),
      ConsistentRead: true,
    });
    return sortHistory(items.map(readHistoryItem));
  }

  private async readFleetState(name: string): Promise<StoredFleetState> {
    const out = await this.table.getItem({ Key: marshall({ pk: fleetPk(name), sk: SK_STATE }), ConsistentRead: true });
    return out.Item ? readFleetStateItem(out.Item) : emptyFleetState();
  }

  private async putFleetState(name: string, next: { state: FleetState; outbox: FleetOutbox }, expectedVersion: number, dueAt?: string): Promise<number> {
    const version = expectedVersion + 1;
    try {
      await this.table.putItem({ Item: fleetStateItem(name, next, version, this.clock.now(), dueAt), ...versionCondition('version', expectedVersion) });
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) throw new StaleStateError(`STATE of fleet ${name} is no longer at version ${expectedVersion}`, { cause: err });
      throw err;
    }
    return version;
  }

  /** Claim `ref` for `key` (conditional put), taking over a stale claim; WorkloadClaimedError when another rollout holds it. */
  private async claim(key: RolloutKey, ref: WorkloadRef): Promise<void> {
    const pk = claimPk(key, ref);
    const Item = marshall({ pk, sk: SK_CLAIM, owner: key.name });
    let condition = { expression: 'attribute_not_exists(pk) OR #o = :owner', owner: key.name };
    for (let attempt = 1; attempt <= CLAIM_ATTEMPTS; attempt++) {
      try {
        await this.table.putItem({
          Item, ConditionExpression: condition.expression,
          ExpressionAttributeNames: { '#o': 'owner' }, ExpressionAttributeValues: marshall({ ':owner': condition.owner }),
        });
        return;
      } catch (err) {
        if (!(err instanceof ConditionalCheckFailedException)) throw err;
      }
      const held = await this.table.getItem({ Key: marshall({ pk, sk: SK_CLAIM }), ConsistentRead: true });
      const owner = held.Item?.owner?.S;
      if (owner === undefined) {
        condition = { expression: 'attribute_not_exists(pk) OR #o = :owner', owner: key.name };
        continue;
      }
      const ownerSpec = (await this.load({ ...key, name: owner })).spec;
      if (claimIsLive(ref, ownerSpec?.spec.workloadRef ?? null)) {
        throw claimedError(key, ref, owner);
      }
      condition = { expression: '#o = :owner', owner };
    }
    throw new ConflictError(`claiming ${ref.kind} ${key.namespace}/${ref.name} for ${rolloutKeyString(key)} kept racing other applies; try again`);
  }

  private async releaseClaim(pk: string, owner: string): Promise<void> {
    try {
      await this.table.deleteItem({
        Key: marshall({ pk, sk: SK_CLAIM }), ConditionExpression: '#o = :owner',
        ExpressionAttributeNames: { '#o': 'owner' }, ExpressionAttributeValues: marshall({ ':owner': owner }),
      });
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
    }
  }

  private async readState(key: RolloutKey): Promise<StoredState> {
    const out = await this.table.getItem({ Key: marshall({ pk: rolloutPk(key), sk: SK_STATE }), ConsistentRead: true });
    return out.Item ? readStateItem(out.Item) : emptyState();
  }

  private async putState(key: RolloutKey, next: { state: ReleaseState; outbox: Outbox }, expectedVersion: number, dueAt?: string): Promise<number> {
    const version = expectedVersion + 1;
    try {
      await this.table.putItem({ Item: stateItem(key, next, version, this.clock.now(), dueAt), ...versionCondition('version', expectedVersion) });
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) {
        throw new StaleStateError(`STATE of ${rolloutKeyString(key)} is no longer at version ${expectedVersion}`, { cause: err });
      }
      throw err;
    }
    return version;
  }
}

/**
 * Version 0 means "no item yet": `attribute_not_exists(pk)`, since comparing a missing attribute
 * to 0 is false. Otherwise the stored counter must still be the one that was read.
 */
function versionCondition(attribute: 'version' | 'specVersion', expected: number) {
  if (expected === 0) return { ConditionExpression: 'attribute_not_exists(pk)' };
  return {
    ConditionExpression: '#v = :expected',
    ExpressionAttributeNames: { '#v': attribute },
    ExpressionAttributeValues: marshall({ ':expected': expected }),
  };
}

function emptyFleetState(): StoredFleetState {
  return { state: initialFleetState(), version: 0, outbox: { history: [], events: [], memberCommands: [] } };
}

function emptyState(): StoredState {
  return { state: initialState(), version: 0, outbox: { history: [], events: [] } };
}

