// Area "traffic" (issue 25's acceptance): from a batch Available to its traffic weight applied at the
// proxy, through the real data plane of test/integration/traffic.release.test.ts: Traefik v3.7.13
// (scripts/build-dataplane.sh) serving a Gateway API HTTPRoute to the kwok pods, each pod answered on
// its IP by a responder (bench/testbed/dataplane/). A 10-replica Deployment with a Rollout of traffic
// steps [1 pod, 10%] → [30%, 30%] → [50%, 50%] → 100% (pause {duration: 0}, so steps chain), released
// several times by local mode's loop (bench/lib/watchLoop.ts), while a probe sends requests through
// the proxy without a break. The parts of each step (bench/lib/trafficSteps.ts): batch Available → our
// set-traffic write → the route's Accepted status → the first request answered by the canary at the
// step's share. The grace period is part of the figure: a release's first step points the canary
// Service at the batch and waits gracePeriodSeconds before its weight (shared/rollout/routing.ts).
import { AppsV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { ROLLOUTS_USER } from '../shared/adapters/local/controlPlane.ts';
import { parseRollout, ROLLOUTS_API_VERSION } from '../shared/rollout/spec.ts';
import { Engine, Scenario } from './testbed/engine.ts';
import { deploymentManifest } from './testbed/kube.ts';
import { waitFor } from './testbed/wait.ts';
import { probe, type Probe } from './testbed/dataplane/load.ts';
import { DATA_PLANE_RANGES, REVISION_LABEL, servePods, type PodResponders } from './testbed/dataplane/podResponders.ts';
import { startTraefik, TRAEFIK_USER, type TraefikProxy } from './testbed/dataplane/traefik.ts';
import type { Area, BenchContext, TableRow } from './lib/area.ts';
import { inWindow } from './lib/audit.ts';
import { benchNamespace, releaseOnce, waitUntilHeld } from './lib/release.ts';
import { summarize, type Summary } from './lib/stats.ts';
import { stepTimings, type StepTiming, type TrafficStep } from './lib/trafficSteps.ts';
import { startWatchLoop } from './lib/watchLoop.ts';

const REPLICAS = 10;
const RELEASES = 6;
/** Kruise's default, and above Traefik's providersThrottleDuration (2 s, cmd/configuration.go of traefik/v3). */
const GRACE_PERIOD_SECONDS = 3;
const TRAEFIK_THROTTLE_SECONDS = 2;
const STEPS: readonly TrafficStep[] = [{ weight: 10, replicas: 1 }, { weight: 30, replicas: 3 }, { weight: 50, replicas: 5 }];
const ROLLOUT_STEPS = [
  { replicas: 1, traffic: '10%', pause: { duration: 0 } },
  { replicas: '30%', traffic: '30%', pause: { duration: 0 } },
  { replicas: '50%', traffic: '50%', pause: { duration: 0 } },
  { replicas: '100%' },
];
/** The probe: 2 keep-alive clients, 5 ms apart; a step's share is read over 20 answers, ±5 points (one answer). */
const PROBE = { concurrency: 2, gapMs: 5, window: 20, tolerancePoints: 5 };
const TIMEOUT_MS = 180_000;
const GW = { group: 'gateway.networking.k8s.io', version: 'v1' };

export interface TrafficAppliedResult {
  provider: string;
  gracePeriodSeconds: number;
  proxyProvidersThrottleSeconds: number;
  replicas: number;
  steps: string;
  releases: number;
  probe: typeof PROBE & { answers: number; non200: number; perSecond: number; windowMs: Summary };
  /** Batch Available → the first canary answer at the step's share, every traffic step. */
  totalMs: Summary;
  /** The same, a release's first step (the canary Service first, then one grace period) and the later ones. */
  firstStepTotalMs: Summary;
  laterStepsTotalMs: Summary;
  availableToWriteMs: { firstStep: Summary; laterSteps: Summary };
  /** First step: batch Available → our Services write, and that write → our route write (the grace period). */
  availableToServicesMs: Summary;
  servicesToWriteMs: Summary;
  writeToAcceptedMs: Summary;
  acceptedToServedMs: Summary;
  writeToServedMs: Summary;
  graceMarginMs: Summary;
  problems: string[];
  samples: (StepTiming & { release: number })[];
}

export const trafficApplied: Area<TrafficAppliedResult> = {
  name: 'traffic',
  title: 'Traffic weight applied at the proxy (batch Available → canary answering at the step\'s share)',
  run,
  rows,
};

async function run(ctx: BenchContext): Promise<TrafficAppliedResult> {
  const namespace = benchNamespace('bench-traffic');
  const engine = await Engine.start({
    auditLog: true,
    extraUsers: [TRAEFIK_USER],
    podCidr: DATA_PLANE_RANGES['bench.traffic'],
    auditRules: [
      // Our route writes with the route after them (its generation and weights), the proxy's status writes with their conditions.
      { level: 'RequestResponse', users: [ROLLOUTS_USER], verbs: ['patch', 'update'], resources: [{ group: GW.group, resources: ['httproutes'] }] },
      { level: 'Request', users: [TRAEFIK_USER.name], verbs: ['update', 'patch'], resources: [{ group: GW.group, resources: ['httproutes/status'] }] },
      // kwok's pod status patches (the Ready time), and every write in the namespace (our Service writes among them).
      { level: 'Request', namespaces: [namespace], verbs: ['patch', 'update'], resources: [{ group: '', resources: ['pods/status'] }] },
      { level: 'Metadata', namespaces: [namespace], verbs: ['create', 'update', 'patch', 'delete'] },
    ],
  });
  let pods: PodResponders | undefined;
  let proxy: TraefikProxy | undefined;
  let prober: Probe | undefined;
  let loop: ReturnType<typeof startWatchLoop> | undefined;
  try {
    const admin = engine.cluster.admin;
    await admin.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
    pods = await servePods(admin, namespace);
    proxy = await startTraefik(engine.cluster, namespace);
    const s = await setUp(engine, namespace, proxy);
    loop = startWatchLoop(engine);
    await waitUntilHeld(s);
    const url = proxy.url;
    prober = probe(url, PROBE);
    const answers = prober.answers;
    await waitFor(() => answers.filter((a) => a.status === 200).length >= 100, { message: `the probe to be answered through ${url}`, timeoutMs: 60_000 });

    const windows: { startedAt: number; completedAt: number; image: string }[] = [];
    for (let r = 0; r < RELEASES; r += 1) {
      const image = `registry.invalid/web:v${r + 2}`;
      ctx.log(`traffic: release ${r + 1}/${RELEASES}`);
      const release = await releaseOnce(engine, s, loop, image, REPLICAS, TIMEOUT_MS);
      windows.push({ startedAt: release.startedAt, completedAt: release.completedAt, image });
    }
    await prober.stop();
    const replicaSets = (await s.apps.listNamespacedReplicaSet({ namespace })).items;
    const events = engine.cluster.auditEvents();
    const samples: TrafficAppliedResult['samples'] = [];
    const problems: string[] = [];
    for (const [r, w] of windows.entries()) {
      const canary = replicaSets.find((rs) => rs.spec?.template?.spec?.containers?.[0]?.image === w.image);
      if (!canary) {
        problems.push(`release ${r + 1}: no ReplicaSet of ${w.image}`);
        continue;
      }
      const read = stepTimings(inWindow(events, w.startedAt, w.completedAt), answers, STEPS, {
        canaryReplicaSet: canary.metadata?.name ?? '',
        canaryRevision: canary.metadata?.labels?.[REVISION_LABEL] ?? '', service: 'web', proxyUser: TRAEFIK_USER.name,
        gracePeriodSeconds: GRACE_PERIOD_SECONDS, window: PROBE.window, tolerancePoints: PROBE.tolerancePoints,
      });
      samples.push(...read.timings.map((t) => ({ release: r + 1, ...t })));
      problems.push(...read.problems.map((p) => `release ${r + 1}: ${p}`));
    }
    problems.push(...pods.problems.map((p) => `pod responders: ${p}`));
    return summarise(samples, problems, answers);
  } finally {
    await prober?.stop();
    await loop?.stop();
    await proxy?.stop();
    await pods?.stop();
    await engine.stop();
  }
}

/** The Deployment `web` (a TCP port for the responders), its Service, the HTTPRoute on the proxy's Gateway, and the Rollout stored. */
async function setUp(engine: Engine, namespace: string, proxy: TraefikProxy): Promise<Scenario> {
  const admin = engine.cluster.admin;
  const deployment = deploymentManifest('web', { replicas: REPLICAS, image: 'registry.invalid/web:v1' });
  for (const c of deployment.spec?.template.spec?.containers ?? []) c.ports = [{ containerPort: 8080 }];
  await admin.makeApiClient(AppsV1Api).createNamespacedDeployment({ namespace, body: deployment });
  const s = new Scenario(engine, namespace);
  await s.waitForPods('registry.invalid/web:v1', REPLICAS);
  await admin.makeApiClient(CoreV1Api).createNamespacedService({ namespace, body: { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] } } });
  await admin.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    ...GW, namespace, plural: 'httproutes',
    body: { apiVersion: `${GW.group}/${GW.version}`, kind: 'HTTPRoute', metadata: { name: 'web' }, spec: { parentRefs: [{ name: proxy.gateway }], rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] } },
  });
  const doc = {
    apiVersion: ROLLOUTS_API_VERSION, kind: 'Rollout', metadata: { name: 'web', namespace },
    spec: {
      workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      strategy: { canary: { steps: ROLLOUT_STEPS, trafficRoutings: [{ service: 'web', gracePeriodSeconds: GRACE_PERIOD_SECONDS, gateway: { httpRouteName: 'web' } }] } },
    },
  };
  await engine.store.putSpec(s.key, parseRollout(doc, { cluster: 'test' }), doc, 0);
  return s;
}

