// The soak (`npm run soak`, and its smoke run in npm test): many releases over a fleet of Deployments
// (both strategies) and StatefulSets, driven through local mode's HTTP API by a seeded random user
// (approvals, pauses, resumes, aborts, undos, new images mid-release, HPA-like scales), while every
// apiserver and DynamoDB request of the reconciler goes through a fault-injecting proxy, the
// reconciler (local mode, a child process) is killed with SIGKILL and started again at random, and
// kube-controller-manager is stopped for a while. Invariant watchers follow every workload on the
// real cluster; at the end every rollout is drained, its history checked, deleted, and its workload
// compared with what the user had. The seed fixes the fleet, each rollout's choices and the fault
// draws (in request order); timings vary between runs, so a replay reproduces the mix, not the
// interleaving.
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AppsV1Api } from '@kubernetes/client-node';
import { DynamoStateStore } from '../../../shared/adapters/dynamodb/stateStore.ts';
import { LOCAL_CLUSTER } from '../../../shared/local/dataDir.ts';
import type { StatusResponse } from '../../../shared/api/types.ts';
import { startDynalite } from '../dynalite.ts';
import { startDynamoFaultProxy, type DynamoFault } from '../faults/dynamoFaultProxy.ts';
import type { FaultTable } from '../faults/faultPlan.ts';
import { startKubeFaultProxy, type KubeFault, type KubeVerb } from '../faults/kubeFaultProxy.ts';
import { Random } from '../faults/prng.ts';
import { judgedShare, mergeCoverage, type InvariantCoverage } from '../coverage.ts';
import { InvariantWatcher } from '../invariants.ts';
import { startTestCluster } from '../kube.ts';
import { ServeProcess, cleanEnv } from '../localModeProcess.ts';
import { checkHistory } from './historyChecks.ts';
import { createFleet, handBackDiff, nativelySettled, userFields, type FleetMember } from './fleet.ts';
import { SetWatcher } from './setWatcher.ts';
import { SoakApi } from './soakApi.ts';
import { actor, drain } from './user.ts';

export interface SoakOptions {
  seed: number;
  rollouts: number;
  /** How long the random user acts (faults, kills and the outage happen in this window). */
  chaosMs: number;
  kills: number;
  /** The kube-controller-manager outage: when (from the start of the chaos) and how long. */
  outageAtMs: number;
  outageMs: number;
  /** Share of apiserver and DynamoDB requests faulted during the chaos. */
  faultRate: number;
  podReadyDelayMs?: number;
  log?: (line: string) => void;
  /** Where to keep local mode's output (every process's), or nowhere. */
  serveLog?: string;
}

export interface SoakSummary {
  seed: number;
  options: Omit<SoakOptions, 'log'>;
  durationSeconds: number;
  rollouts: Record<string, number>;
  releases: number;
  releaseEnds: Record<string, number>;
  commandsAccepted: number;
  apiRequests: number;
  kills: number;
  /** How long local mode took to come back after each kill: median and longest, in seconds. */
  restartSeconds: { median: number; max: number };
  outage: { component: string; seconds: number };
  kube: { requests: number; faults: number; faultRate: number; byVerb: Record<string, number>; faultsByKind: Record<string, number> };
  dynamodb: { requests: number; faults: number; faultRate: number; byOperation: Record<string, number>; faultsByKind: Record<string, number> };
  watcherRewatches: number;
  violations: string[];
  /**
   * Per kind of watcher and invariant, over the chaos window outside the kube-controller-manager
   * outage (summed over the workloads): seconds judged in full, by a narrow rule, exempt (per
   * exemption), the share judged, and checks made and exempted (bench/testbed/coverage.ts).
   */
  coverage: { deployments: Record<string, CoverageLine>; statefulSets: Record<string, CoverageLine> };
  /** The history of each rollout with a violation, one line per entry (to read with the seed). */
  evidence: Record<string, string[]>;
}

