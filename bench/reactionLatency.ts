// Area 2 — reaction latency with watches: from the moment the last pod of a batch turns Ready to
// the patch that starts the next batch, with steps that never pause so batches chain. A 10-replica
// Deployment with ten one-pod steps (maxSurge 0, maxUnavailable 1: each batch swaps one pod, so
// the batch is complete exactly when its new pod is Ready) released four times: 36 reactions.
// Driven by local mode itself and, on the same control plane, by the loop the release area uses
// (local mode's parts around the instrumented engine); both read from the audit log alone. The
// Partition strategy, whose next batch starts with a ReplicaSet patch of ours (the release area
// measures both strategies end to end). Then the same in local mode for a StatefulSet and an
// OpenKruise CloneSet (the real kruise-manager): five replicas, five one-pod steps, released three
// times, from the last pod Ready to our partition patch (bench/lib/partitionReactions.ts).
import type { V1DeploymentStrategy } from '@kubernetes/client-node';
import { ROLLOUTS_USER } from '../shared/adapters/local/controlPlane.ts';
import { Engine } from './testbed/engine.ts';
import type { Area, BenchContext, TableRow } from './lib/area.ts';
import { inWindow } from './lib/audit.ts';
import { kindReleasesWithLocalMode, releasesWithLocalMode } from './lib/localModeDriver.ts';
import { partitionReactions } from './lib/partitionReactions.ts';
import type { WorkloadKind } from '../shared/rollout/workloadKinds.ts';
import { reactions, type Reaction } from './lib/reactions.ts';
import { benchNamespace, releaseOnce, waitUntilHeld } from './lib/release.ts';
import { summarize, type Summary } from './lib/stats.ts';
import { LOCAL_MODE_WATCH, startWatchLoop } from './lib/watchLoop.ts';

const REPLICAS = 10;
const RELEASES = 4;
const POD_READY_DELAY_MS = 500;
const STEPS = [...Array.from({ length: 9 }, (_, i) => ({ replicas: i + 1, pause: { duration: 0 } })), { replicas: '100%' }];
const STRATEGY: V1DeploymentStrategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } };
const TIMEOUT_MS = 120_000;
/** The partition kinds measured in local mode, with the resource our batch patches go to. */
const KINDS: readonly { kind: WorkloadKind; resource: string; group: string }[] = [
  { kind: 'StatefulSet', resource: 'statefulsets', group: 'apps' },
  { kind: 'CloneSet', resource: 'clonesets', group: 'apps.kruise.io' },
];
const KIND_REPLICAS = 5;
const KIND_STEPS = [...Array.from({ length: 4 }, (_, i) => ({ replicas: i + 1, pause: { duration: 0 } })), { replicas: '100%' }];
const KIND_RELEASES = 3;

export interface DriverResult {
  driver: string;
  /** last pod Ready (kwok's lastTransitionTime) → our ReplicaSet patch (apiserver requestReceivedTimestamp) */
  reactionMs: Summary;
  /** last pod Ready → the ReplicaSet controller's status write: Kubernetes' share */
  kubernetesShareMs: Summary;
  /** that status write → our patch: watch delivery + coalescing window + queue + reconcile */
  oursShareMs: Summary;
  problems: string[];
  samples: Reaction[];
}

export interface ReactionLatencyResult {
  watchTuning: typeof LOCAL_MODE_WATCH;
  podReadyDelayMs: number;
  replicas: number;
  steps: string;
  releases: number;
  localMode: DriverResult | { driver: string; error: string };
  partsLoop: DriverResult;
  /** Local mode releasing a StatefulSet and a CloneSet (absent in results from before they were measured). */
  kinds?: Record<string, DriverResult | { driver: string; error: string }>;
}

export const reactionLatency: Area<ReactionLatencyResult> = {
  name: 'reaction',
  title: 'Reaction latency with watches (last pod Ready → next batch patch)',
  run,
  rows,
};

