// Which workloads are managed, from the state store: rollout keys come from the INDEX listing (one
// paged Query per refresh); each rollout's workloadRef from its SPEC, loaded once and re-read only
// after `specTtlMs` (a workloadRef rarely changes, and never during a release), so a refresh costs
// one Query plus a load per new or stale rollout, not one per rollout. A rollout with trafficRoutings
// is also known by its routing's objects (its router, its stable Service: routingNames), which the API
// never lets change during a release.
import pMap from 'p-map';
import type { Clock, StateStore } from '../ports.ts';
import type { RolloutKey, WorkloadKind } from '../rollout/types.ts';
import { rolloutKeyString } from '../rollout/key.ts';
import { routingNames, type RoutingSubject } from '../traffic/registry.ts';

interface Entry {
  key: RolloutKey;
  kind: WorkloadKind;
  workload: string;
  /** The names its routing's objects go by, per subject; [] without trafficRoutings. */
  routing: { subject: RoutingSubject; name: string }[];
  loadedAt: number;
}

export interface CatalogChanges {
  added: RolloutKey[];
  removed: RolloutKey[];
}

const LOAD_CONCURRENCY = 8;

export class RolloutCatalog {
  private entries = new Map<string, Entry>();

  constructor(
    private readonly store: Pick<StateStore, 'listRollouts' | 'load'>,
    private readonly clock: Clock,
    private readonly specTtlMs = 10 * 60_000,
  ) {}

  async refresh(): Promise<CatalogChanges> {
    const now = this.clock.now().getTime();
    const listed = await this.store.listRollouts();
    const next = new Map<string, Entry>();
    const toLoad: RolloutKey[] = [];
    for (const key of listed) {
      const id = rolloutKeyString(key);
      const known = this.entries.get(id);
      if (known && now - known.loadedAt < this.specTtlMs) next.set(id, known);
      else toLoad.push(key);
    }
    const loaded = await pMap(toLoad, async (key) => ({ key, spec: (await this.store.load(key)).spec }), { concurrency: LOAD_CONCURRENCY });
    for (const { key, spec } of loaded) {
      if (!spec) continue;
      const { workloadRef, trafficRouting } = spec.spec;
      next.set(rolloutKeyString(key), { key, kind: workloadRef.kind, workload: workloadRef.name, routing: trafficRouting ? routingNames(trafficRouting) : [], loadedAt: now });
    }
    const added = [...next.keys()].filter((id) => !this.entries.has(id)).map((id) => (next.get(id) as Entry).key);
    const removed = [...this.entries.keys()].filter((id) => !next.has(id)).map((id) => (this.entries.get(id) as Entry).key);
    this.entries = next;
    return { added, removed };
  }

  /** "cluster\nnamespace" pairs that have at least one managed workload of `kind`. */
  namespaces(kind: WorkloadKind): { cluster: string; namespace: string }[] {
    return this.namespacesWhere((e) => e.kind === kind);
  }

  /** Those that have at least one rollout whose routing names an object under `subject`. */
  routedNamespaces(subject: RoutingSubject): { cluster: string; namespace: string }[] {
    return this.namespacesWhere((e) => e.routing.some((r) => r.subject === subject));
  }

  /** Rollouts whose routing names object `name` under `subject`. */
  keysForRouting(cluster: string, namespace: string, subject: RoutingSubject, name: string): RolloutKey[] {
    return [...this.entries.values()]
      .filter((e) => e.key.cluster === cluster && e.key.namespace === namespace && e.routing.some((r) => r.subject === subject && r.name === name))
      .map((e) => e.key);
  }

  private namespacesWhere(test: (e: Entry) => boolean): { cluster: string; namespace: string }[] {
    const seen = new Map<string, { cluster: string; namespace: string }>();
    for (const e of this.entries.values()) {
      if (test(e)) seen.set(`${e.key.cluster}\n${e.key.namespace}`, { cluster: e.key.cluster, namespace: e.key.namespace });
    }
    return [...seen.values()];
  }

  /** Rollouts managing workload `name` of `kind` (normally one; more is a misconfiguration we still serve). */
  keysFor(cluster: string, namespace: string, kind: WorkloadKind, name: string): RolloutKey[] {
    const out: RolloutKey[] = [];
    for (const e of this.entries.values()) {
      if (e.kind === kind && e.workload === name && e.key.cluster === cluster && e.key.namespace === namespace) out.push(e.key);
    }
    return out;
  }

  get size(): number {
    return this.entries.size;
  }
}

