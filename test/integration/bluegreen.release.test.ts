// Issue 25: a blue-green release of a Deployment (`strategy.blueGreen`, shared/rollout/blueGreen.ts and
// shared/workloads/deployment/blueGreenPace.ts), moved only by `reconcile` as the product's
// least-privilege user, on the real control plane (kube-apiserver, kube-controller-manager, kwok),
// with Traefik routing real requests to the pods through a Gateway API HTTPRoute
// (test/support/dataplane/). The user's story: the new revision comes up beside the old one and
// takes no request at 0 %, half of them at 50 %; at the end every request goes to it while the old
// revision still stands whole, and the old one goes scaleDownDelaySeconds later. And an abort after
// the new revision took traffic: the requests back on the old pods first, then the new pods gone,
// the Deployment as before. Requests flow through the end and the abort; none may fail.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AppsV1Api, CoreV1Api, CustomObjectsApi, type V1Deployment } from '@kubernetes/client-node';
import { Engine, Scenario, sleep, type Snapshot } from '../../bench/testbed/engine.ts';
import { waitFor } from '../../bench/testbed/wait.ts';
import { parseRollout, ROLLOUTS_API_VERSION } from '../../shared/rollout/spec.ts';
import { DATA_PLANE_RANGES, REVISION_LABEL, servePods, type PodResponders } from '../support/dataplane/podResponders.ts';
import { sendRequests, sharePercent, type LoadResult } from '../support/dataplane/load.ts';
import { TRAEFIK_USER, startTraefik, type TraefikProxy } from '../support/dataplane/traefik.ts';

const REPLICAS = 6;
const REQUESTS = 1000;
const DELAY_SECONDS = 5;
const V1 = 'registry.invalid/web:v1';
const V2 = 'registry.invalid/web:v2';
const V3 = 'registry.invalid/web:v3';
const GW = { group: 'gateway.networking.k8s.io', version: 'v1', plural: 'httproutes' };
// Kruise's default grace, above Traefik's 2 s providersThrottleDuration (traffic.release.test.ts says why).
const ROUTING = { service: 'web', gracePeriodSeconds: 3, gateway: { httpRouteName: 'web' } };