async function run(ctx: BenchContext): Promise<ReactionLatencyResult> {
  const nsLocal = benchNamespace('bench-reaction-local');
  const nsParts = benchNamespace('bench-reaction-parts');
  const nsKinds = KINDS.map((k) => benchNamespace(`bench-reaction-${k.kind.toLowerCase()}`));
  const namespaces = [nsLocal, nsParts, ...nsKinds];
  const engine = await Engine.start({
    podReadyDelayMs: POD_READY_DELAY_MS,
    auditLog: true,
    kruise: true,
    auditRules: [
      // Bodies of our ReplicaSet writes (the replicas asked for), our partition patches, and kwok's pod status patches (Ready time).
      { level: 'Request', users: [ROLLOUTS_USER], verbs: ['create', 'patch', 'update'], resources: [{ group: 'apps', resources: ['replicasets', 'statefulsets'] }, { group: 'apps.kruise.io', resources: ['clonesets'] }] },
      { level: 'Request', namespaces, verbs: ['patch', 'update'], resources: [{ group: '', resources: ['pods/status'] }] },
      { level: 'Metadata', namespaces },
    ],
  });
  const images = (tag: string) => Array.from({ length: RELEASES }, (_, r) => `registry.invalid/web:${tag}-${r + 2}`);
  try {
    let localMode: ReactionLatencyResult['localMode'];
    try {
      const windows = await releasesWithLocalMode(engine, { namespace: nsLocal, replicas: REPLICAS, steps: STEPS, strategy: STRATEGY, deploymentStrategy: 'Partition', images: images('local'), timeoutMs: TIMEOUT_MS, log: ctx.log });
      localMode = analyse(engine, nsLocal, windows, 'local mode (startLocalMode against this control plane, least-privilege kubeconfig)');
    } catch (err) {
      ctx.log(`reaction: local mode could not be measured: ${String(err)}`);
      localMode = { driver: 'local mode', error: err instanceof Error ? err.message : String(err) };
    }
    const s = await engine.scenario('bench-reaction', { replicas: REPLICAS, steps: STEPS, strategy: STRATEGY, namespace: nsParts, deploymentStrategy: 'Partition' });
    const loop = startWatchLoop(engine);
    const windows: { startedAt: number; completedAt: number }[] = [];
    try {
      await waitUntilHeld(s);
      for (const [r, image] of images('parts').entries()) {
        ctx.log(`reaction (parts loop): release ${r + 1}/${RELEASES}`);
        windows.push(await releaseOnce(engine, s, loop, image, REPLICAS, TIMEOUT_MS));
      }
    } finally {
      await loop.stop();
    }
    const kinds: NonNullable<ReactionLatencyResult['kinds']> = {};
    for (const [i, { kind, resource }] of KINDS.entries()) {
      const namespace = nsKinds[i] as string;
      const driver = `local mode, ${kind}`;
      try {
        const windows = await kindReleasesWithLocalMode(engine, {
          kind, namespace, replicas: KIND_REPLICAS, steps: KIND_STEPS, images: Array.from({ length: KIND_RELEASES }, (_, r) => `registry.invalid/web:${kind.toLowerCase()}-${r + 2}`), timeoutMs: TIMEOUT_MS, log: ctx.log,
        });
        kinds[kind] = analyse(engine, namespace, windows, driver, (events) => partitionReactions(events, resource));
      } catch (err) {
        ctx.log(`reaction: ${driver} could not be measured: ${String(err)}`);
        kinds[kind] = { driver, error: err instanceof Error ? err.message : String(err) };
      }
    }
    return {
      kinds,
      watchTuning: LOCAL_MODE_WATCH,
      podReadyDelayMs: POD_READY_DELAY_MS,
      replicas: REPLICAS,
      steps: 'ten one-pod steps (1..9, 100%), pause {duration: 0}; maxSurge 0, maxUnavailable 1; Partition strategy',
      releases: RELEASES,
      localMode,
      partsLoop: analyse(engine, nsParts, windows, 'local mode\'s loop from its parts around the instrumented engine (bench/lib/watchLoop.ts)'),
    };
  } finally {
    await engine.stop();
  }
}

function analyse(
  engine: Engine, namespace: string, windows: { startedAt: number; completedAt: number }[], driver: string,
  measure: (events: ReturnType<typeof inWindow>) => { reactions: Reaction[]; problems: string[] } = reactions,
): DriverResult {
  const events = engine.cluster.auditEvents();
  const all: Reaction[] = [];
  const problems: string[] = [];
  for (const [i, w] of windows.entries()) {
    const found = measure(inWindow(events, w.startedAt, w.completedAt, new Set([namespace])));
    all.push(...found.reactions);
    problems.push(...found.problems.map((p) => `release ${i + 1}: ${p}`));
  }
  const r1 = (n: number) => Math.round(n * 10) / 10;
  return {
    driver,
    reactionMs: summarize(all.map((x) => x.totalMs), 'ms'),
    kubernetesShareMs: summarize(all.map((x) => x.kubeMs).filter(Number.isFinite), 'ms'),
    oursShareMs: summarize(all.map((x) => x.oursMs).filter(Number.isFinite), 'ms'),
    problems,
    samples: all.map((x) => ({ ...x, totalMs: r1(x.totalMs), kubeMs: r1(x.kubeMs), oursMs: r1(x.oursMs) })),
  };
}

function rows(r: ReactionLatencyResult): TableRow[] {
  const out: TableRow[] = [];
  const add = (label: string, d: DriverResult, status = 'ReplicaSet status') => out.push(
    {
      area: 'reaction',
      metric: `${label}: last pod Ready → next batch patch, p50 / p95 (n=${d.reactionMs.n} batches)`,
      value: `${d.reactionMs.median} / ${d.reactionMs.p95} ms (coalescing window ${r.watchTuning.windowMs} ms)`,
      source: 'audit log (kwok Ready time → our patch)',
    },
    {
      area: 'reaction',
      metric: `${label}: of which Kubernetes (pod Ready → ${status}), ours (→ patch), p50`,
      value: `${d.kubernetesShareMs.median} ms, ${d.oursShareMs.median} ms${d.problems.length ? `; ${d.problems.length} batches not measured` : ''}`,
      source: 'audit log',
    },
  );
  if ('error' in r.localMode) out.push({ area: 'reaction', metric: 'local mode', value: `not measured: ${r.localMode.error.split('\n')[0]}`, source: '' });
  else add('local mode', r.localMode);
  add('parts loop', r.partsLoop);
  for (const [kind, d] of Object.entries(r.kinds ?? {})) {
    if ('error' in d) out.push({ area: 'reaction', metric: `local mode, ${kind}`, value: `not measured: ${d.error.split('\n')[0]}`, source: '' });
    else add(`local mode, ${kind} (partition patch)`, d, `${kind} status`);
  }
  return out;
}