function summarise(samples: TrafficAppliedResult['samples'], problems: string[], answers: Probe['answers']): TrafficAppliedResult {
  const ms = (values: number[]) => summarize(values, 'ms', 0);
  const first = samples.filter((x) => x.step === 1);
  const later = samples.filter((x) => x.step > 1);
  const span = answers.length > 1 ? ((answers[answers.length - 1] as { at: number }).at - (answers[0] as { at: number }).at) / 1000 : 0;
  return {
    provider: 'gateway (HTTPRoute), Traefik v3.7.13 outside the cluster',
    gracePeriodSeconds: GRACE_PERIOD_SECONDS,
    proxyProvidersThrottleSeconds: TRAEFIK_THROTTLE_SECONDS,
    replicas: REPLICAS,
    steps: '[1 pod, 10%] → [30%, 30%] → [50%, 50%] → 100%, pause {duration: 0}; Deployment RollingUpdate 25%/25%, in place (MinReadySeconds)',
    releases: RELEASES,
    probe: {
      ...PROBE,
      answers: answers.length,
      non200: answers.filter((a) => a.status !== 200).length,
      perSecond: span > 0 ? Math.round(answers.length / span) : 0,
      windowMs: ms(samples.map((x) => x.windowMs)),
    },
    totalMs: ms(samples.map((x) => x.totalMs)),
    firstStepTotalMs: ms(first.map((x) => x.totalMs)),
    laterStepsTotalMs: ms(later.map((x) => x.totalMs)),
    availableToWriteMs: { firstStep: ms(first.map((x) => x.availableToWriteMs)), laterSteps: ms(later.map((x) => x.availableToWriteMs)) },
    availableToServicesMs: ms(first.flatMap((x) => (x.servicesAt === null ? [] : [x.servicesAt - x.availableAt]))),
    servicesToWriteMs: ms(first.flatMap((x) => (x.servicesAt === null ? [] : [x.writeAt - x.servicesAt]))),
    writeToAcceptedMs: ms(samples.map((x) => x.writeToAcceptedMs)),
    acceptedToServedMs: ms(samples.map((x) => x.acceptedToServedMs)),
    writeToServedMs: ms(samples.map((x) => x.servedAt - x.writeAt)),
    graceMarginMs: ms(samples.map((x) => x.graceMarginMs)),
    problems,
    samples,
  };
}

