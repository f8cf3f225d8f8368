// Area — triggers and the backstop, in local mode (startLocalMode, what `npm start` runs, against a
// control plane through the least-privilege kubeconfig), read from its own timestamped lines:
//   apply → release start: PUT the Rollout, POST release at once (what `rollouts apply -f … &&
//     rollouts release …` sends), for new and changed Rollouts of Deployments and StatefulSets in
//     turn: from the release command's answer to "event Release Started". Goal ≤ 1 s.
//   StatefulSet start on the watch path: an image change alone (what `kubectl set image` sends),
//     from the patch's answer to "event Release Started". Goal ≤ 1 s.
//   timed pauses of 5, 10 and 30 s, ten of each at once: from the pause's deadline (the stored
//     nextWakeAt) to "event Step Started" of the next step. Goal: overshoot ≤ 1 s.
// BENCH_TRIGGERS_RUNS scales the repetitions (default 20 releases, 10 of the others).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AppsV1Api, CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { ROLLOUTS_API_VERSION } from '../shared/rollout/spec.ts';
import { createDeployment, startTestCluster, type TestCluster } from './testbed/kube.ts';
import { waitFor as waitUntil } from './testbed/wait.ts';
import type { Area, BenchContext, TableRow } from './lib/area.ts';
import { summarize, type Summary } from './lib/stats.ts';

const RUNS = Math.max(1, Number(process.env.BENCH_TRIGGERS_RUNS ?? 10));
const RELEASES = RUNS * 2;
const PAUSES = [5, 10, 30];
const POD_READY_DELAY_MS = 300;
const TIMEOUT_MS = 120_000;
const strategicMerge = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);

type Kind = 'Deployment' | 'StatefulSet';

export interface TriggersResult {
  podReadyDelayMs: number;
  localMode: { resyncSeconds: number; sweepSeconds: number; watchWindowMs: number };
  applyRelease: { runs: number; started: number; startMs: Summary; byCase: Record<string, Summary> };
  statefulSetWatch: { runs: number; started: number; startMs: Summary; passReasons: Record<string, number> };
  timedPauses: { seconds: number; runs: number; overshootMs: Summary; endedBy: Record<string, number> }[];
}

export const triggers: Area<TriggersResult> = {
  name: 'triggers',
  title: 'Triggers in local mode (apply → release start, StatefulSet watch start, timed pause overshoot)',
  run,
  rows,
};

/** The parts of the stored state the benchmark reads. */
interface StateView {
  stableRevision: string | null;
  nextWakeAt: string | null;
  release: { stepState: string } | null;
}

interface Line {
  at: number;
  line: string;
}