describe('a blue-green release through a real proxy: the new revision beside the old, the switch, the delayed scale-down, an abort', () => {
  let engine: Engine;
  let namespace: string;
  let proxy: TraefikProxy;
  let pods: PodResponders;
  let s: Scenario;
  let userRoute: { metadata: { annotations?: Record<string, string> }; spec: Record<string, unknown> };
  let userService: { metadata?: { annotations?: Record<string, string> }; spec?: Record<string, unknown> };
  let userDeployment: V1Deployment;

  const core = (): CoreV1Api => engine.cluster.admin.makeApiClient(CoreV1Api);
  const apps = (): AppsV1Api => engine.cluster.admin.makeApiClient(AppsV1Api);
  const route = async (): Promise<typeof userRoute> =>
    await engine.cluster.admin.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({ ...GW, namespace, name: 'web' }) as never;
  const service = async (name: string): Promise<typeof userService | null> => {
    try {
      return await core().readNamespacedService({ namespace, name }) as never;
    } catch (error) {
      if ((error as { code?: number }).code === 404) return null;
      throw error;
    }
  };
  const selects = async (name: string): Promise<string> => ((await service(name))?.spec?.selector as Record<string, string> | undefined)?.[REVISION_LABEL] ?? '';
  const ready = (x: Snapshot, image: string): number => x.pods[image]?.ready ?? 0;

  async function applyRollout(steps: unknown[]): Promise<void> {
    const doc = {
      apiVersion: ROLLOUTS_API_VERSION, kind: 'Rollout', metadata: { name: 'web', namespace },
      spec: {
        workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        strategy: { blueGreen: { steps, trafficRoutings: [ROUTING], scaleDownDelaySeconds: DELAY_SECONDS } },
      },
    };
    const previous = (await engine.store.load(s.key)).spec?.specVersion ?? 0;
    await engine.store.putSpec(s.key, parseRollout(doc, { cluster: 'test' }), doc, previous);
  }

  /** `count` live pods, none going, each Ready and served on its IP (kwok removes a deleted pod at once). */
  async function atRest(count: number): Promise<boolean> {
    const live = (await core().listNamespacedPod({ namespace })).items;
    const served = new Set(pods.serving().values());
    return live.length === count && live.every((p) => !p.metadata?.deletionTimestamp &&
      (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True') && served.has(p.metadata?.name ?? ''));
  }

  /** Once `pods` are at rest and the proxy serves `expected` (the canary within 3 points of `weight`), `count` requests. */
  async function measure(count: number, live: number, expected: readonly string[], opts: { canary?: string; weight?: number } = {}): Promise<LoadResult> {
    const serves = (r: LoadResult): boolean => r.failures.size === 0 && r.transportErrors.length === 0 &&
      [...r.byRevision.keys()].sort().join() === [...expected].sort().join() &&
      (opts.weight === undefined || Math.abs(sharePercent(r, opts.canary ?? '') - opts.weight) <= 3);
    await waitFor(() => atRest(live), { message: `${live} Ready pods in ${namespace}, none going, each served`, timeoutMs: 60_000, intervalMs: 200 });
    await waitFor(async () => serves(await sendRequests(proxy.url, opts.weight === undefined ? 20 : 100)), {
      message: `the proxy to route to ${expected.join(', ')} (Traefik's log: ${proxy.daemon.logPath})`, timeoutMs: 60_000, intervalMs: 200,
    });
    const result = await sendRequests(proxy.url, count);
    assert.deepEqual([...result.failures], [], 'every request answered 200');
    assert.deepEqual(result.transportErrors, []);
    return result;
  }

  /** Requests without a break until stopped: what the end of a release or an abort must answer, every one. */
  function underLoad(): { stop: () => Promise<{ sent: number; failures: [number, number][]; transport: string[]; byRevision: Map<string, number> }> } {
    let sending = true;
    const totals = { sent: 0, failures: [] as [number, number][], transport: [] as string[], byRevision: new Map<string, number>() };
    const loop = (async () => {
      while (sending) {
        const r = await sendRequests(proxy.url, 50);
        totals.sent += r.sent;
        totals.failures.push(...r.failures);
        totals.transport.push(...r.transportErrors);
        for (const [rev, n] of r.byRevision) totals.byRevision.set(rev, (totals.byRevision.get(rev) ?? 0) + n);
      }
    })();
    return { stop: async () => { sending = false; await loop; return totals; } };
  }

  async function assertRoutingHandedBack(): Promise<void> {
    const r = await route();
    assert.deepEqual(r.spec, userRoute.spec, 'the HTTPRoute\'s spec is the user\'s');
    assert.deepEqual(r.metadata.annotations, userRoute.metadata.annotations, 'no annotation of ours left on the route');
    const stable = await service('web');
    assert.deepEqual({ annotations: stable?.metadata?.annotations, spec: stable?.spec }, { annotations: userService.metadata?.annotations, spec: userService.spec }, 'Service web is the user\'s');
    assert.equal(await service('web-canary'), null, 'the canary Service is gone');
  }

  /** The Deployment carries the user's fields and nothing of ours; held (paused) at rest, as before the release. */
  async function assertDeploymentAsBefore(image: string): Promise<void> {
    const d = await apps().readNamespacedDeployment({ namespace, name: 'web' });
    assert.deepEqual(
      { strategy: d.spec?.strategy, minReadySeconds: d.spec?.minReadySeconds, progressDeadlineSeconds: d.spec?.progressDeadlineSeconds, annotations: rolloutAnnotations(d), paused: d.spec?.paused, image: d.spec?.template.spec?.containers[0]?.image },
      { strategy: userDeployment.spec?.strategy, minReadySeconds: userDeployment.spec?.minReadySeconds, progressDeadlineSeconds: userDeployment.spec?.progressDeadlineSeconds, annotations: {}, paused: true, image },
    );
  }

  before(async () => {
    engine = await Engine.start({ extraUsers: [TRAEFIK_USER], podCidr: DATA_PLANE_RANGES['bluegreen.release'] });
    namespace = await engine.cluster.createNamespace('bluegreen');
    pods = await servePods(engine.cluster.admin, namespace);
    proxy = await startTraefik(engine.cluster, namespace);
    userDeployment = await apps().createNamespacedDeployment({
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
    userRoute = await route();
    userService = (await service('web'))!;
    // Kruise's own blue-green fixture (examples/kruise/bluegreen.yaml), with our scaleDownDelaySeconds.
    await applyRollout([{ replicas: '50%', traffic: '0%' }, { replicas: '100%', traffic: '0%' }, { replicas: '100%', traffic: '50%' }, { replicas: '100%', traffic: '100%' }]);
  });

  after(async () => {
    await proxy?.stop();
    await pods?.stop();
    await engine?.stop();
  });

  test('the new revision comes up beside the old, takes requests as the steps say, all of them at the end, and the old one goes scaleDownDelaySeconds after the switch', async (t) => {
    // The blue-green contract on the cluster: never more than 2N pods asked for, never fewer than N Available.
    const watcher = await s.watch({ user: { maxSurge: '100%', maxUnavailable: 0, minReadySeconds: 0 } });
    await s.reconcileUntil((x) => x.deployment.spec?.paused === true && x.state.phase === 'Healthy', 'the Deployment to be held');
    await s.setImage(V2);

    const first = await s.reconcileUntil((x) => x.state.release?.stepIndex === 0 && x.state.release.stepState === 'StepPaused', 'step 1 (50%, traffic 0%)', 90_000);
    assert.deepEqual([ready(first, V1), ready(first, V2)], [REPLICAS, REPLICAS / 2], 'half the new revision beside the whole old one');
    const [stable, canary] = [await selects('web'), await selects('web-canary')];
    assert.ok(stable && canary && stable !== canary, `Service web selects ${stable}, web-canary ${canary}`);
    const none = await measure(REQUESTS / 2, REPLICAS + REPLICAS / 2, [stable]);
    assert.equal(none.byRevision.get(canary) ?? 0, 0, 'traffic 0%: no request reaches a new pod');

    await s.command({ type: 'approve' });
    const second = await s.reconcileUntil((x) => x.state.release?.stepIndex === 1 && x.state.release.stepState === 'StepPaused', 'step 2 (100%, traffic 0%)', 90_000);
    assert.deepEqual([ready(second, V1), ready(second, V2)], [REPLICAS, REPLICAS], 'the new revision at full size beside the whole old one');
    await measure(REQUESTS / 2, 2 * REPLICAS, [stable]);

    await s.command({ type: 'approve' });
    await s.reconcileUntil((x) => x.state.release?.stepIndex === 2 && x.state.release.stepState === 'StepPaused', 'step 3 (traffic 50%)', 90_000);
    const half = await measure(REQUESTS, 2 * REPLICAS, [stable, canary], { canary, weight: 50 });
    t.diagnostic(`step 3: new revision's share ${sharePercent(half, canary).toFixed(2)}% of ${half.sent} requests (weight 50%)`);

    const load = underLoad();
    await s.command({ type: 'approve' });
    const delayed = await s.reconcileUntil((x) => /scaleDownDelaySeconds 5/.test(x.state.message), 'the switch, then the delay', 90_000);
    assert.deepEqual([ready(delayed, V1), ready(delayed, V2)], [REPLICAS, REPLICAS], 'switched, the old revision still stands whole');
    assert.equal(await selects('web'), canary, 'Service web selects only the new pods');
    const switched = await measure(200, 2 * REPLICAS, [canary]);
    assert.equal(switched.byRevision.get(stable) ?? 0, 0, 'after the switch no request reaches an old pod');
    const scaleDownAt = Date.parse(delayed.state.release?.scaleDownAt ?? '');

    const done = await s.reconcileUntil((x) => x.state.phase === 'Completed', 'the release to complete', 120_000);
    const totals = await load.stop();
    t.diagnostic(`${totals.sent} requests from the last approval to the completion`);
    assert.deepEqual(totals.failures, [], 'every request answered 200 through the switch and the scale-down');
    assert.deepEqual(totals.transport, []);
    assert.deepEqual(Object.keys(done.pods), [V2], 'the old revision is gone');
    const oldScaledDown = await oldReplicaSetScaledDownAt(V1);
    // managedFields times are whole seconds: compared with scaleDownAt's second.
    assert.ok(oldScaledDown >= Math.floor(scaleDownAt / 1000) * 1000, `the old ReplicaSet was scaled down at ${new Date(oldScaledDown).toISOString()}, not before ${new Date(scaleDownAt).toISOString()}`);
    await assertRoutingHandedBack();
    await assertDeploymentAsBefore(V2);
    assert.deepEqual(pods.problems, []);
    watcher.stop();
    watcher.assertClean();
  });

  test('an abort after the new revision took requests puts them back on the old pods first, then removes the new pods: the Deployment as before', async (t) => {
    await applyRollout([{ replicas: '100%', traffic: '50%' }, { replicas: '100%', traffic: '100%' }]);
    const watcher = await s.watch({ user: { maxSurge: '100%', maxUnavailable: 0, minReadySeconds: 0 } });
    await s.setImage(V3);
    await s.reconcileUntil((x) => x.state.release?.stepIndex === 0 && x.state.release.stepState === 'StepPaused', 'step 1 (100%, traffic 50%)', 90_000);
    const [stable, canary] = [await selects('web'), await selects('web-canary')];
    await measure(200, 2 * REPLICAS, [stable, canary], { canary, weight: 50 });

    const errorsBefore = proxy.connectionErrors().length;
    const load = underLoad();
    await s.command({ type: 'abort' });
    const aborted = await s.reconcileUntil((x) => x.state.phase === 'Aborted', 'the abort', 120_000);
    await sleep(2000);
    const totals = await load.stop();
    t.diagnostic(`${totals.sent} requests during the abort; ${proxy.connectionErrors().length - errorsBefore} connection errors at the proxy`);
    assert.deepEqual(proxy.connectionErrors().slice(errorsBefore), [], 'no request reached a pod that was gone');
    assert.deepEqual(totals.failures, []);
    assert.deepEqual(totals.transport, []);
    assert.ok(totals.sent >= 200, `requests kept flowing during the abort (${totals.sent})`);
    assert.deepEqual(Object.keys(aborted.pods), [V2], 'the new pods are gone, the old ones stay');
    assert.equal(ready(aborted, V2), REPLICAS);
    await measure(200, REPLICAS, [stable]);
    await assertRoutingHandedBack();
    await assertDeploymentAsBefore(V2);
    watcher.stop();
    watcher.assertClean();
  });

  /** When the old revision's ReplicaSet was last asked for fewer pods (its managedFields time of spec.replicas). */
  async function oldReplicaSetScaledDownAt(image: string): Promise<number> {
    const rs = (await apps().listNamespacedReplicaSet({ namespace })).items.find((r) => r.spec?.template?.spec?.containers[0]?.image === image);
    assert.ok(rs && rs.spec?.replicas === 0, 'the old ReplicaSet is scaled to 0');
    const times = (rs.metadata?.managedFields ?? []).filter((f) => JSON.stringify(f.fieldsV1 ?? {}).includes('"f:replicas"') && f.manager === 'kube-controller-manager' && f.operation === 'Update').map((f) => new Date(f.time ?? 0).getTime());
    assert.ok(times.length > 0, 'the native controller scaled it');
    return Math.max(...times);
  }
});

/** The annotations of ours (rollouts.kruise.io/original-*, rollouts.serverless-rollouts.io/*) on an object. */
function rolloutAnnotations(d: V1Deployment): Record<string, string> {
  return Object.fromEntries(Object.entries(d.metadata?.annotations ?? {}).filter(([k]) => k.startsWith('rollouts.')));
}
