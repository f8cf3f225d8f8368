// GET /v1/rollouts/{c}/{ns}/{name}/workload over the in-memory cluster: the revision → ReplicaSet →
// pods view `rollouts get` draws, from one GET and two LISTs.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../shared/kube/types.ts';
import { revisionId } from '../../../shared/workloads/deployment/revision.ts';
import { MemoryCluster } from '../../support/fakes/memoryCluster.ts';
import { V1, V2, pod as setPod, revision as setRevision, statefulSet } from '../workloads/statefulSetFixtures.ts';
import { trafficKey } from '../../../shared/rollout/trafficTypes.ts';
import { PATH, api, rolloutDoc, seedRollout } from './apiFixtures.ts';

const NS = 'shop';
const CREATED = '2030-01-01T00:00:00Z';

function template(image: string) {
  return { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image }] } };
}

function deployment(image: string): KubeObject {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: { name: 'web', namespace: NS, uid: 'dep-uid', generation: 1 },
    spec: { replicas: 3, paused: true, selector: { matchLabels: { app: 'web' } }, template: template(image) },
    status: { observedGeneration: 1 },
  };
}

function replicaSet(name: string, image: string, revision: number, replicas: number, ready: number): KubeObject {
  const t = template(image);
  return {
    apiVersion: 'apps/v1', kind: 'ReplicaSet',
    metadata: {
      name, namespace: NS, uid: `${name}-uid`, generation: 1, creationTimestamp: CREATED,
      labels: { app: 'web' },
      annotations: { 'deployment.kubernetes.io/revision': String(revision) },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'dep-uid', controller: true }],
    },
    spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: t },
    status: { observedGeneration: 1, replicas, readyReplicas: ready, availableReplicas: ready },
  };
}

function pod(name: string, owner: string, state: 'ready' | 'creating' | 'unready' | 'terminating', restarts = 0): KubeObject {
  const running = state !== 'creating';
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name, namespace: NS, labels: { app: 'web' }, creationTimestamp: '2030-01-01T00:01:00Z',
      ...(state === 'terminating' ? { deletionTimestamp: '2030-01-01T00:02:00Z' } : {}),
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: owner, uid: `${owner}-uid`, controller: true }],
    },
    spec: { nodeName: 'node-0', containers: [{ name: 'app' }] },
    status: {
      phase: running ? 'Running' : 'Pending',
      conditions: [{ type: 'Ready', status: state === 'ready' ? 'True' : 'False' }],
      containerStatuses: running
        ? [{ name: 'app', ready: state === 'ready', restartCount: restarts, state: { running: {} } }]
        : [{ name: 'app', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }],
    },
  };
}

function clusterWithARelease(): MemoryCluster {
  const cluster = new MemoryCluster();
  cluster.put(deployment('web:v2'));
  cluster.put(replicaSet('web-old', 'web:v1', 1, 2, 2));
  cluster.put(replicaSet('web-new', 'web:v2', 2, 1, 0));
  cluster.put(pod('web-old-a', 'web-old', 'ready'));
  cluster.put(pod('web-old-b', 'web-old', 'terminating', 2));
  cluster.put(pod('web-new-a', 'web-new', 'creating'));
  // Matches the selector but belongs to no ReplicaSet of this Deployment: not shown.
  cluster.put(pod('stray', 'someone-else', 'unready'));
  return cluster;
}

