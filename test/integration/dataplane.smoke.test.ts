// The real data plane: Traefik (a Gateway API implementation, scripts/build-dataplane.sh) routes real
// HTTP requests to the kwok pods of a Deployment caught between two revisions, through the Services
// and HTTPRoute our traffic providers write (shared/traffic), applied by the product's Kubernetes
// adapter as a user holding only the RBAC those providers declare. The shares, the header match and
// the restored route are read from the proxy's answers and the real cluster's objects.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AppsV1Api, CoreV1Api, CustomObjectsApi, DiscoveryV1Api, type V1PolicyRule, type V1ReplicaSet } from '@kubernetes/client-node';
import { KubeClusterClient } from '../../shared/adapters/kubernetes/clusterClient.ts';
import { tokenKubeConfig } from '../../shared/adapters/kubernetes/kubeConfigs.ts';
import type { KubeObject, ObjectRef } from '../../shared/kube/types.ts';
import type { StepTraffic, TrafficRouting } from '../../shared/rollout/trafficTypes.ts';
import { HTTP_ROUTE, gatewayProvider, routePending } from '../../shared/traffic/gateway/httpRoute.ts';
import { SERVICES_RBAC } from '../../shared/traffic/registry.ts';
import { canaryServiceWrites, narrowStableServiceWrites, removeCanaryServiceWrites, restoreStableServiceWrites, type RevisionSelector } from '../../shared/traffic/services.ts';
import { DATA_PLANE_RANGES, REVISION_LABEL, servePods, type PodResponders } from '../support/dataplane/podResponders.ts';
import { sendRequests, sharePercent, type LoadResult } from '../support/dataplane/load.ts';
import { TRAEFIK_USER, startTraefik, type TraefikProxy } from '../support/dataplane/traefik.ts';
import { mergePatch, startTestCluster, type TestCluster } from '../../bench/testbed/kube.ts';
import { grantClusterRole } from '../support/rbac.ts';
import { waitFor } from '../../bench/testbed/wait.ts';

/** The user our provider writes run as: only what the gateway provider and the Services declare. */
const PROVIDER_USER = { name: 'traffic-provider', groups: [] as string[] };
const STABLE_PODS = 10;
/** The Deployment's maxSurge: how many new-revision pods it creates beside the old ones before it stalls. */
const CANARY_PODS = 3;
const REQUESTS = 2000;

function rulesOf(access: readonly { apiGroup: string; resource: string; verbs: readonly string[] }[]): V1PolicyRule[] {
  return access.map((a) => ({ apiGroups: [a.apiGroup], resources: [a.resource], verbs: [...a.verbs] }));
}

