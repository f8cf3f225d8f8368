// KubeClusterClient against the real local control plane, authenticated as the least-privilege
// `serverless-rollouts` user (infra/k8s/rollouts-rbac.yaml). Set-up and concurrent "other writers"
// use the admin user.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { ApiextensionsV1Api, AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { ConflictError, ForbiddenError, GoneError, KindNotServedError, NotFoundError, UnauthorizedError, ValidationError } from '../../shared/errors.ts';
import type { KubeObject, ObjectRef } from '../../shared/kube/types.ts';
import { Meter } from '../../shared/meter.ts';
import { KubeClusterClient } from '../../shared/adapters/kubernetes/clusterClient.ts';
import { RegisteredClusterProvider, type ClusterConnection } from '../../shared/adapters/kubernetes/clusterProvider.ts';
import { KubeconfigClusterProvider } from '../../shared/adapters/kubernetes/kubeconfigProvider.ts';
import { KubeApiError, toKubeError } from '../../shared/adapters/kubernetes/kubeErrors.ts';
import { KubeTransport } from '../../shared/adapters/kubernetes/transport.ts';
import { watchPath, type WatchEventType } from '../../shared/adapters/kubernetes/watcher.ts';
import { deploymentManifest, mergePatch, startTestCluster, type TestCluster } from '../../bench/testbed/kube.ts';
import { waitFor } from '../../bench/testbed/wait.ts';
import { WORKLOAD_RESOURCES } from '../../shared/app/kubeResources.ts';

let cluster: TestCluster;
let ns: string;
let client: KubeClusterClient;

before(async () => {
  cluster = await startTestCluster();
  ns = await cluster.createNamespace('kube-client');
  client = new KubeClusterClient(cluster.rollouts);
});

after(async () => {
  await cluster?.stop();
});

const RFC3339_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

function rsRef(name: string): ObjectRef {
  return { apiVersion: 'apps/v1', kind: 'ReplicaSet', namespace: ns, name };
}

function replicaSet(name: string, labels: Record<string, string> = { app: name }): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name, namespace: ns, labels },
    spec: {
      replicas: 0,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'registry.invalid/app:v1' }] } },
    },
  };
}

/**
 * Creates a ReplicaSet (0 replicas) and waits until its controller has written status for it: from
 * then on nobody else writes it, so a resourceVersion read now stays current until we write.
 */
async function createSettled(name: string, labels?: Record<string, string>, via: KubeClusterClient = client): Promise<KubeObject> {
  await via.write({ verb: 'create', object: replicaSet(name, labels), reason: 'test' });
  return waitFor(async () => {
    const rs = await client.get(rsRef(name));
    return rs && rs.status?.observedGeneration === rs.metadata.generation ? rs : null;
  }, { message: `replicaset ${name} observed by its controller` });
}

/** Another writer (admin) changes the object, so any resourceVersion read before is now stale. */
async function bumpAsAdmin(name: string): Promise<void> {
  await cluster.admin.makeApiClient(AppsV1Api).patchNamespacedReplicaSet(
    { name, namespace: ns, body: { metadata: { annotations: { bumped: String(Date.now()) } } } },
    mergePatch,
  );
}

/** GET with node:https and the admin token: the apiserver's JSON with no client library in between. */
function rawGet(path: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const req = https.get(`${cluster.server}${path}`, { headers: { authorization: `Bearer ${cluster.adminToken}` }, rejectUnauthorized: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(text) as Record<string, unknown>) : reject(new Error(`${res.statusCode}: ${text}`))));
    });
    req.on('error', reject);
  });
}

