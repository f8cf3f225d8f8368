// Watch events → rollout keys, and the managed-workload catalog read from the store.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../shared/kube/types.ts';
import type { RolloutKey } from '../../../shared/rollout/types.ts';
import { RolloutCatalog } from '../../../shared/watch/catalog.ts';
import { mapWatchEvent, watchPathOf, watchTargets } from '../../../shared/watch/mapping.ts';
import type { WorkloadDriver } from '../../../shared/workloads/driver.ts';
import { WORKLOAD_DRIVERS } from '../../../shared/workloads/registry.ts';
import { Meter } from '../../../shared/meter.ts';
import { MemoryStateStore } from '../../support/fakes/memoryStateStore.ts';
import { ManualClock, sampleDocument, sampleSpec } from '../../../bench/testbed/stateStoreFixtures.ts';

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

const lookup = { keysFor: (cluster: string, namespace: string, kind: string, name: string) => (cluster === 'prod' && namespace === 'shop' && name === 'web' && kind === 'Deployment' ? [web] : []) };
const targets = watchTargets(WORKLOAD_DRIVERS);
const target = (id: string) => {
  const t = targets.find((x) => x.id === id);
  assert.ok(t, `no watch target ${id}`);
  return t;
};

describe('watch event mapping', () => {
  test('the watch targets are what the registry\'s drivers declare, one per resource', () => {
    assert.deepEqual(targets.map((t) => [t.id, t.consumers.map((c) => c.workloadKind)]), [
      ['apps/v1 deployments', ['Deployment']],
      ['apps/v1 replicasets', ['Deployment']],
      ['apps/v1 statefulsets', ['StatefulSet']],
      ['apps/v1 daemonsets', ['DaemonSet']],
      ['apps.kruise.io/v1alpha1 clonesets', ['CloneSet']],
      ['apps.kruise.io/v1beta1 statefulsets', ['AdvancedStatefulSet']],
      ['apps.kruise.io/v1alpha1 daemonsets', ['AdvancedDaemonSet']],
    ]);
  });

  test('two drivers declaring one resource share its watch, and each maps its events', () => {
    const pods = (kind: 'Deployment' | 'StatefulSet', owner: string) => ({
      kind, watches: [{ apiVersion: 'v1', kind: 'Pod', resource: 'pods', workloadOf: (o: KubeObject) => (o.metadata.labels?.owner === owner ? owner : null) }],
    }) as unknown as WorkloadDriver;
    const shared = watchTargets({ Deployment: pods('Deployment', 'web'), StatefulSet: pods('StatefulSet', 'db') });
    assert.equal(shared.length, 1);
    const both = { keysFor: (_c: string, _n: string, kind: string, name: string) => [{ cluster: 'prod', namespace: 'shop', name: `${kind}:${name}` }] };
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'db-0', labels: { owner: 'db' } } } as KubeObject;
    assert.deepEqual(mapWatchEvent(both, 'prod', 'shop', shared[0]!, 'MODIFIED', pod), { keys: [{ cluster: 'prod', namespace: 'shop', name: 'StatefulSet:db' }], reason: 'Pod db-0 MODIFIED' });
  });

  test('a managed Deployment maps to its rollout, with the event as reason', () => {
    assert.deepEqual(mapWatchEvent(lookup, 'prod', 'shop', target('apps/v1 deployments'), 'MODIFIED', deployment('web')), { keys: [web], reason: 'Deployment web MODIFIED' });
  });

  test('a ReplicaSet maps through its controlling Deployment', () => {
    assert.deepEqual(mapWatchEvent(lookup, 'prod', 'shop', target('apps/v1 replicasets'), 'ADDED', replicaSet('web-5d4f', 'web')).keys, [web]);
  });

  test('a StatefulSet maps to the rollout managing it (a StatefulSet of the same name as a managed Deployment does not)', () => {
    const sts = { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'web', namespace: 'shop' } } as KubeObject;
    const stsLookup = { keysFor: (_c: string, _n: string, kind: string, name: string) => (kind === 'StatefulSet' && name === 'db' ? [{ ...web, name: 'db' }] : []) };
    assert.deepEqual(mapWatchEvent(stsLookup, 'prod', 'shop', target('apps/v1 statefulsets'), 'MODIFIED', { ...sts, metadata: { name: 'db' } }).keys, [{ ...web, name: 'db' }]);
    assert.deepEqual(mapWatchEvent(lookup, 'prod', 'shop', target('apps/v1 statefulsets'), 'MODIFIED', sts).keys, []);
  });

  test('orphans, non-controller owners and unmanaged Deployments map to nothing', () => {
    assert.deepEqual(mapWatchEvent(lookup, 'prod', 'shop', target('apps/v1 replicasets'), 'ADDED', replicaSet('x', null)).keys, []);
    assert.deepEqual(mapWatchEvent(lookup, 'prod', 'shop', target('apps/v1 replicasets'), 'ADDED', replicaSet('web-1', 'web', false)).keys, []);
    assert.deepEqual(mapWatchEvent(lookup, 'prod', 'shop', target('apps/v1 deployments'), 'MODIFIED', deployment('api')).keys, []);
    assert.deepEqual(mapWatchEvent(lookup, 'dev', 'shop', target('apps/v1 deployments'), 'MODIFIED', deployment('web')).keys, []);
  });

  test('watch paths are per namespace, under /apis for named groups and /api for the core group', () => {
    assert.equal(watchPathOf('apps/v1', 'shop', 'replicasets'), '/apis/apps/v1/namespaces/shop/replicasets');
    assert.equal(watchPathOf('v1', 'shop', 'pods'), '/api/v1/namespaces/shop/pods');
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