describe('the data plane: Traefik routes real requests to kwok pods by weight and by header', () => {
  let cluster: TestCluster;
  let namespace: string;
  let proxy: TraefikProxy;
  let pods: PodResponders;
  let writer: KubeClusterClient;
  let revisions: RevisionSelector;
  let routing: TrafficRouting;
  let userRoute: KubeObject;
  let userService: KubeObject;

  const routeRef = (): ObjectRef => ({ apiVersion: HTTP_ROUTE.apiVersion, kind: HTTP_ROUTE.kind, namespace, name: 'web' });
  const serviceRef = (name: string): ObjectRef => ({ apiVersion: 'v1', kind: 'Service', namespace, name });

  /** Ready endpoints in a Service's EndpointSlices (the EndpointSlice controller's view of its pods). */
  async function readyEndpoints(service: string): Promise<number> {
    const slices = await cluster.admin.makeApiClient(DiscoveryV1Api).listNamespacedEndpointSlice({ namespace, labelSelector: `kubernetes.io/service-name=${service}` });
    return slices.items.flatMap((slice) => slice.endpoints ?? []).filter((e) => e.conditions?.ready).length;
  }

  /** One provider pass as the release engine will run it: read, plan, write; then a second pass finds nothing to write. */
  async function setTraffic(traffic: StepTraffic | null): Promise<KubeObject> {
    const read = async () => ({ objects: new Map([['web', await writer.get(routeRef())]]), stableService: await writer.get(serviceRef('web')) });
    for (const write of gatewayProvider.plan(await read(), routing, traffic).writes) await writer.write(write);
    assert.deepEqual(gatewayProvider.plan(await read(), routing, traffic).writes, [], 'converged on the object the apiserver stored (defaults included)');
    // Traefik accepts the route's new generation, then its proxy serves it.
    return waitFor(async () => {
      const route = await writer.get(routeRef());
      return route && routePending(route) === null ? route : null;
    }, { message: 'Traefik to accept the HTTPRoute\'s generation', timeoutMs: 60_000 });
  }

  /**
   * Waits until the proxy serves what was just written (a probe of 20 requests answers `expected`:
   * the revisions that must, and only those, answer), then sends `count` requests and counts them.
   */
  async function measure(count: number, expected: readonly string[], headers: Record<string, string> = {}, canaryWeight?: number): Promise<LoadResult> {
    const serves = (r: LoadResult): boolean => [...r.byRevision.keys()].sort().join() === [...expected].sort().join() &&
      // A weight change shows in a probe of 100 (Traefik's weighted round robin is deterministic).
      (canaryWeight === undefined || Math.abs(sharePercent(r, revisions.canary) - canaryWeight) <= 3);
    await waitFor(async () => serves(await sendRequests(proxy.url, canaryWeight === undefined ? 20 : 100, { headers })), {
      message: `the proxy to route to revision(s) ${expected.join(', ')} (Traefik's log: ${proxy.daemon.logPath})`, timeoutMs: 60_000, intervalMs: 200,
    });
    const result = await sendRequests(proxy.url, count, { headers });
    assert.deepEqual([...result.failures], [], 'every request answered 200');
    assert.deepEqual(result.transportErrors, []);
    return result;
  }

  before(async () => {
    cluster = await startTestCluster({ extraUsers: [TRAEFIK_USER, PROVIDER_USER], nodes: 3, podCidr: DATA_PLANE_RANGES['dataplane.smoke'] });
    namespace = await cluster.createNamespace('dataplane');
    await grantClusterRole(cluster.admin, {
      name: PROVIDER_USER.name, user: PROVIDER_USER.name,
      rules: rulesOf([...gatewayProvider.rbac.reconcile, ...SERVICES_RBAC.reconcile]),
    });
    const kc = tokenKubeConfig(PROVIDER_USER.name, { server: cluster.server, skipTLSVerify: true, token: cluster.extraTokens[PROVIDER_USER.name] ?? '' });
    writer = new KubeClusterClient(kc, { resources: [gatewayProvider.router, { apiVersion: 'v1', kind: 'Service', resource: 'services' }] });
    pods = await servePods(cluster.admin, namespace);
    proxy = await startTraefik(cluster, namespace);

    // The user's Deployment, then a new revision it cannot finish (the merge patch replaces the
    // containers list whole, ports included): with minReadySeconds an hour,
    // it surges CANARY_PODS new pods (Ready, never Available) beside the old ones and waits.
    const apps = cluster.admin.makeApiClient(AppsV1Api);
    await apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: 'web' },
        spec: {
          replicas: STABLE_PODS,
          selector: { matchLabels: { app: 'web' } },
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: CANARY_PODS, maxUnavailable: 0 } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'registry.invalid/web:v1', ports: [{ containerPort: 8080 }] }] } },
        },
      },
    });
    await waitFor(async () => (await apps.readNamespacedDeployment({ namespace, name: 'web' })).status?.availableReplicas === STABLE_PODS, { message: `${STABLE_PODS} pods of v1 available` });
    await apps.patchNamespacedDeployment({ namespace, name: 'web', body: { spec: { minReadySeconds: 3600, progressDeadlineSeconds: 7200, template: { spec: { containers: [{ name: 'app', image: 'registry.invalid/web:v2', ports: [{ containerPort: 8080 }] }] } } } } }, mergePatch);
    const revision = (n: string) => (rs: V1ReplicaSet): boolean => rs.metadata?.annotations?.['deployment.kubernetes.io/revision'] === n;
    const [v1, v2] = await waitFor(async () => {
      const sets = await cluster.listReplicaSets(namespace, { app: 'web' });
      const [old, next] = [sets.find(revision('1')), sets.find(revision('2'))];
      return old?.status?.readyReplicas === STABLE_PODS && next?.status?.readyReplicas === CANARY_PODS ? [old, next] : null;
    }, { message: `${CANARY_PODS} Ready pods of v2 beside the ${STABLE_PODS} of v1` });
    revisions = { label: REVISION_LABEL, stable: v1?.metadata?.labels?.[REVISION_LABEL] ?? '', canary: v2?.metadata?.labels?.[REVISION_LABEL] ?? '' };

    // The user's Service and HTTPRoute, as they had them before any release.
    await cluster.admin.makeApiClient(CoreV1Api).createNamespacedService({ namespace, body: { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] } } });
    await cluster.admin.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
      group: 'gateway.networking.k8s.io', version: 'v1', namespace, plural: 'httproutes',
      body: { apiVersion: HTTP_ROUTE.apiVersion, kind: HTTP_ROUTE.kind, metadata: { name: 'web' }, spec: { parentRefs: [{ name: proxy.gateway }], rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] } },
    });
    userService = await writer.get(serviceRef('web')) as KubeObject;
    userRoute = await writer.get(routeRef()) as KubeObject;
    routing = { service: 'web', gracePeriodSeconds: 0, provider: { type: 'gateway', httpRouteName: 'web' } };
  });

  after(async () => {
    await proxy?.stop();
    await pods?.stop();
    await cluster?.stop();
  });

  test('before any routing change, the user\'s route sends requests to pods of both revisions, through their EndpointSlice', async () => {
    await waitFor(async () => (await readyEndpoints('web')) === STABLE_PODS + CANARY_PODS, { message: `${STABLE_PODS + CANARY_PODS} ready endpoints in Service web's EndpointSlices` });
    const result = await measure(200, [revisions.stable, revisions.canary]);
    assert.equal(result.byPod.size, STABLE_PODS + CANARY_PODS, 'every Ready pod answered: the proxy balances over the EndpointSlice');
  });

  test('the Services our provider writes split the pods by revision: web selects only v1, web-canary only v2', async () => {
    const stable = await writer.get(serviceRef('web')) as KubeObject;
    for (const write of narrowStableServiceWrites(stable, revisions)) await writer.write(write);
    for (const write of canaryServiceWrites(await writer.get(serviceRef('web')) as KubeObject, await writer.get(serviceRef('web-canary')), routing, revisions, null)) await writer.write(write);
    await waitFor(async () => (await readyEndpoints('web')) === STABLE_PODS && (await readyEndpoints('web-canary')) === CANARY_PODS, { message: 'EndpointSlices of web (v1) and web-canary (v2)' });
    const result = await measure(200, [revisions.stable]);
    assert.deepEqual([...result.byRevision.keys()], [revisions.stable], 'the user\'s route, now on the narrowed Service, reaches v1 only');
  });

  for (const weight of [10, 50]) {
    test(`a ${weight}% step: ${REQUESTS} requests through the proxy, the canary's share within 3 points of ${weight}%`, async (t) => {
      const route = await setTraffic({ weight, matches: [], requestHeaderModifier: null });
      assert.deepEqual((route.spec?.rules as { backendRefs: unknown[] }[])[0]?.backendRefs, [
        { group: '', kind: 'Service', name: 'web', port: 80, weight: 100 - weight },
        { group: '', kind: 'Service', name: 'web-canary', port: 80, weight },
      ]);
      const result = await measure(REQUESTS, [revisions.stable, revisions.canary], {}, weight);
      const share = sharePercent(result, revisions.canary);
      t.diagnostic(`canary share ${share.toFixed(2)}% of ${result.sent} requests (weight ${weight}%)`);
      assert.ok(Math.abs(share - weight) <= 3, `canary share ${share.toFixed(2)}% for weight ${weight}% (${JSON.stringify([...result.byRevision])})`);
      assert.equal([...result.byPod.keys()].length, STABLE_PODS + CANARY_PODS, 'both Services\' pods all answered');
    });
  }

  test('a header match sends every request carrying it to the canary, and none without it', async () => {
    await setTraffic({ weight: null, matches: [{ headers: [{ type: 'Exact', name: 'x-canary', value: 'yes' }], queryParams: [] }], requestHeaderModifier: null });
    const withHeader = await measure(REQUESTS / 2, [revisions.canary], { 'x-canary': 'yes' });
    assert.deepEqual([...withHeader.byRevision], [[revisions.canary, REQUESTS / 2]]);
    const without = await measure(REQUESTS / 2, [revisions.stable]);
    assert.deepEqual([...without.byRevision], [[revisions.stable, REQUESTS / 2]]);
  });

  test('the original routing puts the user\'s route and Service back exactly, and removes the canary Service', async () => {
    const route = await setTraffic(null);
    assert.deepEqual(route.spec, userRoute.spec);
    assert.deepEqual(route.metadata.annotations, userRoute.metadata.annotations);
    for (const write of restoreStableServiceWrites(await writer.get(serviceRef('web')) as KubeObject, REVISION_LABEL)) await writer.write(write);
    for (const write of removeCanaryServiceWrites(await writer.get(serviceRef('web-canary')))) await writer.write(write);
    const service = await writer.get(serviceRef('web')) as KubeObject;
    assert.deepEqual({ annotations: service.metadata.annotations, spec: service.spec }, { annotations: userService.metadata.annotations, spec: userService.spec });
    assert.equal(await writer.get(serviceRef('web-canary')), null);
    const result = await measure(400, [revisions.stable, revisions.canary]);
    assert.deepEqual(new Set(result.byRevision.keys()), new Set([revisions.stable, revisions.canary]), 'both revisions again, as before the release');
  });

  test('no request met a refused or cut connection at the proxy, and every pod was served on its own IP', (t) => {
    t.diagnostic(`${proxy.accessLog().length} requests proxied, ${proxy.connectionErrors().length} connection errors`);
    assert.deepEqual(proxy.connectionErrors(), []);
    assert.ok(proxy.accessLog().length >= 2 * REQUESTS + REQUESTS, `the access log holds every proxied request (${proxy.accessLog().length})`);
    assert.deepEqual(pods.problems, []);
    assert.equal(pods.serving().size, STABLE_PODS + CANARY_PODS);
  });
});