describe('KubeClusterClient reads', () => {
  test('gets an object, and null when it does not exist', async () => {
    await client.write({ verb: 'create', object: replicaSet('get-me'), reason: 'test' });
    const found = await client.get(rsRef('get-me'));
    assert.equal(found?.metadata.name, 'get-me');
    assert.equal(found?.kind, 'ReplicaSet');
    assert.equal(await client.get(rsRef('no-such-rs')), null);
  });

  test('lists by label selector, with apiVersion and kind on every item', async () => {
    await client.write({ verb: 'create', object: replicaSet('sel-a', { app: 'sel', track: 'stable' }), reason: 'test' });
    await client.write({ verb: 'create', object: replicaSet('sel-b', { app: 'sel', track: 'canary' }), reason: 'test' });
    const canary = await client.list('apps/v1', 'ReplicaSet', ns, 'app=sel,track in (canary)');
    assert.deepEqual(canary.map((o) => [o.apiVersion, o.kind, o.metadata.name]), [['apps/v1', 'ReplicaSet', 'sel-b']]);
    const both = await client.list('apps/v1', 'ReplicaSet', ns, 'app=sel');
    assert.deepEqual(both.map((o) => o.metadata.name).sort(), ['sel-a', 'sel-b']);
  });

  test('lists the pods of a Deployment that the real controllers created', async () => {
    await cluster.createDeployment(ns, 'podlist', { replicas: 2 });
    const pods = await waitFor(async () => {
      const list = await client.list('v1', 'Pod', ns, 'app=podlist');
      return list.length === 2 ? list : null;
    }, { message: 'two pods of deployment podlist' });
    assert.ok(pods.every((p) => p.kind === 'Pod' && p.apiVersion === 'v1'));
  });

  test('returns timestamps and every other field exactly as the apiserver sent them', async () => {
    await cluster.createDeployment(ns, 'wire', { replicas: 1 });
    const path = `/apis/apps/v1/namespaces/${ns}/deployments/wire`;
    // Wait until the controller has written conditions, then compare one consistent version.
    const [ours, raw] = await waitFor(async () => {
      const mine = await client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'wire' });
      const theirs = await rawGet(path);
      const conditions = (mine?.status?.conditions as unknown[] | undefined) ?? [];
      const sameVersion = mine?.metadata.resourceVersion === (theirs.metadata as { resourceVersion?: string }).resourceVersion;
      return conditions.length > 0 && sameVersion ? ([mine, theirs] as const) : null;
    }, { message: 'deployment wire with conditions, read twice at one resourceVersion' });
    assert.deepEqual(ours, raw);
    assert.match(ours?.metadata.creationTimestamp ?? '', RFC3339_SECONDS);
    for (const c of ours?.status?.conditions as { lastTransitionTime: string; lastUpdateTime: string }[]) {
      assert.match(c.lastTransitionTime, RFC3339_SECONDS);
      assert.match(c.lastUpdateTime, RFC3339_SECONDS);
    }
  });
});

