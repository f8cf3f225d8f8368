// What the watch-proxy's catalogue refresh costs in DynamoDB, measured on dynalite through the same
// code (RolloutCatalog over DynamoStateStore): an empty table, then a first and a steady refresh
// with ROLLOUTS rollouts (the first loads every SPEC; later ones only list, until the SPEC TTL).
import { DynamoStateStore } from '../../shared/adapters/dynamodb/stateStore.ts';
import { Meter } from '../../shared/meter.ts';
import { RolloutCatalog } from '../../shared/watch/catalog.ts';
import { startDynalite } from '../testbed/dynalite.ts';
import { sampleDocument, sampleSpec } from '../testbed/stateStoreFixtures.ts';

const ROLLOUTS = 10;

export interface CatalogUnits {
  rollouts: number;
  /** RCU (billed minimums applied) of one refresh. */
  emptyRefreshRcu: number;
  firstRefreshRcu: number;
  steadyRefreshRcu: number;
  /** (first − steady) / rollouts: the SPEC load of one rollout at each proxy start. */
  firstLoadRcuPerRollout: number;
}

export async function measureCatalogUnits(): Promise<CatalogUnits> {
  const dynamo = await startDynalite({ tableName: 'bench-catalog' });
  try {
    const meter = new Meter();
    const store = new DynamoStateStore({ client: dynamo.client, tableName: dynamo.tableName, meter });
    const clock = { now: () => new Date() };
    const rcu = async (f: () => Promise<unknown>) => {
      const before = meter.get('ddb.rcu');
      await f();
      return meter.get('ddb.rcu') - before;
    };
    const emptyRefreshRcu = await rcu(() => new RolloutCatalog(store, clock).refresh());
    for (let i = 0; i < ROLLOUTS; i += 1) {
      const key = { cluster: 'bench', namespace: `team-${i}`, name: 'web' };
      await store.putSpec(key, sampleSpec(key), sampleDocument(key), 0);
    }
    const catalog = new RolloutCatalog(store, clock);
    const firstRefreshRcu = await rcu(() => catalog.refresh());
    const steadyRefreshRcu = await rcu(() => catalog.refresh());
    return { rollouts: ROLLOUTS, emptyRefreshRcu, firstRefreshRcu, steadyRefreshRcu, firstLoadRcuPerRollout: (firstRefreshRcu - steadyRefreshRcu) / ROLLOUTS };
  } finally {
    await dynamo.stop();
  }
}
