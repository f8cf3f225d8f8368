// Watch events → rollout keys, and the managed-workload catalog read from the store.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../shared/kube/types.ts';
import type { RolloutKey } from '../../../shared/rollout/types.ts';
import { RolloutCatalog } from '../../../shared/watch/catalog.ts';
import { mapWatchEvent, watchPathOf } from '../../../shared/watch/mapping.ts';
import { Meter } from '../../../shared/reconcile/meter.ts';
import { MemoryStateStore } from '../../support/fakes/memoryStateStore.ts';
import { ManualClock, sampleDocument, sampleSpec } from '../../support/stateStoreFixtures.ts';

const web: RolloutKey = { cluster: 'prod', namespace: 'shop', name: 'web' };

function deployment(name: string): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: 'shop', resourceVersion: '10' } };
}

function replicaSet(name: string, owner: string | null, controller = true): KubeObject {
  return {
    apiVersion: 'apps/v1', kind: 'ReplicaSet',
    metadata: { name, namespace: 'shop', ownerReferences: owner ? [{ apiVersion: 'apps/v1', kind: 'Deployment', name: owner, uid: 'u1', controller }] : [] },
  };
}

const lookup = { keysFor: (cluster: string, namespace: string, _kind: 'Deployment', name: string) => (cluster === 'prod' && namespace === 'shop' && name === 'web' ? [web] : []) };

describe('watch event mapping', () => {
  test('a managed Deployment maps to its rollout, with the event as reason', () => {
    assert.deepEqual(mapWatchEvent(lookup, 'prod', 'shop', 'Deployment', 'MODIFIED', deployment('web')), { keys: [web], reason: 'Deployment web MODIFIED' });
  });

  test('a ReplicaSet maps through its controlling Deployment', () => {
    assert.deepEqual(mapWatchEvent(lookup, 'prod', 'shop', 'ReplicaSet', 'ADDED', replicaSet('web-5d4f', 'web')).keys, [web]);
  });

  test('orphans, non-controller owners and unmanaged Deployments map to nothing', () => {
    assert.deepEqual(mapWatchEvent(lookup, 'prod', 'shop', 'ReplicaSet', 'ADDED', replicaSet('x', null)).keys, []);
    assert.deepEqual(mapWatchEvent(lookup, 'prod', 'shop', 'ReplicaSet', 'ADDED', replicaSet('web-1', 'web', false)).keys, []);
    assert.deepEqual(mapWatchEvent(lookup, 'prod', 'shop', 'Deployment', 'MODIFIED', deployment('api')).keys, []);
    assert.deepEqual(mapWatchEvent(lookup, 'dev', 'shop', 'Deployment', 'MODIFIED', deployment('web')).keys, []);
  });

  test('watch paths are per namespace', () => {
    assert.equal(watchPathOf('shop', 'replicasets'), '/apis/apps/v1/namespaces/shop/replicasets');
  });
});

describe('managed rollout catalog', () => {
  async function seeded(): Promise<{ store: MemoryStateStore; clock: ManualClock; meter: Meter }> {
    const clock = new ManualClock();
    const meter = new Meter();
    const store = new MemoryStateStore({ clock, meter });
    const spec = { ...sampleSpec(web), workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment' as const, name: 'web-deploy' } };
    await store.putSpec(web, spec, sampleDocument(web), 0);
    return { store, clock, meter };
  }

  test('knows each rollout by its workload, and which namespaces to watch', async () => {
    const { store, clock } = await seeded();
    const catalog = new RolloutCatalog(store, clock);
    assert.deepEqual(await catalog.refresh(), { added: [web], removed: [] });
    assert.deepEqual(catalog.keysFor('prod', 'shop', 'Deployment', 'web-deploy'), [web]);
    assert.deepEqual(catalog.keysFor('prod', 'shop', 'Deployment', 'web'), []);
    assert.deepEqual(catalog.namespaces('Deployment'), [{ cluster: 'prod', namespace: 'shop' }]);
  });

  test('a refresh loads only new or stale specs, and drops deleted rollouts', async () => {
    const { store, clock, meter } = await seeded();
    const catalog = new RolloutCatalog(store, clock, 60_000);
    await catalog.refresh();
    const before = meter.get('ddb.read');
    await catalog.refresh();
    assert.equal(meter.get('ddb.read') - before, 1, 'one listing, no spec loads');
    clock.advance(61);
    await catalog.refresh();
    assert.equal(meter.get('ddb.read') - before, 3, 'listing + one reload of the stale spec');
    await store.deleteRollout(web);
    assert.deepEqual(await catalog.refresh(), { added: [], removed: [web] });
    assert.deepEqual(catalog.namespaces('Deployment'), []);
  });
});