describe('KubeClusterClient writes', () => {
  test('creates a ReplicaSet and returns the stored object', async () => {
    const stored = await client.write({ verb: 'create', object: replicaSet('created'), reason: 'test' });
    assert.ok(stored?.metadata.uid);
    assert.ok(stored?.metadata.resourceVersion);
    assert.equal(stored?.spec?.replicas, 0);
  });

  test('refuses to create an existing object with ConflictError and an invalid one with ValidationError', async () => {
    await client.write({ verb: 'create', object: replicaSet('dup'), reason: 'test' });
    await assert.rejects(client.write({ verb: 'create', object: replicaSet('dup'), reason: 'test' }), ConflictError);
    const invalid = replicaSet('invalid');
    (invalid.spec as { selector: unknown }).selector = { matchLabels: { app: 'something-else' } };
    await assert.rejects(client.write({ verb: 'create', object: invalid, reason: 'test' }), (err: Error) => {
      assert.ok(err instanceof ValidationError);
      assert.match(err.message, /invalid/i);
      assert.ok(err.issues.length > 0);
      return true;
    });
  });

  test('merge-patches when the resourceVersion still matches', async () => {
    const rs = await createSettled('merge-ok');
    const patched = await client.write({
      verb: 'patch', ref: rsRef('merge-ok'), patchType: 'merge', reason: 'test',
      patch: { metadata: { annotations: { 'rollouts.example/batch': '1' } }, spec: { replicas: 1 } },
      resourceVersion: rs?.metadata.resourceVersion,
    });
    assert.equal(patched?.metadata.annotations?.['rollouts.example/batch'], '1');
    assert.equal(patched?.spec?.replicas, 1);
  });

  test('refuses a merge patch with ConflictError when another writer changed the object since it was read', async () => {
    const rs = await createSettled('merge-stale');
    await bumpAsAdmin('merge-stale');
    await assert.rejects(
      client.write({
        verb: 'patch', ref: rsRef('merge-stale'), patchType: 'merge', reason: 'test',
        patch: { spec: { replicas: 3 } }, resourceVersion: rs?.metadata.resourceVersion,
      }),
      ConflictError,
    );
    assert.equal((await client.get(rsRef('merge-stale')))?.spec?.replicas, 0, 'nothing was written');
  });

  test('a JSON patch that only tests metadata.generation stores nothing while it holds, and is refused as invalid once the spec changed (the drivers\' check before ReplicaSet moves)', async () => {
    const rs = await createSettled('guard');
    const check = { verb: 'patch' as const, ref: rsRef('guard'), patchType: 'json' as const, precondition: true, reason: 'check', patch: [{ op: 'test', path: '/metadata/generation', value: rs?.metadata.generation }] };
    const same = await client.write(check);
    assert.equal(same?.metadata.resourceVersion, rs?.metadata.resourceVersion, 'nothing stored: no new resourceVersion, no watch event');
    await bumpAsAdmin('guard'); // metadata only: the generation stays, the check still holds
    assert.equal((await client.write(check))?.metadata.generation, rs?.metadata.generation);
    await cluster.admin.makeApiClient(AppsV1Api).patchNamespacedReplicaSet({ name: 'guard', namespace: ns, body: { spec: { replicas: 2 } } }, mergePatch);
    await assert.rejects(client.write(check), ValidationError);
  });

  test('strategic-merge-patches one container of a Deployment by name, keeping the others', async () => {
    const manifest = deploymentManifest('smp', { replicas: 0, paused: true });
    manifest.spec?.template.spec?.containers.push({ name: 'sidecar', image: 'registry.invalid/sidecar:v1' });
    await cluster.admin.makeApiClient(AppsV1Api).createNamespacedDeployment({ namespace: ns, body: manifest });
    const ref: ObjectRef = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'smp' };
    const before = await waitFor(async () => {
      const d = await client.get(ref);
      return d && d.status?.observedGeneration === d.metadata.generation ? d : null;
    }, { message: 'deployment smp observed by its controller' });
    const patched = await client.write({
      verb: 'patch', ref, patchType: 'strategic', reason: 'test',
      patch: { spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'registry.invalid/sidecar:v2' }] } } } },
      resourceVersion: before?.metadata.resourceVersion,
    });
    const containers = (patched?.spec?.template as { spec: { containers: { name: string; image: string }[] } }).spec.containers;
    assert.deepEqual(containers.map((c) => [c.name, c.image]), [
      ['app', 'registry.invalid/app:v1'],
      ['sidecar', 'registry.invalid/sidecar:v2'],
    ]);
  });

  test('applies a JSON patch guarded by resourceVersion, and refuses it with ConflictError once stale', async () => {
    const rs = await createSettled('json');
    const ops = [{ op: 'replace', path: '/spec/replicas', value: 2 }];
    const patched = await client.write({
      verb: 'patch', ref: rsRef('json'), patchType: 'json', patch: ops, resourceVersion: rs?.metadata.resourceVersion, reason: 'test',
    });
    assert.equal(patched?.spec?.replicas, 2);
    await assert.rejects(
      client.write({ verb: 'patch', ref: rsRef('json'), patchType: 'json', patch: ops, resourceVersion: rs?.metadata.resourceVersion, reason: 'test' }),
      ConflictError,
    );
  });

  test('reads of a kind the cluster does not serve (Kruise not installed) fail as KindNotServedError naming it, not as a missing object', async () => {
    const unserved = new KubeClusterClient(cluster.rollouts, { resources: WORKLOAD_RESOURCES });
    await assert.rejects(unserved.get({ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', namespace: ns, name: 'web' }),
      (err: Error) => err instanceof KindNotServedError && /apps\.kruise\.io\/v1alpha1.*CloneSet.*does not serve this resource/.test(err.message));
  });

  test('reports a patch of a missing object as NotFoundError', async () => {
    await assert.rejects(
      client.write({ verb: 'patch', ref: rsRef('missing'), patchType: 'merge', patch: { spec: { replicas: 1 } }, reason: 'test' }),
      NotFoundError,
    );
  });

  test('deletes only at the expected resourceVersion (a pod, as OnDelete batches do)', async () => {
    const core = cluster.admin.makeApiClient(CoreV1Api);
    const body = { metadata: { name: 'doomed', labels: { app: 'doomed' } }, spec: { containers: [{ name: 'app', image: 'registry.invalid/app:v1' }] } };
    const created = await core.createNamespacedPod({ namespace: ns, body });
    const ref = { apiVersion: 'v1', kind: 'Pod', namespace: ns, name: 'doomed' };
    await core.patchNamespacedPod({ name: 'doomed', namespace: ns, body: { metadata: { annotations: { bumped: 'yes' } } } }, mergePatch);
    await assert.rejects(client.write({ verb: 'delete', ref, resourceVersion: created.metadata?.resourceVersion, reason: 'test' }), ConflictError);
    const [current] = await client.list('v1', 'Pod', ns, 'app=doomed');
    const answer = await client.write({ verb: 'delete', ref, resourceVersion: current?.metadata.resourceVersion, reason: 'test' });
    assert.ok(answer === null || answer.metadata.deletionTimestamp, 'deleted, or terminating (graceful deletion)');
  });

  test('maps verbs outside the rollouts role to ForbiddenError', async () => {
    await cluster.createDeployment(ns, 'not-ours', { replicas: 0 });
    await assert.rejects(
      client.write({ verb: 'delete', ref: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'not-ours' }, reason: 'test' }),
      ForbiddenError,
    );
    // Secrets are not a kind the client supports; a raw call shows the same mapping.
    const secrets = cluster.rollouts.makeApiClient(CoreV1Api).listNamespacedSecret({ namespace: ns });
    await assert.rejects(secrets.catch((err: unknown) => { throw toKubeError(err, 'list secrets'); }), ForbiddenError);
  });
});

