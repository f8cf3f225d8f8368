// In-memory StateStore for unit tests of the pipeline. Same semantics as DynamoStateStore (it runs
// the same contract suite, test/support/stateStoreContract.ts): versions and StaleStateError,
// duplicate commands, the sparse due rule, key validation. Values are copied in and out as JSON
// (what DynamoDB's marshalling keeps), so callers cannot mutate stored state by reference.
// The Meter counts the requests DynamoStateStore would send (no capacity units).
import { ConflictError, StaleStateError } from '../../../shared/errors.ts';
import { claimIsLive, claimPk, claimedError } from '../../../shared/adapters/dynamodb/claims.ts';
import { dueAtFor, historySk, indexSk, resyncPhase, resyncPhaseRanges, rolloutPk, validateKeyPart, validateRolloutKey } from '../../../shared/adapters/dynamodb/keys.ts';
import { isDuplicateCommand } from '../../../shared/rollout/state.ts';
import { sortHistory, validateCommandId, validateLimit, validateClusterRegistration, validateListFilter, validateSpecKey, validateVersion } from '../../../shared/adapters/dynamodb/rules.ts';
import { NO_METER } from '../../../shared/meter.ts';
import type { Meter } from '../../../shared/meter.ts';
import type {
  Clock, ClusterRegistration, FleetOutbox, HistoryEntry, LoadedFleet, LoadedRollout, Outbox, QueueKey, StateStore, StoredFleetSpec, StoredFleetState, StoredSpec, StoredState,
} from '../../../shared/ports.ts';
import { fleetDueAtFor, fleetPk } from '../../../shared/adapters/dynamodb/keys.ts';
import { initialFleetState, isDuplicateFleetCommand } from '../../../shared/fleet/state.ts';
import type { FleetCommand, FleetSpec, FleetState } from '../../../shared/fleet/types.ts';
import { initialState } from '../../../shared/rollout/state.ts';
import type { Command, ReleaseState, RolloutKey, RolloutSpec } from '../../../shared/rollout/types.ts';

interface Partition {
  key: RolloutKey;
  spec?: StoredSpec;
  state?: StoredState & { dueAt: string | null };
  history: Map<string, HistoryEntry>;
}

interface FleetPartition {
  name: string;
  spec?: StoredFleetSpec;
  state?: StoredFleetState & { dueAt: string | null };
  history: Map<string, HistoryEntry>;
}

export class MemoryStateStore implements StateStore {
  private readonly partitions = new Map<string, Partition>();
  private readonly fleets = new Map<string, FleetPartition>();
  /** The INDEX partition: listed rollouts by `<cluster>#<ns>#<name>`. */
  private readonly index = new Map<string, RolloutKey>();
  private readonly clusters = new Map<string, ClusterRegistration>();
  /** Workload claims: claim pk → owning rollout name. */
  private readonly claims = new Map<string, string>();
  private readonly clock: Clock;
  private readonly meter: Meter;

  constructor(opts: { clock?: Clock; meter?: Meter } = {}) {
    this.clock = opts.clock ?? { now: () => new Date() };
    this.meter = opts.meter ?? NO_METER;
  }

  async load(key: RolloutKey): Promise<LoadedRollout> {
    validateRolloutKey(key);
    this.meter.add('ddb.read');
    const p = this.partitions.get(rolloutPk(key));
    const state = p?.state ? { state: p.state.state, version: p.state.version, outbox: p.state.outbox } : emptyState();
    return copy({ spec: p?.spec ?? null, state });
  }

  async saveState(key: RolloutKey, next: { state: ReleaseState; outbox: Outbox }, expectedVersion: number): Promise<number> {
    validateRolloutKey(key);
    validateVersion(expectedVersion, 'expectedVersion');
    return this.putState(key, next, expectedVersion);
  }