describe('GET .../workload (the live workload behind a rollout)', () => {
  test('lists the revisions newest first, each with its ReplicaSet, counts and pods', async () => {
    const cluster = clusterWithARelease();
    const a = api({ clusters: { client: async () => cluster } });
    a.clock.set(new Date('2030-01-01T00:03:00Z'));
    await seedRollout(a);

    const res = await a.call('GET', `${PATH}/workload`);

    assert.equal(res.status, 200);
    assert.deepEqual(res.json, {
      rollout: { cluster: 'prod', namespace: NS, name: 'web' },
      kind: 'Deployment',
      name: 'web',
      replicas: 3,
      holderKind: 'ReplicaSet',
      revisions: [
        {
          number: 2, id: revisionId(template('web:v2')), images: { app: 'web:v2' }, holder: 'web-new',
          desired: 1, current: 1, ready: 0, available: 0, ageSeconds: 180,
          pods: [{ name: 'web-new-a', ready: false, readyContainers: 0, containers: 1, phase: 'Pending', reason: 'ContainerCreating', ageSeconds: 120, restarts: 0 }],
        },
        {
          number: 1, id: revisionId(template('web:v1')), images: { app: 'web:v1' }, holder: 'web-old',
          desired: 2, current: 2, ready: 2, available: 2, ageSeconds: 180,
          pods: [
            { name: 'web-old-a', ready: true, readyContainers: 1, containers: 1, phase: 'Running', reason: null, ageSeconds: 120, restarts: 0 },
            { name: 'web-old-b', ready: false, readyContainers: 0, containers: 1, phase: 'Running', reason: 'Terminating', ageSeconds: 120, restarts: 2 },
          ],
        },
      ],
    });
  });

  test('reads the cluster with one GET of the Deployment and one LIST each of ReplicaSets and pods', async () => {
    const cluster = clusterWithARelease();
    const a = api({ clusters: { client: async () => cluster } });
    await seedRollout(a);

    await a.call('GET', `${PATH}/workload`);

    assert.deepEqual(cluster.requests, [
      { verb: 'get', target: `Deployment ${NS}/web` },
      { verb: 'list', target: `ReplicaSet ${NS}?app=web` },
      { verb: 'list', target: `Pod ${NS}?app=web` },
    ]);
  });

  test('a StatefulSet: its ControllerRevisions, with the pods labelled for each', async () => {
    const inShop = (o: KubeObject): KubeObject => ({ ...o, metadata: { ...o.metadata, namespace: NS } });
    const cluster = new MemoryCluster();
    for (const o of [statefulSet({ replicas: 3, partition: 2 }), setRevision(V1, 1), setRevision(V2, 2), setPod(0, V1), setPod(1, V1), setPod(2, V2, { ready: false })]) cluster.put(inShop(o));
    const a = api({ clusters: { client: async () => cluster } });
    await seedRollout(a, rolloutDoc({ kind: 'StatefulSet' }));

    const res = await a.call('GET', `${PATH}/workload`);

    assert.equal(res.status, 200, res.body);
    const body = res.json as { kind: string; replicas: number; revisions: { number: number; holder: string; ready: number; pods: { name: string; ready: boolean }[] }[] };
    assert.equal(body.kind, 'StatefulSet');
    assert.equal(body.replicas, 3);
    assert.deepEqual(body.revisions.map((r) => [r.number, r.holder, r.ready, r.pods.map((p) => `${p.name}:${p.ready}`)]), [
      [2, V2, 0, ['web-2:false']],
      [1, V1, 2, ['web-0:true', 'web-1:true']],
    ]);
  });

  test('a Rollout with trafficRoutings: the router and Services read as the reconcile reads them, naming the routing the router carries', async () => {
    const cluster = clusterWithARelease();
    cluster.put({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: NS }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } });
    cluster.put({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'web', namespace: NS }, spec: { rules: [{ http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }] } });
    const a = api({ clusters: { client: async () => cluster } });
    const doc = rolloutDoc({ steps: [{ replicas: 1, traffic: '20%', pause: {} }, { replicas: '100%' }] });
    (doc.spec as Record<string, unknown>).strategy = { canary: { ...((doc.spec as { strategy: { canary: object } }).strategy.canary), trafficRoutings: [{ service: 'web', gracePeriodSeconds: 5, ingress: { name: 'web' } }] } };
    await seedRollout(a, doc);

    const res = await a.call('GET', `${PATH}/workload`);

    assert.equal(res.status, 200, res.body);
    const traffic = res.json.traffic as { view: { router: string; converged: string[]; stableNarrowedTo: string | null; canarySelects: string | null; problem: string | null }; error: string | null };
    assert.equal(traffic.error, null);
    // No canary Ingress and the user's Service untouched: the router carries the original routing only.
    assert.deepEqual(
      { router: traffic.view.router, converged: traffic.view.converged, narrowed: traffic.view.stableNarrowedTo, canary: traffic.view.canarySelects, problem: traffic.view.problem },
      { router: 'ingress/web', converged: [trafficKey(null)], narrowed: null, canary: null, problem: null },
    );
  });

  test('a Rollout with trafficRoutings whose router cannot be read: the tree, and why the router is missing from it', async () => {
    const cluster = clusterWithARelease();
    const refusing = new Proxy(cluster, {
      get: (target, prop, receiver) => (prop === 'get'
        ? async (ref: { kind: string }) => { if (ref.kind !== 'Deployment') throw new Error(`forbidden: User "api" cannot get resource "${ref.kind}"`); return target.get(ref as never); }
        : Reflect.get(target, prop, receiver)),
    });
    const a = api({ clusters: { client: async () => refusing } });
    const doc = rolloutDoc({ steps: [{ replicas: 1, traffic: '20%', pause: {} }, { replicas: '100%' }] });
    (doc.spec as Record<string, unknown>).strategy = { canary: { ...((doc.spec as { strategy: { canary: object } }).strategy.canary), trafficRoutings: [{ service: 'web', ingress: { name: 'web' } }] } };
    await seedRollout(a, doc);

    const res = await a.call('GET', `${PATH}/workload`);

    assert.equal(res.status, 200, res.body);
    assert.equal((res.json.revisions as unknown[]).length, 2);
    assert.deepEqual(res.json.traffic, { view: null, error: 'reading the router of trafficRoutings[0] failed: forbidden: User "api" cannot get resource "Ingress"' });
  });

  test('a Rollout without trafficRoutings reads no router', async () => {
    const cluster = clusterWithARelease();
    const a = api({ clusters: { client: async () => cluster } });
    await seedRollout(a);

    const res = await a.call('GET', `${PATH}/workload`);

    assert.equal('traffic' in res.json, false);
  });

  test('answers 503 with a clear message when the API has no cluster access', async () => {
    const a = api();
    await seedRollout(a);

    const res = await a.call('GET', `${PATH}/workload`);

    assert.equal(res.status, 503);
    assert.match(String((res.json.error as { message: string }).message), /no access to the clusters/);
  });

  test('answers 404 for an unknown rollout before touching the cluster', async () => {
    const cluster = new MemoryCluster();
    const a = api({ clusters: { client: async () => cluster } });

    const res = await a.call('GET', `${PATH}/workload`);

    assert.equal(res.status, 404);
    assert.deepEqual(cluster.requests, []);
  });

  test('answers 404 naming the Deployment when the workload does not exist', async () => {
    const a = api({ clusters: { client: async () => new MemoryCluster() } });
    await seedRollout(a);

    const res = await a.call('GET', `${PATH}/workload`);

    assert.equal(res.status, 404);
    assert.equal((res.json.error as { message: string }).message, 'Deployment shop/web does not exist in cluster "prod"');
  });

  test('answers 502 when the cluster cannot be read', async () => {
    const a = api({ clusters: { client: async () => { throw new Error('connect ECONNREFUSED 127.0.0.1:6443'); } } });
    await seedRollout(a);

    const res = await a.call('GET', `${PATH}/workload`);

    assert.equal(res.status, 502);
    assert.match((res.json.error as { message: string }).message, /cluster "prod" failed: connect ECONNREFUSED/);
  });
});
