// The deployed API's workload route (`rollouts get`'s revision → ReplicaSet → pods tree) on real
// components: the production API handler over the API function's own composition root
// (buildApiDeps: the lazily loaded cluster provider) on dynalite and the AWS emulator, behind a
// SigV4-verifying Function URL, against the real local control plane. The provider authenticates as
// a user bound ONLY to the read-only group `serverless-rollouts-view` of infra/k8s/rollouts-rbac.yaml
// (what the API role's access entries map to), and the apiserver's audit log shows what it asked for.
// A routed Rollout's router and Services are read by the same identity (the dashboard's traffic).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AppsV1Api, AuthorizationV1Api, CoreV1Api, KubeConfig, NetworkingV1Api, type V1StatefulSet } from '@kubernetes/client-node';
import { createApiHandler } from '../../functions/api/createHandler.ts';
import { KUBERNETES_VIEW_GROUP } from '../../infra/constructs/ClusterAccess.ts';
import type { WorkloadResponse } from '../../shared/api/workloadRoutes.ts';
import { buildApiDeps } from '../../shared/app/apiDeps.ts';
import type { CoreDeps } from '../../shared/app/coreDeps.ts';
import { LazyClusterProvider } from '../../shared/app/lazyClusterProvider.ts';
import { ForbiddenError } from '../../shared/errors.ts';
import { startAwsEmulator, type AwsEmulator } from '../support/aws/emulator.ts';
import { startFunctionUrl, type Caller, type FunctionUrlServer } from '../support/aws/functionUrl.ts';
import { signedFetch, type SignedFetchInit } from '../support/aws/sigv4.ts';
import { startDynalite, type DynaliteHarness } from '../../bench/testbed/dynalite.ts';
import { testObservability } from '../support/fakes/observability.ts';
import { startTestCluster, type TestCluster } from '../../bench/testbed/kube.ts';
import { waitFor } from '../../bench/testbed/wait.ts';
import { productRbac } from '../../shared/traffic/rbac.ts';
import { trafficKey } from '../../shared/rollout/trafficTypes.ts';

const CLUSTER = 'local';
const VIEW_USER = 'rollouts-api';
const caller: Caller = { accessKeyId: 'AKIDWORKLOADTEST', secretAccessKey: 'workload-test-secret', userArn: 'arn:aws:iam::123456789012:user/release-bot' };
const RBAC = productRbac();
/** Everything the write role (serverless-rollouts) may do, as [apiGroup, resource, subresource, verb]. */
const WRITE_ROLE_VERBS: [string, string, string, string][] = RBAC.reconcile.flatMap((a) => a.verbs.map((v): [string, string, string, string] => [a.apiGroup, a.resource, '', v]));
/** What the read-only role may do of those. */
const VIEW_GRANTS = new Set(RBAC.view.flatMap((a) => a.verbs.map((v) => `${v} ${a.apiGroup}/${a.resource}`)));

let aws: AwsEmulator;
let dynamo: DynaliteHarness;
let cluster: TestCluster;
let deps: CoreDeps;
let url: FunctionUrlServer;
let viewer: KubeConfig;
let namespace: string;
/** Audit events before this index are set-up (probes), not the route's reads. */
let auditMark = 0;

function call(init: Omit<SignedFetchInit, 'credentials' | 'region'>) {
  return signedFetch(url.url, { ...init, credentials: caller, region: aws.region });
}

function rolloutDoc(name: string, kind: 'Deployment' | 'StatefulSet') {
  return {
    apiVersion: 'rollouts.kruise.io/v1beta1', kind: 'Rollout', metadata: { name },
    spec: { workloadRef: { apiVersion: 'apps/v1', kind, name }, strategy: { canary: { steps: [{ replicas: 1, pause: {} }, { replicas: '100%' }] } } },
  };
}

/** SelfSubjectAccessReview as the view-only user: may it do this in our namespace? */
async function viewerMay(group: string, resource: string, subresource: string, verb: string): Promise<boolean> {
  const review = await viewer.makeApiClient(AuthorizationV1Api).createSelfSubjectAccessReview({
    body: { spec: { resourceAttributes: { namespace, group, resource, subresource, verb } } },
  });
  return review.status?.allowed === true;
}

async function podNames(selector: string): Promise<string[]> {
  const pods = await cluster.admin.makeApiClient(CoreV1Api).listNamespacedPod({ namespace, labelSelector: selector });
  return pods.items.map((p) => p.metadata?.name ?? '').sort();
}