describe('KubeClusterClient metering', () => {
  test('counts each request it sends, reads and writes apart, failures included', async () => {
    const meter = new Meter();
    const metered = new KubeClusterClient(cluster.rollouts, { meter });
    const rs = await createSettled('metered', undefined, metered); // write 1 (settling reads use another client)
    await metered.get(rsRef('metered')); // read 1
    await metered.get(rsRef('metered-missing')); // read 2 (404)
    await metered.list('apps/v1', 'ReplicaSet', ns, 'app=metered'); // read 3
    await metered.write({ verb: 'patch', ref: rsRef('metered'), patchType: 'merge', patch: { spec: { replicas: 1 } }, resourceVersion: rs?.metadata.resourceVersion, reason: 'test' }); // write 2
    await assert.rejects(metered.write({ verb: 'patch', ref: rsRef('metered'), patchType: 'merge', patch: { spec: { replicas: 2 } }, resourceVersion: rs?.metadata.resourceVersion, reason: 'test' })); // write 3 (409)
    await metered.write({ verb: 'patch', ref: rsRef('metered'), patchType: 'merge', patch: { spec: { replicas: 0 } }, reason: 'test' }); // write 4
    assert.equal(meter.get('k8s.read'), 3);
    assert.equal(meter.get('k8s.write'), 4);
  });
});

