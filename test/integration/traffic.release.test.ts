// Issue 25 phase B acceptance: a release of a Deployment with `trafficRoutings` through a Gateway API
// HTTPRoute, moved only by `reconcile` as the product's least-privilege user, on the real control
// plane, with Traefik (scripts/build-dataplane.sh) routing real requests to the kwok pods
// (test/support/dataplane/). The shares, the header match, the abort under load and the hand-back
// are read from the proxy's answers and access log and from the cluster's objects.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AppsV1Api, CoreV1Api, CustomObjectsApi, type V1Deployment } from '@kubernetes/client-node';
import { Engine, Scenario, sleep } from '../../bench/testbed/engine.ts';
import { waitFor } from '../../bench/testbed/wait.ts';
import { parseRollout, ROLLOUTS_API_VERSION } from '../../shared/rollout/spec.ts';
import { DATA_PLANE_RANGES, REVISION_LABEL, servePods, type PodResponders } from '../support/dataplane/podResponders.ts';
import { sendRequests, sharePercent, type LoadResult } from '../support/dataplane/load.ts';
import { TRAEFIK_USER, startTraefik, type TraefikProxy } from '../support/dataplane/traefik.ts';

const REPLICAS = 10;
const REQUESTS = 2000;
const V1 = 'registry.invalid/web:v1';
const GW = { group: 'gateway.networking.k8s.io', version: 'v1', plural: 'httproutes' };
// Kruise's default grace. Traefik writes the route's status (our "pending" check) when its provider
// reads the route, then applies the new configuration at most every providersThrottleDuration (2 s by
// default, cmd/configuration.go of traefik/v3): a grace below that lets an abort remove canary pods the
// proxy still sends requests to (seen with 1 s: 502s on web-canary's backends).
const ROUTING = { service: 'web', gracePeriodSeconds: 3, gateway: { httpRouteName: 'web' } };
const HEADER = { headers: [{ name: 'x-canary', value: 'yes' }] };