before(async () => {
  [aws, dynamo, cluster] = await Promise.all([
    startAwsEmulator(),
    startDynalite(),
    startTestCluster({
      podReadyDelayMs: 200,
      extraUsers: [{ name: VIEW_USER, groups: [KUBERNETES_VIEW_GROUP] }],
      auditLog: true,
      auditRules: [{ level: 'Metadata', users: [VIEW_USER] }],
    }),
  ]);
  const token = cluster.extraTokens[VIEW_USER] as string;
  deps = buildApiDeps(aws.config(dynamo.tableName), {
    clients: { dynamodb: dynamo.client, sqs: aws.sqs },
    // The local control plane is a static-endpoint registration; its token is the view-only user's.
    clusterOptions: { staticTokens: { [CLUSTER]: token }, cache: new Map() },
  });
  url = await startFunctionUrl(createApiHandler(deps, testObservability()), { callers: [caller], region: aws.region });
  viewer = new KubeConfig();
  viewer.loadFromOptions({
    clusters: [{ name: 'testplane', server: cluster.server, skipTLSVerify: true }],
    users: [{ name: VIEW_USER, token }],
    contexts: [{ name: 'view', cluster: 'testplane', user: VIEW_USER }],
    currentContext: 'view',
  });

  namespace = await cluster.createNamespace('workload');
  await cluster.createDeployment(namespace, 'web', { replicas: 3, image: 'registry.invalid/web:v1' });
  const labels = { app: 'db' };
  const statefulSet: V1StatefulSet = {
    apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db', labels },
    spec: { replicas: 2, serviceName: 'db', selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'registry.invalid/db:v1' }] } } },
  };
  const apps = cluster.admin.makeApiClient(AppsV1Api);
  await apps.createNamespacedStatefulSet({ namespace, body: statefulSet });
  // A routed one: its Service and an ingress-nginx Ingress, as the user has them.
  await cluster.createDeployment(namespace, 'shop', { replicas: 2, image: 'registry.invalid/shop:v1' });
  await cluster.admin.makeApiClient(CoreV1Api).createNamespacedService({ namespace, body: { metadata: { name: 'shop' }, spec: { selector: { app: 'shop' }, ports: [{ port: 80 }] } } });
  await cluster.admin.makeApiClient(NetworkingV1Api).createNamespacedIngress({ namespace, body: {
    metadata: { name: 'shop' },
    spec: { ingressClassName: 'nginx', rules: [{ http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'shop', port: { number: 80 } } } }] } }] },
  } });
  await waitFor(async () => (await apps.readNamespacedDeployment({ name: 'web', namespace })).status?.readyReplicas === 3, { message: 'deployment web ready' });
  await waitFor(async () => (await apps.readNamespacedStatefulSet({ name: 'db', namespace })).status?.readyReplicas === 2, { message: 'statefulset db ready' });
  // The view binding is created with the rest of rollouts-rbac.yaml; wait until the authorizer has it.
  await waitFor(() => viewerMay('', 'pods', '', 'list'), { message: 'RBAC for the view-only user' });
  auditMark = cluster.auditEvents().length;
});

after(async () => {
  await Promise.allSettled([url?.stop(), aws?.stop(), dynamo?.stop(), cluster?.stop()]);
});