export interface CoverageLine extends InvariantCoverage {
  /** Share of `seconds` judged, in full or by a narrow rule (0..1, 4 decimals). */
  judgedShare: number;
}

function coverageSummary(record: Record<string, InvariantCoverage>): Record<string, CoverageLine> {
  const round = (r: Record<string, number>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Math.round(v * 10) / 10]));
  return Object.fromEntries(Object.entries(record).map(([invariant, c]) => [invariant, {
    ...c, seconds: Math.round(c.seconds * 10) / 10, judgedSeconds: Math.round(c.judgedSeconds * 10) / 10,
    narrowedSeconds: round(c.narrowedSeconds), exemptSeconds: round(c.exemptSeconds), judgedShare: Math.round(judgedShare(c) * 10_000) / 10_000,
  }]));
}

/** Splits `rate` over the faults of each verb (weights in parts per hundred). */
function kubeTable(rate: number): FaultTable<KubeVerb, KubeFault> {
  const scale = (w: Partial<Record<KubeFault, number>>) => Object.fromEntries(Object.entries(w).map(([k, v]) => [k, (v * rate) / 100])) as Partial<Record<KubeFault, number>>;
  const reads = scale({ throttle: 25, internal: 15, unavailable: 20, timeout: 10, hang: 5, delay: 25 });
  const writes = scale({ conflict: 20, throttle: 20, internal: 15, unavailable: 15, timeout: 5, hang: 5, dropResponse: 10, delay: 10 });
  return { get: reads, list: reads, watch: scale({ cutWatch: 50, gone: 30, throttle: 10, delay: 10 }), create: writes, update: writes, patch: writes, delete: writes };
}

function dynamoTable(rate: number): FaultTable<string, DynamoFault> {
  const odds = { ProvisionedThroughputExceededException: 0.3 * rate, ThrottlingException: 0.25 * rate, InternalServerError: 0.25 * rate, timeout: 0.1 * rate, lostResponse: 0.1 * rate };
  return Object.fromEntries(['GetItem', 'Query', 'PutItem', 'DeleteItem', 'BatchWriteItem', 'UpdateItem', 'DescribeTable'].map((op) => [op, odds]));
}