async function run(ctx: BenchContext): Promise<TriggersResult> {
  const { startLocalMode } = await import('../shared/local/localMode.ts');
  const cluster = await startTestCluster({ podReadyDelayMs: POD_READY_DELAY_MS });
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-triggers-'));
  const lines: Line[] = [];
  // Local mode reads the kubeconfig the way kubectl does (KUBECONFIG), from this process's environment.
  const previousKubeconfig = process.env.KUBECONFIG;
  process.env.KUBECONFIG = cluster.kubeconfigPath('rollouts');
  try {
    const local = await startLocalMode({
      dataDir, cluster: 'kubeconfig', verbose: true, env: { ...process.env },
      log: (line) => lines.push({ at: Date.now(), line }),
    });
    try {
      const api = apiOf(local.endpoint);
      const waitLine = (pattern: RegExp, from: number) => waitFor(() => lines.slice(from).find((l) => pattern.test(l.line)), TIMEOUT_MS, `a line ${pattern}`);
      const adopted = (ns: string, name: string) => waitFor(async () => (await api.state(ns, name))?.stableRevision, TIMEOUT_MS, `${ns}/${name} adopted`);
      /** Adopted, and the pass after it (the look at its own hold) is done. */
      const settled = async (ns: string, name: string) => {
        await adopted(ns, name);
        await waitLine(new RegExp(`reconcile ${ns}/${name} \\((requeue|watch)\\): noop Healthy`), 0);
      };

      // apply → release
      ctx.log(`triggers: ${RELEASES} × apply → release`);
      const nsA = await namespace(cluster, 'bench-apply-release');
      const cases = Array.from({ length: RELEASES }, (_, i) => ({ name: `w${i}`, kind: (i % 4 < 2 ? 'Deployment' : 'StatefulSet') as Kind, changed: i % 2 === 1 }));
      for (const c of cases) await createWorkload(cluster, nsA, c.name, c.kind, 2);
      for (const c of cases.filter((x) => x.changed)) await api.apply(nsA, c.name, c.kind, [{ replicas: 1, pause: {} }, { replicas: '100%' }]);
      for (const c of cases.filter((x) => x.changed)) await settled(nsA, c.name);
      const startMs: number[] = [];
      const byCase: Record<string, number[]> = {};
      let started = 0;
      for (const c of cases) {
        const from = lines.length;
        await api.apply(nsA, c.name, c.kind, [{ replicas: 1, pause: { duration: 3600 } }, { replicas: '100%' }]);
        await api.release(nsA, c.name, 'registry.invalid/app:v2');
        const t0 = Date.now();
        const line = await waitLine(new RegExp(`event Release Started: ${nsA}/${c.name} `), from);
        started += 1;
        startMs.push(line.at - t0);
        (byCase[`${c.changed ? 'changed' : 'new'} ${c.kind}`] ??= []).push(line.at - t0);
      }

      // StatefulSet, watch path
      ctx.log(`triggers: ${RUNS} × StatefulSet image change → release start`);
      const nsS = await namespace(cluster, 'bench-sts-watch');
      const sets = Array.from({ length: RUNS }, (_, i) => `db${i}`);
      for (const name of sets) await createWorkload(cluster, nsS, name, 'StatefulSet', 2);
      for (const name of sets) await api.apply(nsS, name, 'StatefulSet', [{ replicas: 1, pause: {} }, { replicas: '100%' }]);
      for (const name of sets) await settled(nsS, name);
      const stsMs: number[] = [];
      const reasons: Record<string, number> = {};
      for (const name of sets) {
        const from = lines.length;
        await setImage(cluster, nsS, 'StatefulSet', name, 'registry.invalid/app:v2');
        const t0 = Date.now();
        const line = await waitLine(new RegExp(`event Release Started: ${nsS}/${name} `), from);
        stsMs.push(line.at - t0);
        const pass = await waitLine(new RegExp(`reconcile ${nsS}/${name} \\(`), lines.indexOf(line));
        const reason = /\((\w+)\)/.exec(pass.line)?.[1] ?? '?';
        reasons[reason] = (reasons[reason] ?? 0) + 1;
      }

      // Timed pauses
      const timedPauses: TriggersResult['timedPauses'] = [];
      for (const seconds of PAUSES) {
        ctx.log(`triggers: ${RUNS} timed pauses of ${seconds} s at once`);
        const ns = await namespace(cluster, `bench-pause-${seconds}`);
        const names = Array.from({ length: RUNS }, (_, i) => `p${i}`);
        for (const name of names) await createWorkload(cluster, ns, name, 'Deployment', 2);
        for (const name of names) await api.apply(ns, name, 'Deployment', [{ replicas: 1, pause: { duration: seconds } }, { replicas: '100%' }]);
        for (const name of names) await settled(ns, name);
        const from = lines.length;
        await Promise.all(names.map((name) => setImage(cluster, ns, 'Deployment', name, 'registry.invalid/app:v2')));
        const results = await Promise.all(names.map(async (name) => {
          let last: unknown = null;
          const paused = await waitFor(async () => {
            const s = await api.state(ns, name);
            last = s;
            return s?.release?.stepState === 'StepPaused' && s.nextWakeAt ? s : null;
          }, TIMEOUT_MS, `${ns}/${name} to pause`).catch((e: unknown) => {
            // What it was doing instead, so a failed run says why (its state and its own lines).
            const own = lines.filter((l) => l.line.includes(`${ns}/${name} `)).slice(-15).map((l) => `  ${l.line}`);
            throw new Error(`${(e as Error).message}; last state ${JSON.stringify(last)}\n${own.join('\n')}`, { cause: e });
          });
          const deadline = Date.parse(paused.nextWakeAt as string);
          const next = await waitLine(new RegExp(`event Step Started: ${ns}/${name} `), from);
          const pass = await waitLine(new RegExp(`reconcile ${ns}/${name} \\(`), lines.indexOf(next));
          return { overshoot: next.at - deadline, reason: /\((\w+)\)/.exec(pass.line)?.[1] ?? '?' };
        }));
        const endedBy: Record<string, number> = {};
        for (const r of results) endedBy[r.reason] = (endedBy[r.reason] ?? 0) + 1;
        timedPauses.push({ seconds, runs: results.length, overshootMs: summarize(results.map((r) => r.overshoot), 'ms'), endedBy });
      }

      return {
        podReadyDelayMs: POD_READY_DELAY_MS,
        localMode: { resyncSeconds: local.resyncPeriodMs / 1000, sweepSeconds: local.sweepIntervalMs / 1000, watchWindowMs: 250 },
        applyRelease: { runs: cases.length, started, startMs: summarize(startMs, 'ms'), byCase: Object.fromEntries(Object.entries(byCase).map(([k, v]) => [k, summarize(v, 'ms')])) },
        statefulSetWatch: { runs: sets.length, started: stsMs.length, startMs: summarize(stsMs, 'ms'), passReasons: reasons },
        timedPauses,
      };
    } finally {
      await local.stop();
    }
  } finally {
    if (previousKubeconfig === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = previousKubeconfig;
    await cluster.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function apiOf(endpoint: string) {
  const call = async (method: string, p: string, body?: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(`${endpoint}${p}`, { method, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  return {
    apply: (ns: string, name: string, kind: Kind, steps: unknown[]) => call('PUT', `/v1/rollouts/local/${ns}/${name}`, {
      apiVersion: ROLLOUTS_API_VERSION, kind: 'Rollout', metadata: { name, namespace: ns },
      spec: { workloadRef: { apiVersion: 'apps/v1', kind, name }, strategy: { canary: { steps } } },
    }),
    release: (ns: string, name: string, image: string) => call('POST', `/v1/rollouts/local/${ns}/${name}/release`, { images: { app: image } }),
    state: async (ns: string, name: string) => (await call('GET', `/v1/rollouts/local/${ns}/${name}`)).state as StateView | undefined,
  };
}

async function namespace(cluster: TestCluster, name: string): Promise<string> {
  await cluster.admin.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name } } });
  return name;
}

async function createWorkload(cluster: TestCluster, ns: string, name: string, kind: Kind, replicas: number): Promise<void> {
  if (kind === 'Deployment') {
    await createDeployment(cluster.admin, ns, name, { replicas, image: 'registry.invalid/app:v1' });
    return;
  }
  const labels = { app: name };
  await cluster.admin.makeApiClient(AppsV1Api).createNamespacedStatefulSet({
    namespace: ns,
    body: {
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name, labels },
      spec: { replicas, serviceName: name, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'registry.invalid/app:v1' }] } } },
    },
  });
}