  async putHistory(key: RolloutKey, entries: HistoryEntry[]): Promise<void> {
    validateRolloutKey(key);
    const keyed = entries.map((e) => [historySk(e.releaseId, e.seq), copy(e)] as const);
    if (keyed.length > 0) this.meter.add('ddb.write', Math.ceil(new Set(keyed.map(([sk]) => sk)).size / 25));
    const p = this.partition(key);
    for (const [sk, entry] of keyed) p.history.set(sk, entry);
  }

  async listHistory(key: RolloutKey): Promise<HistoryEntry[]> {
    validateRolloutKey(key);
    this.meter.add('ddb.read');
    const p = this.partitions.get(rolloutPk(key));
    const inKeyOrder = [...(p?.history.entries() ?? [])].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, e]) => e);
    return copy(sortHistory(inKeyOrder));
  }

  async putSpec(key: RolloutKey, spec: RolloutSpec, document: unknown, expectedSpecVersion: number): Promise<number> {
    validateRolloutKey(key);
    validateSpecKey(key, spec);
    validateVersion(expectedSpecVersion, 'expectedSpecVersion');
    this.claim(key, spec);
    this.meter.add('ddb.write');
    const p = this.partition(key);
    if ((p.spec?.specVersion ?? 0) !== expectedSpecVersion) {
      throw new ConflictError(`SPEC of ${rolloutPk(key)} is not at specVersion ${expectedSpecVersion}`);
    }
    const specVersion = expectedSpecVersion + 1;
    p.spec = copy({ spec, specVersion, document: document ?? null });
    this.meter.add('ddb.write');
    this.index.set(indexSk(key), { ...key });
    return specVersion;
  }

  async deleteRollout(key: RolloutKey): Promise<void> {
    validateRolloutKey(key);
    const p = this.partitions.get(rolloutPk(key));
    const items = (p?.spec ? 1 : 0) + (p?.state ? 1 : 0) + (p?.history.size ?? 0);
    this.meter.add('ddb.read');
    // SPEC alone, then the rest in chunks of 25, then the listing entry (as DynamoStateStore does).
    this.meter.add('ddb.write', Math.ceil(Math.max(0, items - 1) / 25) + 2);
    const claim = p?.spec ? claimPk(key, p.spec.spec.workloadRef) : null;
    this.partitions.delete(rolloutPk(key));
    this.index.delete(indexSk(key));
    if (claim !== null && this.claims.get(claim) === key.name) {
      this.meter.add('ddb.write');
      this.claims.delete(claim);
    }
  }

  /** As DynamoStateStore: a conditional put of the claim, taking over a stale one. */
  private claim(key: RolloutKey, spec: RolloutSpec): void {
    const pk = claimPk(key, spec.workloadRef);
    this.meter.add('ddb.write');
    const owner = this.claims.get(pk);
    if (owner !== undefined && owner !== key.name) {
      this.meter.add('ddb.read', 2);
      const ownerSpec = this.partitions.get(rolloutPk({ ...key, name: owner }))?.spec;
      if (claimIsLive(spec.workloadRef, ownerSpec?.spec.workloadRef ?? null)) {
        throw claimedError(key, spec.workloadRef, owner);
      }
      this.meter.add('ddb.write');
    }
    this.claims.set(pk, key.name);
  }

  async listRollouts(filter: { cluster?: string; namespace?: string } = {}): Promise<RolloutKey[]> {
    validateListFilter(filter);
    this.meter.add('ddb.read');
    return [...this.index.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, k]) => k)
      .filter((k) => (filter.cluster === undefined || k.cluster === filter.cluster) && (filter.namespace === undefined || k.namespace === filter.namespace))
      .map((k) => ({ ...k }));
  }

  async recordCommand(key: RolloutKey, command: Command): Promise<'recorded' | 'duplicate'> {
    validateRolloutKey(key);
    validateCommandId(command.id);
    // Read-check-write happens without an await in between, so no other call can interleave:
    // the version check of putState can never fail here (DynamoStateStore retries when it does).
    this.meter.add('ddb.read');
    const current = this.partitions.get(rolloutPk(key))?.state ?? emptyState();
    if (isDuplicateCommand(current.state, command.id)) return 'duplicate';
    const state: ReleaseState = { ...current.state, commands: [...current.state.commands, command] };
    this.putState(key, { state, outbox: current.outbox }, current.version, this.clock.now().toISOString());
    return 'recorded';
  }

  async queryDue(now: Date, limit?: number): Promise<QueueKey[]> {
    validateLimit(limit);
    this.meter.add('ddb.read', 8);
    const nowIso = now.toISOString();
    const fleets = [...this.fleets.values()].flatMap((f) => (f.state?.dueAt != null && f.state.dueAt <= nowIso ? [{ key: { fleet: f.name } as QueueKey, dueAt: f.state.dueAt }] : []));
    return [...this.partitions.values()]
      .flatMap((p) => (p.state?.dueAt != null && p.state.dueAt <= nowIso ? [{ key: p.key as QueueKey, dueAt: p.state.dueAt }] : []))
      .concat(fleets)
      .sort((a, b) => (a.dueAt < b.dueAt ? -1 : a.dueAt > b.dueAt ? 1 : 0))
      .slice(0, limit)
      .map(({ key }) => ({ ...key }));
  }

  async queryResync(from: Date, to: Date, periodMs: number): Promise<QueueKey[]> {
    const ranges = resyncPhaseRanges(from, to, periodMs);
    this.meter.add('ddb.read', ranges.length);
    const inWindow = (pk: string) => ranges.some(({ lo, hi }) => lo <= resyncPhase(pk) && resyncPhase(pk) <= hi);
    const fleets: QueueKey[] = [...this.fleets.values()].filter((f) => f.spec !== undefined && inWindow(fleetPk(f.name))).map((f) => ({ fleet: f.name }));
    return [...this.partitions.entries()]
      .filter(([pk, p]) => p.spec !== undefined && inWindow(pk))
      .map(([, p]): QueueKey => ({ ...p.key }))
      .concat(fleets);
  }

  async loadFleet(name: string): Promise<LoadedFleet> {
    validateKeyPart(name, 'name');
    this.meter.add('ddb.read');
    const f = this.fleets.get(name);
    const state = f?.state ? { state: f.state.state, version: f.state.version, outbox: f.state.outbox } : emptyFleetState();
    return copy({ spec: f?.spec ?? null, state });
  }

  async saveFleetState(name: string, next: { state: FleetState; outbox: FleetOutbox }, expectedVersion: number): Promise<number> {
    validateKeyPart(name, 'name');
    validateVersion(expectedVersion, 'expectedVersion');
    return this.putFleetState(name, next, expectedVersion);
  }

  async putFleetSpec(name: string, spec: FleetSpec, document: unknown, expectedSpecVersion: number): Promise<number> {
    validateKeyPart(name, 'name');
    validateVersion(expectedSpecVersion, 'expectedSpecVersion');
    this.meter.add('ddb.write', 2);
    const f = this.fleet(name);
    if ((f.spec?.specVersion ?? 0) !== expectedSpecVersion) throw new ConflictError(`SPEC of fleet ${name} is not at specVersion ${expectedSpecVersion}`);
    const specVersion = expectedSpecVersion + 1;
    f.spec = copy({ spec, specVersion, document: document ?? null });
    return specVersion;
  }

  async deleteFleet(name: string): Promise<void> {
    validateKeyPart(name, 'name');
    this.meter.add('ddb.read');
    this.meter.add('ddb.write', 3);
    this.fleets.delete(name);
  }

  async listFleets(): Promise<string[]> {
    this.meter.add('ddb.read');
    return [...this.fleets.values()].filter((f) => f.spec !== undefined).map((f) => f.name).sort();
  }

  async recordFleetCommand(name: string, command: FleetCommand): Promise<'recorded' | 'duplicate'> {
    validateKeyPart(name, 'name');
    validateCommandId(command.id);
    this.meter.add('ddb.read');
    const current = this.fleets.get(name)?.state ?? emptyFleetState();
    if (isDuplicateFleetCommand(current.state, command.id)) return 'duplicate';
    const state: FleetState = { ...current.state, commands: [...current.state.commands, command] };
    this.putFleetState(name, { state, outbox: current.outbox }, current.version, this.clock.now().toISOString());
    return 'recorded';
  }

  async putFleetHistory(name: string, entries: HistoryEntry[]): Promise<void> {
    validateKeyPart(name, 'name');
    const keyed = entries.map((e) => [historySk(e.releaseId, e.seq), copy(e)] as const);
    if (keyed.length > 0) this.meter.add('ddb.write', Math.ceil(new Set(keyed.map(([sk]) => sk)).size / 25));
    const f = this.fleet(name);
    for (const [sk, entry] of keyed) f.history.set(sk, entry);
  }

  async listFleetHistory(name: string): Promise<HistoryEntry[]> {
    validateKeyPart(name, 'name');
    this.meter.add('ddb.read');
    const f = this.fleets.get(name);
    const inKeyOrder = [...(f?.history.entries() ?? [])].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, e]) => e);
    return copy(sortHistory(inKeyOrder));
  }

  private putFleetState(name: string, next: { state: FleetState; outbox: FleetOutbox }, expectedVersion: number, dueAt?: string): number {
    this.meter.add('ddb.write');
    const f = this.fleet(name);
    if ((f.state?.version ?? 0) !== expectedVersion) throw new StaleStateError(`STATE of fleet ${name} is no longer at version ${expectedVersion}`);
    const version = expectedVersion + 1;
    f.state = { ...copy({ state: next.state, outbox: next.outbox }), version, dueAt: dueAt ?? fleetDueAtFor(next.state, this.clock.now()) };
    return version;
  }

  private fleet(name: string): FleetPartition {
    let f = this.fleets.get(name);
    if (!f) {
      f = { name, history: new Map() };
      this.fleets.set(name, f);
    }
    return f;
  }

  async putCluster(reg: ClusterRegistration): Promise<void> {
    validateClusterRegistration(reg);
    this.meter.add('ddb.write');
    this.clusters.set(reg.name, copy(reg));
  }

  async getCluster(name: string): Promise<ClusterRegistration | null> {
    validateKeyPart(name, 'name');
    this.meter.add('ddb.read');
    const reg = this.clusters.get(name);
    return reg ? copy(reg) : null;
  }

  async deleteCluster(name: string): Promise<void> {
    validateKeyPart(name, 'name');
    this.meter.add('ddb.write');
    this.clusters.delete(name);
  }

  async listClusters(): Promise<ClusterRegistration[]> {
    this.meter.add('ddb.read');
    return [...this.clusters.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => copy(r));
  }

  private putState(key: RolloutKey, next: { state: ReleaseState; outbox: Outbox }, expectedVersion: number, dueAt?: string): number {
    this.meter.add('ddb.write');
    const p = this.partition(key);
    if ((p.state?.version ?? 0) !== expectedVersion) {
      throw new StaleStateError(`STATE of ${rolloutPk(key)} is no longer at version ${expectedVersion}`);
    }
    const now = this.clock.now();
    const version = expectedVersion + 1;
    p.state = { ...copy({ state: next.state, outbox: next.outbox }), version, dueAt: dueAt ?? dueAtFor(next.state, now) };
    return version;
  }

  private partition(key: RolloutKey): Partition {
    const pk = rolloutPk(key);
    let p = this.partitions.get(pk);
    if (!p) {
      p = { key: { ...key }, history: new Map() };
      this.partitions.set(pk, p);
    }
    return p;
  }
}

function emptyFleetState(): StoredFleetState {
  return { state: initialFleetState(), version: 0, outbox: { history: [], events: [], memberCommands: [] } };
}

function emptyState(): StoredState {
  return { state: initialState(), version: 0, outbox: { history: [], events: [] } };
}

/** A deep copy through JSON: drops undefined fields like DynamoDB marshalling with removeUndefinedValues. */
function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