export async function runSoak(opts: SoakOptions): Promise<SoakSummary> {
  const log = opts.log ?? (() => {});
  const started = Date.now();
  const rng = new Random(opts.seed);
  const violations: string[] = [];
  const work = mkdtempSync(path.join(tmpdir(), 'rollouts-soak-'));
  const home = path.join(work, 'home');
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  let serve: ServeProcess | null = null;
  let kills = 0;
  const restarts: number[] = [];
  // Local mode's own lines (each process's, appended when it is killed or stopped), for reading a failure with its seed.
  const serveLog = (p: ServeProcess | null): void => {
    if (p && opts.serveLog) appendFileSync(opts.serveLog, `---- local mode pid ${p.pid} ----\n${p.output()}\n`);
  };
  if (opts.serveLog) writeFileSync(opts.serveLog, '');
  try {
    // Every write to a Deployment or ReplicaSet, by anyone (our reconciler, the native controller,
    // the soak's own scaler), with its body: the cluster's side of the evidence.
    const cluster = await startTestCluster({
      podReadyDelayMs: opts.podReadyDelayMs ?? 400, nodes: 3, auditLog: true,
      auditRules: [{ level: 'Request', verbs: ['create', 'update', 'patch', 'delete'], resources: [{ group: 'apps', resources: ['deployments', 'replicasets', 'statefulsets'] }] }],
    });
    cleanups.push(() => cluster.stop());
    const dynalite = await startDynalite({ tableName: 'rollouts' });
    cleanups.push(() => dynalite.stop());
    const kube = await startKubeFaultProxy({ target: cluster.server, certDir: path.join(cluster.dataDir, 'pki', 'apiserver'), seed: opts.seed, table: kubeTable(opts.faultRate) });
    cleanups.push(() => kube.stop());
    const dynamo = await startDynamoFaultProxy({ target: dynalite.endpoint, seed: opts.seed + 1, table: dynamoTable(opts.faultRate) });
    cleanups.push(() => dynamo.stop());
    kube.plan.setEnabled(false);
    dynamo.plan.setEnabled(false);
    const kubeconfig = path.join(work, 'faulted.kubeconfig');
    kube.writeKubeconfig(kubeconfig, cluster.rolloutsToken);

    log(`seed ${opts.seed}: creating ${opts.rollouts} workloads`);
    const fleet = await createFleet(cluster.admin, rng, opts.rollouts);
    const watchers = new Map<string, InvariantWatcher | SetWatcher>();
    for (const m of fleet) {
      await waitUntil(() => nativelySettled(cluster.admin, m), 120_000, `${m.namespace} to start`);
      m.userFields = await userFields(cluster.admin, m);
      watchers.set(m.namespace, m.kind === 'StatefulSet'
        ? await SetWatcher.start(cluster.admin, m.namespace, m.name)
        // The one pod more of a Partition release's first pod (its watcher applies it only when the user's maxSurge is 0).
        : await InvariantWatcher.start(cluster.admin, m.namespace, m.name, { partition: m.kind === 'Partition', surgeAllowance: m.kind === 'Partition' }));
    }
    cleanups.push(() => { for (const w of watchers.values()) w.stop(); });

    const env = cleanEnv({ KUBECONFIG: kubeconfig });
    const serveArgs = ['--dynamodb-endpoint', dynamo.endpoint, '--resync-seconds', '15'];
    serve = await ServeProcess.start(home, serveArgs, env);
    cleanups.push(async () => {
      await serve?.interrupt();
      serveLog(serve);
    });
    const api = new SoakApi(home, LOCAL_CLUSTER);
    for (const m of fleet) {
      const answer = await api.call('PUT', api.rolloutPath(m.namespace, m.name), m.document);
      if (answer.status !== 201 && answer.status !== 200) throw new Error(`apply ${m.namespace}: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
    const status = async (m: FleetMember) => (await api.call('GET', api.rolloutPath(m.namespace, m.name, '/status'))).body as unknown as StatusResponse;
    await Promise.all(fleet.map((m) => waitUntil(async () => (await status(m)).settled, 120_000, `${m.namespace} to be adopted`)));

    // ---- chaos ----
    log(`chaos for ${opts.chaosMs / 1000}s: faults at ${opts.faultRate * 100}%, ${opts.kills} kills, kube-controller-manager down for ${opts.outageMs / 1000}s`);
    kube.plan.setEnabled(true);
    dynamo.plan.setEnabled(true);
    const chaosStart = Date.now();
    const chaosEnd = chaosStart + opts.chaosMs;
    /** The outage as it happened (left out of the coverage: no controller, no pod moves). */
    const outageWindow = { from: chaosEnd, to: chaosEnd };
    const actors = fleet.map((m, i) => actor(m, new Random(opts.seed * 1000 + i), api, watchers.get(m.namespace) as InvariantWatcher | SetWatcher, cluster.admin.makeApiClient(AppsV1Api), chaosEnd, violations));
    const killer = (async () => {
      // Kill times drawn up front over the chaos window (not intervals after each restart, whose
      // own duration would push the last kills past its end): one kill in each of `kills` equal
      // slots, at a seeded point of the slot; a kill whose time passed during a slow restart
      // happens as soon as local mode is up again.
      const krng = new Random(opts.seed + 7);
      const slot = (opts.chaosMs * 0.95) / opts.kills;
      const at = Array.from({ length: opts.kills }, (_, k) => chaosStart + slot * (k + krng.float()));
      for (const when of at) {
        await sleep(when - Date.now());
        if (Date.now() >= chaosEnd) break;
        serveLog(serve);
        await (serve as ServeProcess).kill9();
        kills += 1;
        const restarting = Date.now();
        serve = await ServeProcess.start(home, serveArgs, env);
        restarts.push(Date.now() - restarting);
      }
    })();
    const outage = (async () => {
      await sleep(opts.outageAtMs);
      log('stopping kube-controller-manager');
      outageWindow.from = Date.now();
      await cluster.stopComponent('kube-controller-manager');
      await sleep(opts.outageMs);
      await cluster.startComponent('kube-controller-manager');
      outageWindow.to = Date.now();
      log('kube-controller-manager is back');
    })();
    await Promise.all([...actors, killer, outage]);
    const kubeAtEnd = { total: kube.plan.totalRequests(), ...kube.plan.summary() };
    const dynamoAtEnd = { total: dynamo.plan.totalRequests(), ...dynamo.plan.summary() };

    // ---- drain: no more faults; every release is brought to an end ----
    log('draining: faults off, approving and resuming until every rollout is settled');
    kube.plan.setEnabled(false);
    dynamo.plan.setEnabled(false);
    await Promise.all(fleet.map((m) => drain(m, api, status, watchers.get(m.namespace) as InvariantWatcher | SetWatcher, violations)));

    // ---- checks on the stored history ----
    const store = new DynamoStateStore({ client: dynalite.client, tableName: 'rollouts' });
    let releases = 0;
    const evidence: Record<string, string[]> = {};
    const releaseEnds: Record<string, number> = {};
    for (const m of fleet) {
      const key = { cluster: LOCAL_CLUSTER, namespace: m.namespace, name: m.name };
      const history = await store.listHistory(key);
      const verdict = checkHistory(m.namespace, m.steps, history, (await store.load(key)).state.state, api.accepted.get(`${m.namespace}/${m.name}`) ?? []);
      violations.push(...verdict.violations);
      // The stored history beside what the user sent, in time order (kept for the rollouts with a violation).
      const lines = [...history.map((e) => `${e.at} ${e.releaseId} ${e.type}${e.commandId ? ` [${e.commandId}]` : ''}: ${e.message}`), ...(api.sent.get(`${m.namespace}/${m.name}`) ?? [])];
      evidence[m.namespace] = byTime(lines);
      releases += verdict.releases;
      for (const [k, n] of Object.entries(verdict.ends)) releaseEnds[k] = (releaseEnds[k] ?? 0) + n;
    }

    // ---- hand-back: delete every rollout; the workload must be exactly the user's again ----
    log('deleting every rollout: each workload goes back to its user');
    for (const m of fleet) {
      const code = await api.command(m.namespace, m.name, 'delete');
      if (code !== 202 && code !== 200) violations.push(`${m.namespace}: delete answered ${code}`);
    }
    await Promise.all(fleet.map(async (m) => {
      await waitUntil(async () => (await api.call('GET', api.rolloutPath(m.namespace, m.name))).status === 404, 120_000, `${m.namespace} to be deleted`)
        .catch((err: unknown) => violations.push(String(err)));
      await waitUntil(() => nativelySettled(cluster.admin, m), 120_000, `${m.namespace} to settle natively after the hand-back`).catch((err: unknown) => violations.push(String(err)));
      const diff = await handBackDiff(cluster.admin, m);
      if (diff) violations.push(diff);
    }));
    // Writes still waiting for their Deployment's watch are judged before anything is counted.
    await Promise.all([...watchers.values()].map((w) => w.settle()));
    for (const [ns, w] of watchers) for (const v of w.violations) violations.push(`${ns}: ${v}`);
    const window = { from: chaosStart, to: chaosEnd, leaveOut: outageWindow };
    const coverage = {
      deployments: coverageSummary(mergeCoverage(fleet.filter((m) => m.kind !== 'StatefulSet').map((m) => (watchers.get(m.namespace) as InvariantWatcher).coverage(window)))),
      statefulSets: coverageSummary(mergeCoverage(fleet.filter((m) => m.kind === 'StatefulSet').map((m) => (watchers.get(m.namespace) as SetWatcher).coverage(window)))),
    };
    for (const ns of Object.keys(evidence)) if (!violations.some((v) => v.startsWith(ns))) delete evidence[ns];
    if (Object.keys(evidence).length > 0) {
      for (const e of cluster.auditEvents()) {
        const ns = e.objectRef?.namespace;
        if (!ns || !evidence[ns] || !['create', 'update', 'patch', 'delete'].includes(e.verb)) continue;
        const who = e.userAgent?.split('/')[0] ?? e.user.username;
        const replicas = (e.requestObject as { spec?: { replicas?: unknown } } | undefined)?.spec?.replicas;
        (evidence[ns] as string[]).push(`${e.requestReceivedTimestamp} cluster ${who} ${e.verb} ${e.objectRef?.resource}/${e.objectRef?.name}${e.objectRef?.subresource ? `/${e.objectRef.subresource}` : ''}${replicas === undefined ? '' : ` replicas=${String(replicas)}`} ${JSON.stringify(e.requestObject ?? null).slice(0, 600)} → ${e.responseStatus?.code ?? '?'}`);
      }
      for (const ns of Object.keys(evidence)) evidence[ns] = byTime(evidence[ns] as string[]);
    }
    const rewatches = [...watchers.values()].reduce((n, w) => n + w.rewatches, 0);

    const accepted = [...api.accepted.values()].reduce((n, ids) => n + ids.length, 0);
    return {
      seed: opts.seed,
      options: { seed: opts.seed, rollouts: opts.rollouts, chaosMs: opts.chaosMs, kills: opts.kills, outageAtMs: opts.outageAtMs, outageMs: opts.outageMs, faultRate: opts.faultRate, podReadyDelayMs: opts.podReadyDelayMs ?? 400 },
      durationSeconds: Math.round((Date.now() - started) / 1000),
      rollouts: Object.fromEntries(['MinReadySeconds', 'Partition', 'StatefulSet'].map((k) => [k, fleet.filter((m) => m.kind === k).length])),
      releases,
      releaseEnds,
      commandsAccepted: accepted,
      apiRequests: api.requests,
      kills,
      restartSeconds: { median: seconds(median(restarts)), max: seconds(Math.max(0, ...restarts)) },
      outage: { component: 'kube-controller-manager', seconds: opts.outageMs / 1000 },
      kube: { requests: kubeAtEnd.total, faults: sum(kubeAtEnd.faults), faultRate: ratio(sum(kubeAtEnd.faults), kubeAtEnd.total), byVerb: kubeAtEnd.requests, faultsByKind: kubeAtEnd.faults },
      dynamodb: { requests: dynamoAtEnd.total, faults: sum(dynamoAtEnd.faults), faultRate: ratio(sum(dynamoAtEnd.faults), dynamoAtEnd.total), byOperation: dynamoAtEnd.requests, faultsByKind: dynamoAtEnd.faults },
      watcherRewatches: rewatches,
      violations,
      coverage,
      evidence,
    };
  } finally {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch {
        // best effort: stop everything else
      }
    }
    rmSync(work, { recursive: true, force: true });
  }
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await sleep(500);
  }
  throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function ratio(a: number, b: number): number {
  return b === 0 ? 0 : Math.round((a / b) * 10_000) / 10_000;
}

/** Evidence lines in time order (to the millisecond); lines of the same instant keep their order (history by seq). */
function byTime(lines: string[]): string[] {
  return [...lines].sort((a, b) => a.slice(0, 23).localeCompare(b.slice(0, 23)));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : (sorted[Math.floor((sorted.length - 1) / 2)] as number);
}

function seconds(ms: number): number {
  return Math.round(ms / 100) / 10;
}

function sum(counts: Record<string, number>): number {
  return Object.values(counts).reduce((a, b) => a + b, 0);
}
