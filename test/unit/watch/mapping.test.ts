// Watch events → rollout keys, and the managed-workload catalog read from the store.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../shared/kube/types.ts';
import type { RolloutKey } from '../../../shared/rollout/types.ts';
import { RolloutCatalog } from '../../../shared/watch/catalog.ts';
import { mapWatchEvent, watchPathOf, watchTargets } from '../../../shared/watch/mapping.ts';
import type { WorkloadDriver } from '../../../shared/workloads/driver.ts';
import { WORKLOAD_DRIVERS } from '../../../shared/workloads/registry.ts';
import { ROUTING_WATCHES } from '../../../shared/traffic/registry.ts';
import { MANAGED_BY, MANAGED_BY_LABEL } from '../../../shared/traffic/provider.ts';
import type { TrafficRouting } from '../../../shared/rollout/trafficTypes.ts';
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

const lookup = { keysFor: (cluster: string, namespace: string, kind: string, name: string) => (cluster === 'prod' && namespace === 'shop' && name === 'web' && kind === 'Deployment' ? [web] : []), keysForRouting: () => [] };
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
    const both = { keysFor: (_c: string, _n: string, kind: string, name: string) => [{ cluster: 'prod', namespace: 'shop', name: `${kind}:${name}` }], keysForRouting: () => [] };
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
    const stsLookup = { keysFor: (_c: string, _n: string, kind: string, name: string) => (kind === 'StatefulSet' && name === 'db' ? [{ ...web, name: 'db' }] : []), keysForRouting: () => [] };
    assert.deepEqual(mapWatchEvent(stsLookup, 'prod', 'shop', target('apps/v1 statefulsets'), 'MODIFIED', { ...sts, metadata: { name: 'db' } }).keys, [{ ...web, name: 'db' }]);
    assert.deepEqual(mapWatchEvent(lookup, 'prod', 'shop', target('apps/v1 statefulsets'), 'MODIFIED', sts).keys, []);
  });

  test('orphans, non-controller owners and unmanaged Deployments map to nothing', () => {
    assert.deepEqual(mapWatchEvent(lookup, 'prod', 'shop', target('apps/v1 replicasets'), 'ADDED', replicaSet('x', null)).keys, []);
    assert.deepEqual(mapWatchEvent(lookup, 'prod', 'shop', target('apps/v1 replicasets'), 'ADDED', replicaSet('web-1', 'web', false)).keys, []);
    assert.deepEqual(mapWatchEvent(lookup, 'prod', 'shop', target('apps/v1 deployments'), 'MODIFIED', deployment('api')).keys, []);
    assert.deepEqual(mapWatchEvent(lookup, 'dev', 'shop', target('apps/v1 deployments'), 'MODIFIED', deployment('web')).keys, []);
  });

  test('the routings\' watches join the targets: the providers\' routers (nginx and ALB share the Ingress watch) and the Services', () => {
    const all = watchTargets(WORKLOAD_DRIVERS, ROUTING_WATCHES);
    assert.deepEqual(all.filter((t) => t.routings.length > 0).map((t) => [t.id, t.consumers.length, t.routings.map((r) => r.subject)]), [
      ['gateway.networking.k8s.io/v1 httproutes', 0, ['gateway']],
      ['networking.k8s.io/v1 ingresses', 0, ['nginx', 'aws-alb']],
      ['v1 services', 0, ['service']],
    ]);
    assert.deepEqual(all.filter((t) => t.routings.length === 0).map((t) => t.id), targets.map((t) => t.id), 'the drivers\' targets unchanged');
  });

  test('a routing\'s object maps through routingOf to the rollouts whose trafficRoutings name it', () => {
    const all = watchTargets(WORKLOAD_DRIVERS, ROUTING_WATCHES);
    const of = (id: string) => all.find((t) => t.id === id)!;
    // web routes through HTTPRoute web-route and Service web; shop-nginx through Ingress front (nginx) and Service front.
    const nginxKey = { ...web, name: 'shop-nginx' };
    const routed = {
      keysFor: () => [],
      keysForRouting: (_c: string, _n: string, subject: string, name: string) =>
        (subject === 'gateway' && name === 'web-route') || (subject === 'service' && name === 'web') ? [web]
          : (subject === 'nginx' && name === 'front') || (subject === 'service' && name === 'front') ? [nginxKey] : [],
    };
    const obj = (apiVersion: string, kind: string, name: string, ours = false): KubeObject =>
      ({ apiVersion, kind, metadata: { name, namespace: 'shop', ...(ours ? { labels: { [MANAGED_BY_LABEL]: MANAGED_BY } } : {}) } });
    const map = (id: string, o: KubeObject) => mapWatchEvent(routed, 'prod', 'shop', of(id), 'MODIFIED', o);
    assert.deepEqual(map('gateway.networking.k8s.io/v1 httproutes', obj('gateway.networking.k8s.io/v1', 'HTTPRoute', 'web-route')), { keys: [web], reason: 'HTTPRoute web-route MODIFIED' });
    assert.deepEqual(map('gateway.networking.k8s.io/v1 httproutes', obj('gateway.networking.k8s.io/v1', 'HTTPRoute', 'other')).keys, []);
    assert.deepEqual(map('v1 services', obj('v1', 'Service', 'web')).keys, [web], 'the stable Service');
    assert.deepEqual(map('v1 services', obj('v1', 'Service', 'web-canary', true)).keys, [web], 'our canary Service, by the stable one\'s name');
    assert.deepEqual(map('v1 services', obj('v1', 'Service', 'web-canary')).keys, [], 'a web-canary that is not ours is no routing\'s');
    assert.deepEqual(map('networking.k8s.io/v1 ingresses', obj('networking.k8s.io/v1', 'Ingress', 'front')).keys, [nginxKey]);
    assert.deepEqual(map('networking.k8s.io/v1 ingresses', obj('networking.k8s.io/v1', 'Ingress', 'front-canary', true)).keys, [nginxKey], 'the nginx canary Ingress, by the stable one\'s name');
    assert.deepEqual(map('networking.k8s.io/v1 ingresses', obj('networking.k8s.io/v1', 'Ingress', 'web-route')).keys, [], 'an Ingress named like an HTTPRoute is not it');
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

  test('knows a routed rollout by its router and its stable Service, and which namespaces to watch for them', async () => {
    const { store, clock } = await seeded();
    const api: RolloutKey = { cluster: 'prod', namespace: 'edge', name: 'api' };
    const trafficRouting: TrafficRouting = { service: 'api-svc', gracePeriodSeconds: 3, provider: { type: 'ingress', classType: 'aws-alb', name: 'api-ing' } };
    await store.putSpec(api, { ...sampleSpec(api), trafficRouting }, sampleDocument(api), 0);
    const catalog = new RolloutCatalog(store, clock);
    await catalog.refresh();
    assert.deepEqual(catalog.keysForRouting('prod', 'edge', 'aws-alb', 'api-ing'), [api]);
    assert.deepEqual(catalog.keysForRouting('prod', 'edge', 'service', 'api-svc'), [api]);
    assert.deepEqual(catalog.keysForRouting('prod', 'edge', 'nginx', 'api-ing'), [], 'another provider\'s Ingress of that name is not its router');
    assert.deepEqual(catalog.keysForRouting('prod', 'shop', 'aws-alb', 'api-ing'), [], 'nor one in another namespace');
    assert.deepEqual(catalog.routedNamespaces('aws-alb'), [{ cluster: 'prod', namespace: 'edge' }]);
    assert.deepEqual(catalog.routedNamespaces('service'), [{ cluster: 'prod', namespace: 'edge' }], 'a rollout without trafficRoutings watches no Services');
    assert.deepEqual(catalog.routedNamespaces('gateway'), []);
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