describe('KubeClusterClient watch', () => {
  test('delivers ADDED then MODIFIED events as wire JSON', async () => {
    const events: [WatchEventType, KubeObject][] = [];
    let ended: Error | null | undefined;
    const handle = await client.watch(
      `/apis/apps/v1/namespaces/${ns}/replicasets`,
      { labelSelector: 'watched=yes', allowWatchBookmarks: true },
      (type, object) => events.push([type, object]),
      (err) => (ended = err),
    );
    try {
      await client.write({ verb: 'create', object: replicaSet('watched', { app: 'watched', watched: 'yes' }), reason: 'test' });
      await client.write({ verb: 'patch', ref: rsRef('watched'), patchType: 'merge', patch: { spec: { replicas: 1 } }, reason: 'test' });
      await waitFor(() => events.some(([t, o]) => t === 'MODIFIED' && o.spec?.replicas === 1), { message: 'a MODIFIED event with replicas 1' });
    } finally {
      handle.stop();
    }
    const named = events.filter(([t]) => t !== 'BOOKMARK');
    assert.equal(named[0]?.[0], 'ADDED');
    assert.equal(named[0]?.[1].metadata.name, 'watched');
    assert.match(named[0]?.[1].metadata.creationTimestamp ?? '', RFC3339_SECONDS);
    assert.equal(ended, null, 'stop() ends the watch normally');
  });

  test('surfaces a too-old resourceVersion as GoneError so the caller relists', async () => {
    // A fresh cluster's watch caches still hold every event since resourceVersion 1, so "too old"
    // needs a cache that started later: that of a CRD registered now, which begins at the current
    // resourceVersion. The rollouts role may not read CRDs, so this one check watches as admin.
    const group = 'test.rollouts.dev';
    await cluster.admin.makeApiClient(ApiextensionsV1Api).createCustomResourceDefinition({
      body: {
        metadata: { name: `widgets.${group}` },
        spec: {
          group,
          scope: 'Namespaced',
          names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
          versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', x_kubernetes_preserve_unknown_fields: true } } }],
        },
      },
    });
    const watchFromOne = (): Promise<Error | null> =>
      new Promise((resolve, reject) => {
        watchPath(new KubeTransport(cluster.admin), `/apis/${group}/v1/namespaces/${ns}/widgets`, { resourceVersion: '1' }, () => undefined, resolve).catch(reject);
      });
    // Until the CRD is served the apiserver answers 404, and until its cache is ready 429: both
    // mean "not yet", not the answer we test.
    const ended = await waitFor(async () => {
      const err = await watchFromOne();
      return err instanceof KindNotServedError || (err instanceof KubeApiError && err.status === 429) ? null : { err };
    }, { message: 'a watch of the new CRD that is neither 404 (not served yet) nor 429 (cache not ready)' });
    assert.ok(ended.err instanceof GoneError, `expected GoneError, got ${String(ended.err)}`);
    assert.match(ended.err.message, /too old resource version/);
  });
});

describe('cluster providers against the control plane', () => {
  test('a static-endpoint registration with the rollouts token reaches the cluster', async () => {
    const provider = new RegisteredClusterProvider({
      registry: { getCluster: async (name) => ({ name, endpoint: { server: cluster.server, insecureSkipTlsVerify: true } }) },
      staticTokens: { local: cluster.rolloutsToken },
      cache: new Map<string, ClusterConnection>(),
      resources: [],
    });
    const c = await provider.client('local');
    assert.ok(Array.isArray(await c.list('apps/v1', 'ReplicaSet', ns, 'app=none')));
  });

  test('a rejected token surfaces as UnauthorizedError after one re-authentication', async () => {
    let reads = 0;
    const provider = new RegisteredClusterProvider({
      registry: {
        getCluster: async (name) => {
          reads += 1;
          return { name, endpoint: { server: cluster.server, insecureSkipTlsVerify: true } };
        },
      },
      staticTokens: { local: 'not-a-valid-token' },
      cache: new Map<string, ClusterConnection>(),
      resources: [],
    });
    const c = await provider.client('local');
    await assert.rejects(c.get(rsRef('anything')), UnauthorizedError);
    assert.equal(reads, 2, 'the registration was read again for the retry');
  });

  test('the kubeconfig provider serves any cluster name from the given kubeconfig', async () => {
    const provider = new KubeconfigClusterProvider({ path: cluster.kubeconfigPath('rollouts'), resources: [] });
    const c = await provider.client('whatever');
    assert.ok(Array.isArray(await c.list('apps/v1', 'ReplicaSet', ns, 'app=none')));
  });
});