describe('a traffic-routed release through a real proxy: weights per step, a header match, abort under load, the hand-back', () => {
  let engine: Engine;
  let namespace: string;
  let proxy: TraefikProxy;
  let pods: PodResponders;
  let s: Scenario;
  let userRoute: Record<string, unknown>;
  let userService: { metadata?: { annotations?: Record<string, string> }; spec?: Record<string, unknown> };
  let userDeployment: V1Deployment;

  const core = (): CoreV1Api => engine.cluster.admin.makeApiClient(CoreV1Api);
  const route = async (): Promise<{ metadata: { annotations?: Record<string, string> }; spec: Record<string, unknown> }> =>
    await engine.cluster.admin.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({ ...GW, namespace, name: 'web' }) as never;
  const service = async (name: string): Promise<{ metadata?: { annotations?: Record<string, string> }; spec?: Record<string, unknown> } | null> => {
    try {
      return await core().readNamespacedService({ namespace, name }) as never;
    } catch (error) {
      if ((error as { code?: number }).code === 404) return null;
      throw error;
    }
  };
  /** The pod-template-hash a Service selects. */
  const selects = async (name: string): Promise<string> => ((await service(name))?.spec?.selector as Record<string, string> | undefined)?.[REVISION_LABEL] ?? '';

  /** Stores the Rollout as `rollouts apply` would, at the next specVersion. */
  async function applyRollout(steps: unknown[]): Promise<void> {
    const doc = {
      apiVersion: ROLLOUTS_API_VERSION, kind: 'Rollout', metadata: { name: 'web', namespace },
      spec: {
        workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        strategy: { canary: { steps, trafficRoutings: [ROUTING] } },
      },
    };
    const previous = (await engine.store.load(s.key)).spec?.specVersion ?? 0;
    await engine.store.putSpec(s.key, parseRollout(doc, { cluster: 'test' }), doc, previous);
  }

  /**
   * The step at rest: the Deployment's N pods, none of them going, each Ready and served on its IP.
   * kwok removes a deleted pod at once (its pod-delete stage has no grace period), so a request the
   * proxy sends to a pod deleted a moment ago finds nothing listening and answers 502; a step's
   * share is measured once the batch's churn is over (requests during churn: the abort test).
   */
  async function atRest(): Promise<boolean> {
    const live = (await core().listNamespacedPod({ namespace })).items;
    const served = new Set(pods.serving().values());
    return live.length === REPLICAS && live.every((p) => !p.metadata?.deletionTimestamp &&
      (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True') && served.has(p.metadata?.name ?? ''));
  }

  /**
   * Waits until the step is at rest and the proxy serves what the cluster now says (a probe answers
   * 200 from `expected` only, within 3 points of `weight`), then sends `count` requests and counts them.
   */
  async function measure(count: number, expected: readonly string[], opts: { headers?: Record<string, string>; canary?: string; weight?: number } = {}): Promise<LoadResult> {
    const serves = (r: LoadResult): boolean => r.failures.size === 0 && r.transportErrors.length === 0 &&
      [...r.byRevision.keys()].sort().join() === [...expected].sort().join() &&
      (opts.weight === undefined || Math.abs(sharePercent(r, opts.canary ?? '') - opts.weight) <= 3);
    await waitFor(atRest, { message: `${REPLICAS} Ready pods in ${namespace}, none going, each served`, timeoutMs: 60_000, intervalMs: 200 });
    await waitFor(async () => serves(await sendRequests(proxy.url, opts.weight === undefined ? 20 : 100, { headers: opts.headers ?? {} })), {
      message: `the proxy to route to ${expected.join(', ')} (Traefik's log: ${proxy.daemon.logPath})`, timeoutMs: 60_000, intervalMs: 200,
    });
    const result = await sendRequests(proxy.url, count, { headers: opts.headers ?? {} });
    assert.deepEqual([...result.failures], [], 'every request answered 200');
    assert.deepEqual(result.transportErrors, []);
    return result;
  }

  async function assertHandedBack(): Promise<void> {
    const r = await route();
    assert.deepEqual(r.spec, userRoute.spec, 'the HTTPRoute\'s spec is the user\'s');
    assert.deepEqual(r.metadata.annotations, (userRoute.metadata as { annotations?: unknown }).annotations, 'no annotation of ours left on the route');
    const stable = await service('web');
    assert.deepEqual({ annotations: stable?.metadata?.annotations, spec: stable?.spec }, { annotations: userService.metadata?.annotations, spec: userService.spec }, 'Service web is the user\'s');
    assert.equal(await service('web-canary'), null, 'the canary Service is gone');
  }

  before(async () => {
    engine = await Engine.start({ extraUsers: [TRAEFIK_USER], podCidr: DATA_PLANE_RANGES['traffic.release'] });
    namespace = await engine.cluster.createNamespace('traffic');
    pods = await servePods(engine.cluster.admin, namespace);
    proxy = await startTraefik(engine.cluster, namespace);
    const apps = engine.cluster.admin.makeApiClient(AppsV1Api);
    userDeployment = await apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: 'web' },
        spec: {
          replicas: REPLICAS,
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: V1, ports: [{ containerPort: 8080 }] }] } },
        },
      },
    });
    s = new Scenario(engine, namespace);
    await s.waitForPods(V1, REPLICAS);
    await core().createNamespacedService({ namespace, body: { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] } } });
    await engine.cluster.admin.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
      ...GW, namespace,
      body: { apiVersion: `${GW.group}/${GW.version}`, kind: 'HTTPRoute', metadata: { name: 'web' }, spec: { parentRefs: [{ name: proxy.gateway }], rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] } },
    });
    userRoute = await route() as never;
    userService = (await service('web'))!;
    await applyRollout([{ replicas: 1, traffic: '10%' }, { replicas: '50%', traffic: '50%' }, { replicas: '100%' }]);
  });

  after(async () => {
    await proxy?.stop();
    await pods?.stop();
    await engine?.stop();
  });

  test(`[replicas 1, traffic 10%] → [50%, 50%] → 100%: ${REQUESTS} requests a step, the canary's share within 3 points of its weight, the user's routing back at the end`, async (t) => {
    const watcher = await s.watch();
    await s.reconcileUntil((x) => x.deployment.spec?.paused === true && x.state.phase === 'Healthy', 'the Deployment to be held');
    await s.setImage('registry.invalid/web:v2');
    await s.reconcileUntil((x) => x.state.release?.stepIndex === 0 && x.state.release.stepState === 'StepPaused', 'step 1 to be live and paused', 90_000);
    const stable = await selects('web');
    const canary = await selects('web-canary');
    assert.ok(stable && canary && stable !== canary, `Service web selects ${stable}, web-canary ${canary}`);
    for (const [step, weight] of [[0, 10], [1, 50]] as const) {
      if (step > 0) {
        await s.command({ type: 'approve' });
        await s.reconcileUntil((x) => x.state.release?.stepIndex === step && x.state.release.stepState === 'StepPaused', `step ${step + 1} to be live and paused`, 90_000);
      }
      const result = await measure(REQUESTS, [stable, canary], { canary, weight });
      const share = sharePercent(result, canary);
      t.diagnostic(`step ${step + 1}: canary share ${share.toFixed(2)}% of ${result.sent} requests (weight ${weight}%)`);
      assert.ok(Math.abs(share - weight) <= 3, `canary share ${share.toFixed(2)}% for weight ${weight}%`);
    }
    await s.command({ type: 'approve' });
    await s.reconcileUntil((x) => x.state.phase === 'Completed', 'the release to complete', 120_000);
    await assertHandedBack();
    await measure(200, [canary]);
    watcher.stop();
    watcher.assertClean();
  });

  test('a header match sends every request carrying it to the canary and none without; an abort under load meets no connection error at the proxy', async (t) => {
    await applyRollout([{ replicas: 1, matches: [HEADER] }, { replicas: '50%', traffic: '50%' }, { replicas: '100%' }]);
    await s.setImage('registry.invalid/web:v3');
    await s.reconcileUntil((x) => x.state.release?.stepIndex === 0 && x.state.release.stepState === 'StepPaused', 'the header step to be live', 90_000);
    const [stable, canary] = [await selects('web'), await selects('web-canary')];
    const withHeader = await measure(REQUESTS / 2, [canary], { headers: { 'x-canary': 'yes' } });
    assert.deepEqual([...withHeader.byRevision], [[canary, REQUESTS / 2]]);
    const without = await measure(REQUESTS / 2, [stable]);
    assert.deepEqual([...without.byRevision], [[stable, REQUESTS / 2]]);

    await s.command({ type: 'approve' });
    await s.reconcileUntil((x) => x.state.release?.stepIndex === 1 && x.state.release.stepState === 'StepPaused', 'the 50% step to be live', 90_000);
    await measure(200, [stable, canary], { canary, weight: 50 });
    const errorsBefore = proxy.connectionErrors().length;
    // Requests in flight for the whole abort, until the user's routing is back and the canary pods are gone.
    let sending = true;
    const totals = { sent: 0, failures: [] as [number, number][], transport: [] as string[] };
    const load = (async () => {
      while (sending) {
        const r = await sendRequests(proxy.url, 100);
        totals.sent += r.sent;
        totals.failures.push(...r.failures);
        totals.transport.push(...r.transportErrors);
      }
    })();
    await s.command({ type: 'abort' });
    await s.reconcileUntil((x) => x.state.phase === 'Aborted', 'the abort', 120_000);
    await sleep(2000);
    sending = false;
    await load;
    t.diagnostic(`${totals.sent} requests during the abort; ${proxy.connectionErrors().length - errorsBefore} connection errors at the proxy`);
    const errors = proxy.connectionErrors().slice(errorsBefore);
    const byBackend = new Map<string, number>();
    for (const e of errors) byBackend.set(`${String(e.ServiceName)} ${String(e.ServiceAddr)}`, (byBackend.get(`${String(e.ServiceName)} ${String(e.ServiceAddr)}`) ?? 0) + 1);
    assert.deepEqual([...byBackend], [], 'no request reached a pod that was gone');
    assert.deepEqual(totals.failures, []);
    assert.deepEqual(totals.transport, []);
    assert.ok(totals.sent >= 500, `requests kept flowing during the abort (${totals.sent})`);
    await assertHandedBack();
  });

  test('a Rollout deleted mid-release hands back the route, the Services and the Deployment exactly', async () => {
    await applyRollout([{ replicas: 1, traffic: '10%' }, { replicas: '100%' }]);
    await s.setImage('registry.invalid/web:v4');
    await s.reconcileUntil((x) => x.state.release?.stepIndex === 0 && x.state.release.stepState === 'StepPaused', 'step 1 to be live', 90_000);
    assert.notEqual(await service('web-canary'), null);
    await s.command({ type: 'delete' });
    await waitFor(async () => (await s.reconcile()).outcome === 'removed', { message: 'the rollout to be removed', timeoutMs: 60_000, intervalMs: 300 });
    await assertHandedBack();
    const d = await engine.cluster.admin.makeApiClient(AppsV1Api).readNamespacedDeployment({ namespace, name: 'web' });
    assert.deepEqual({ paused: d.spec?.paused ?? false, strategy: d.spec?.strategy, minReadySeconds: d.spec?.minReadySeconds, annotations: rolloutAnnotations(d) },
      { paused: false, strategy: userDeployment.spec?.strategy, minReadySeconds: userDeployment.spec?.minReadySeconds, annotations: {} }, 'the Deployment carries nothing of ours');
    assert.deepEqual(pods.problems, []);
  });
});

/** The annotations of ours (rollouts.kruise.io/original-*, rollouts.serverless-rollouts.io/*) on an object. */
function rolloutAnnotations(d: V1Deployment): Record<string, string> {
  return Object.fromEntries(Object.entries(d.metadata?.annotations ?? {}).filter(([k]) => k.startsWith('rollouts.')));
}