function rows(r: TrafficAppliedResult): TableRow[] {
  const pq = (x: Summary) => `${x.median} / ${x.p95} ms`;
  const source = 'audit log (kwok Ready, our route write, Traefik\'s status) + probe through Traefik';
  return [
    {
      area: 'traffic',
      metric: `batch Available → canary answering at the step's share, p50 / p95 (n=${r.totalMs.n} steps, grace ${r.gracePeriodSeconds} s)`,
      value: `${pq(r.totalMs)}; first step of a release ${pq(r.firstStepTotalMs)} (n=${r.firstStepTotalMs.n}), later ${pq(r.laterStepsTotalMs)} (n=${r.laterStepsTotalMs.n})`,
      source,
    },
    {
      area: 'traffic',
      metric: 'parts, p50: Available → our set-traffic write (first step: → canary Service write → grace) / later steps; write → route Accepted; Accepted → served',
      value: `${r.availableToWriteMs.firstStep.median} ms (${r.availableToServicesMs.median} + ${r.servicesToWriteMs.median}) / ${r.availableToWriteMs.laterSteps.median} ms; ${r.writeToAcceptedMs.median} ms; ${r.acceptedToServedMs.median} ms`,
      source,
    },
    {
      area: 'traffic',
      metric: `our write → served, p50 / p95 / max; margin to the grace period (write + ${r.gracePeriodSeconds} s − served), min`,
      value: `${r.writeToServedMs.median} / ${r.writeToServedMs.p95} / ${r.writeToServedMs.max} ms; ${r.graceMarginMs.min} ms${r.problems.length ? `; ${r.problems.length} steps not measured` : ''}`,
      source: `probe ${r.probe.perSecond} req/s, share over ${r.probe.window} answers (p50 ${r.probe.windowMs.median} ms)`,
    },
  ];
}