describe('the deployed API serves the workload tree with a view-only identity', () => {
  test('registering the cluster does not load the Kubernetes client; applying a Deployment\'s rollout does, to read its strategy', async () => {
    const reg = await call({ method: 'PUT', path: `/v1/clusters/${CLUSTER}`, body: JSON.stringify({ endpoint: { server: cluster.server, insecureSkipTlsVerify: true } }) });
    assert.equal(reg.status, 201, reg.text);
    assert.ok(deps.api.clusters instanceof LazyClusterProvider);
    const put = (name: string, kind: 'Deployment' | 'StatefulSet') => call({ method: 'PUT', path: `/v1/rollouts/${CLUSTER}/${namespace}/${name}`, body: JSON.stringify(rolloutDoc(name, kind)) });
    assert.equal((await put('db', 'StatefulSet')).status, 201);
    assert.equal(deps.api.clusters.started, false, 'a StatefulSet has nothing to check at apply');
    const web = await put('web', 'Deployment');
    assert.equal(web.status, 201, web.text);
    assert.equal(deps.api.clusters.started, true, 'a Deployment on Recreate is refused at apply: the API reads it (view-only)');
  });

  test('GET .../workload of a Deployment answers its ReplicaSet with the real pods', async () => {
    const res = await call({ method: 'GET', path: `/v1/rollouts/${CLUSTER}/${namespace}/web/workload` });
    assert.equal(res.status, 200, res.text);
    const body = res.json as unknown as WorkloadResponse;
    assert.deepEqual([body.kind, body.name, body.replicas, body.revisions.length], ['Deployment', 'web', 3, 1]);
    const [revision] = body.revisions;
    const replicaSets = await cluster.listReplicaSets(namespace, { app: 'web' });
    assert.deepEqual([revision?.holder, revision?.images, revision?.desired, revision?.ready], [replicaSets[0]?.metadata?.name, { app: 'registry.invalid/web:v1' }, 3, 3]);
    assert.deepEqual(revision?.pods.map((p) => p.name).sort(), await podNames('app=web'));
    assert.ok(revision?.pods.every((p) => p.ready && p.phase === 'Running'), res.text);
  });

  test('GET .../workload of a StatefulSet answers its ControllerRevision with the real pods', async () => {
    const res = await call({ method: 'GET', path: `/v1/rollouts/${CLUSTER}/${namespace}/db/workload` });
    assert.equal(res.status, 200, res.text);
    const body = res.json as unknown as WorkloadResponse;
    assert.deepEqual([body.kind, body.name, body.replicas, body.revisions.length], ['StatefulSet', 'db', 2, 1]);
    assert.deepEqual(body.revisions[0]?.pods.map((p) => `${p.name}:${p.ready}`), ['db-0:true', 'db-1:true']);
  });

  test('GET .../workload of a routed Rollout reads its Ingress and Services: the router carries the original routing', async () => {
    const doc = rolloutDoc('shop', 'Deployment');
    doc.spec.strategy.canary = { steps: [{ replicas: 1, traffic: '20%', pause: {} }, { replicas: '100%' }], trafficRoutings: [{ service: 'shop', ingress: { name: 'shop' } }] } as never;
    const put = await call({ method: 'PUT', path: `/v1/rollouts/${CLUSTER}/${namespace}/shop`, body: JSON.stringify(doc) });
    assert.equal(put.status, 201, put.text);
    const res = await call({ method: 'GET', path: `/v1/rollouts/${CLUSTER}/${namespace}/shop/workload` });
    assert.equal(res.status, 200, res.text);
    const body = res.json as unknown as WorkloadResponse;
    assert.equal(body.traffic?.error, null, res.text);
    assert.deepEqual([body.traffic?.view?.router, body.traffic?.view?.converged, body.traffic?.view?.problem], ['ingress/shop', [trafficKey(null)], null]);
  });

  test('the apiserver served those reads as get and list within serverless-rollouts-view, none refused', () => {
    const events = cluster.auditEvents().slice(auditMark).filter((e) => e.user.username === VIEW_USER);
    assert.ok(events.length > 0, 'no audited request of the view-only user');
    // Before a release the routed Rollout's shop-canary Service and Ingress do not exist: 404, not a refusal.
    const absentCanary = (e: (typeof events)[number]) => e.responseStatus?.code === 404 && e.verb === 'get' && e.objectRef?.name === 'shop-canary';
    assert.deepEqual(events.filter((e) => e.responseStatus?.code !== 200 && !absentCanary(e)).map((e) => `${e.verb} ${e.requestURI} → ${e.responseStatus?.code}`), []);
    const used = [...new Set(events.map((e) => `${e.verb} ${e.objectRef?.apiGroup ?? ''}/${e.objectRef?.resource ?? ''}`))].sort();
    assert.deepEqual(used, [
      'get /services', 'get apps/deployments', 'get apps/statefulsets', 'get networking.k8s.io/ingresses',
      'list /pods', 'list apps/controllerrevisions', 'list apps/replicasets',
    ]);
  });

  test('the view-only identity may get and list exactly what the view role grants, and nothing else the write role may do', async () => {
    const decisions = await Promise.all(WRITE_ROLE_VERBS.map(async ([group, resource, sub, verb]) =>
      [`${verb} ${group}/${resource}${sub ? `/${sub}` : ''}`, await viewerMay(group, resource, sub, verb)] as const));
    const allowed = decisions.filter(([, ok]) => ok).map(([what]) => what).sort();
    const expected = WRITE_ROLE_VERBS.map(([g, r, , v]) => `${v} ${g}/${r}`).filter((what) => VIEW_GRANTS.has(what)).sort();
    assert.deepEqual(allowed, expected);
    assert.ok(!(await viewerMay('', 'secrets', '', 'get')), 'secrets');
  });

  test('a patch through the API\'s own cluster client is refused by Kubernetes (403) and changes nothing', async () => {
    const client = await (deps.api.clusters as LazyClusterProvider).client(CLUSTER);
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'web' };
    await assert.rejects(client.write({ verb: 'patch', ref, patchType: 'merge', patch: { spec: { paused: true } }, reason: 'must be refused' }), ForbiddenError);
    await assert.rejects(client.write({ verb: 'delete', ref: { apiVersion: 'v1', kind: 'Pod', namespace, name: 'db-0' }, reason: 'must be refused' }), ForbiddenError);
    const web = await cluster.admin.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: 'web', namespace });
    assert.notEqual(web.spec?.paused, true);
  });
});