/** What `kubectl set image <kind>/<name> app=<image>` sends. */
async function setImage(cluster: TestCluster, ns: string, kind: Kind, name: string, image: string): Promise<void> {
  const apps = cluster.admin.makeApiClient(AppsV1Api);
  const body = { spec: { template: { spec: { containers: [{ name: 'app', image }] } } } };
  if (kind === 'Deployment') await apps.patchNamespacedDeployment({ namespace: ns, name, body }, strategicMerge);
  else await apps.patchNamespacedStatefulSet({ namespace: ns, name, body }, strategicMerge);
}

/** Polls `f` every 20 ms until it returns something truthy (bench/testbed/wait.ts). */
function waitFor<T>(f: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs: number, what: string): Promise<NonNullable<T>> {
  return waitUntil(f, { timeoutMs, intervalMs: 20, message: what }) as Promise<NonNullable<T>>;
}

function rows(r: TriggersResult): TableRow[] {
  const fmt = (s: Summary) => `${Math.round(s.median)} / ${Math.round(s.max)} ms`;
  const reasons = (x: Record<string, number>) => Object.entries(x).map(([k, v]) => `${v} ${k}`).join(', ');
  return [
    { area: 'triggers', metric: `apply → release start, median / max (n=${r.applyRelease.runs}; goal ≤ 1 s)`, value: `${fmt(r.applyRelease.startMs)}; ${r.applyRelease.started}/${r.applyRelease.runs} started (${Object.entries(r.applyRelease.byCase).map(([k, v]) => `${k} ${Math.round(v.median)}`).join(', ')} ms)`, source: 'local mode lines (release answered → Release Started)' },
    { area: 'triggers', metric: `StatefulSet image change → release start, median / max (n=${r.statefulSetWatch.runs}; goal ≤ 1 s)`, value: `${fmt(r.statefulSetWatch.startMs)}; started by ${reasons(r.statefulSetWatch.passReasons)}`, source: 'local mode lines (patch answered → Release Started)' },
    ...r.timedPauses.map((p) => ({
      area: 'triggers', metric: `timed pause ${p.seconds} s: overshoot median / max (n=${p.runs} at once; goal ≤ 1 s)`,
      value: `${fmt(p.overshootMs)}; ended by ${reasons(p.endedBy)}`, source: 'stored deadline → Step Started line',
    })),
  ];
}
