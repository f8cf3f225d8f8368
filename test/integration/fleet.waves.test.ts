// A platform team's fleet release on one machine: `npm start -- --clusters 3` (three real control
// planes registered as c1 ring=canary, c2 and c3 ring=rest, dynalite inside local mode), driven
// through the CLI and kubectl as a user would, the engine acting in each cluster as the documented
// minimal role (the sandbox's serverless-rollouts user, infra/k8s/rollouts-rbac.yaml). The waves:
// [canary: c1] → approval → [rest: c2, c3, maxConcurrency 1]. A fleet watcher on all three clusters
// (bench/testbed/fleetWatcher.ts) judges, at every pod event: no new pod in c2 or c3 before c1 is
// done and the approval given; never c2 and c3 releasing at once; each member's first batch in full
// before more. Beside it, each cluster's own contract (InvariantWatcher: availability, surge, the
// approval cap holding c2 and c3 at zero new pods). Then the same with a GitOps-style change (kubectl
// set image in all three at once), a kill -9 of local mode in wave 2, after which it goes on, and
// c2's kube-apiserver stopped (SIGSTOP) while c2 releases: the fleet waits naming c2, c3 does not
// start, and when the apiserver runs again (SIGCONT) the release goes on to the end. Then an
// after-wave Prometheus gate (a real Prometheus scraping a test exporter) failing after the canary
// wave: the fleet halts and, with rollbackOnFailure, c1 returns to its stable version while c2 and
// c3 get no pod of the new one. Then clusters leaving and joining mid-run: c3 deregistered at rest
// (its member hands the Deployment back), registered again once the release runs (it joins the last
// wave, its labels' ring=rest), c2 deregistered while it waits its turn (it leaves, handed back), c3
// refusing to leave while its release is under way; the run completes on c1 and c3. Last, release
// windows read in each cluster's own zone: a window open now in c2's zone (America/New_York) and
// closed in c1's (Europe/Dublin) and c3's (Australia/Sydney), from the real clock: c2 releases, c1
// and c3 wait with the window named.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { runKubectl } from '../../shared/adapters/local/controlplane/kubectl.ts';
import { readProcessRecords } from '../../shared/adapters/local/controlplane/processRecords.ts';
import type { ClusterRegistration, HistoryEntry } from '../../shared/ports.ts';
import type { ReleaseState } from '../../shared/rollout/types.ts';
import type { FleetState } from '../../shared/fleet/types.ts';
import { FleetWatcher } from '../../bench/testbed/fleetWatcher.ts';
import { InvariantWatcher } from '../../bench/testbed/invariants.ts';
import { rawGet } from '../../bench/testbed/namespaceWatch.ts';
import { ServeProcess, cleanEnv, ourProcesses, rolloutsAt } from '../../bench/testbed/localModeProcess.ts';
import { waitFor } from '../../bench/testbed/wait.ts';
import { startPrometheus, startTestExporter } from '../support/prometheus.ts';

const home = mkdtempSync(path.join(tmpdir(), 'rollouts-fleet-'));
const env = cleanEnv();
const SERVE_ARGS = ['--clusters', '3', '--pod-ready-ms', '300', '--verbose'];
const CLUSTERS = ['c1', 'c2', 'c3'] as const;
const REPLICAS = 4;
const FIRST_BATCH = 1;
const WAVES = [{ name: 'canary', clusters: ['c1'], maxConcurrency: 1 }, { name: 'rest', clusters: ['c2', 'c3'], maxConcurrency: 1 }];
/** Three control planes start one after the other: a safety net for a loaded machine, not a measure. */
const START_TIMEOUT_MS = 420_000;
const fleetFile = path.join(home, 'fleet.yaml');
const kubeconfig = path.join(home, 'kubeconfig');
let serve: ServeProcess;
const admins: Record<string, KubeConfig> = {};

const cli = (...args: string[]) => rolloutsAt(home, env, ...args);

/**
 * The fleet's STATE from local mode's API, as `rollouts fleet get web -o json` (and `--watch`) reads
 * it: polled over HTTP, not by starting a CLI process four times a second on a two-core machine.
 */
async function fleetState(): Promise<FleetState> {
  const endpoint = readFileSync(path.join(home, 'endpoint'), 'utf8').trim();
  const res = await fetch(new URL('/v1/fleets/web', endpoint));
  assert.equal(res.status, 200, await res.clone().text());
  return ((await res.json()) as { state: FleetState }).state;
}

/** One request to local mode's API, as the CLI would send it. */
async function apiCall(method: string, route: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const endpoint = readFileSync(path.join(home, 'endpoint'), 'utf8').trim();
  const res = await fetch(new URL(route, endpoint), { method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** A member's STATE as `rollouts get web --cluster <c> -o json` shows it; null when it has none (404). */
async function memberState(cluster: string): Promise<ReleaseState | null> {
  const r = await apiCall('GET', `/v1/rollouts/${cluster}/default/web`);
  if (r.status === 404) return null;
  assert.equal(r.status, 200, JSON.stringify(r.json));
  return (r.json as { state: ReleaseState }).state;
}

interface DeploymentObject { metadata: { annotations?: Record<string, string> }; spec: { paused?: boolean; replicas: number; strategy: { type: string } } }

/** The Deployment web as its cluster has it: handed back (no hold of ours left) or not. */
async function deployment(cluster: string): Promise<DeploymentObject> {
  return await rawGet(admins[cluster] as KubeConfig, '/apis/apps/v1/namespaces/default/deployments/web') as DeploymentObject;
}

function assertHandedBack(cluster: string, d: DeploymentObject): void {
  assert.notEqual(d.spec.paused, true, `${cluster}: the Deployment controller runs web again`);
  assert.deepEqual(Object.keys(d.metadata.annotations ?? {}).filter((k) => k.startsWith('rollouts.kruise.io/original-') || k.startsWith('rollouts.serverless-rollouts.io/')), [], `${cluster}: no annotation of ours left on web`);
  assert.deepEqual([d.spec.replicas, d.spec.strategy.type], [REPLICAS, 'RollingUpdate'], `${cluster}: the user's replicas and strategy`);
}

async function fleetHistory(): Promise<HistoryEntry[]> {
  const r = await cli('fleet', 'history', 'web', '-o', 'json');
  assert.equal(r.code, 0, r.err);
  return (JSON.parse(r.out) as { history: HistoryEntry[] }).history;
}

/** The member of `cluster` at its first step's own approval (pause: {}), then approved. */
async function approveMemberStep(cluster: string): Promise<void> {
  await waitFor(async () => (await memberState(cluster))?.release?.stepState === 'StepPaused', { message: `${cluster} to wait at its first step`, timeoutMs: 120_000, intervalMs: 250 });
  const r = await cli('approve', 'web', '--cluster', cluster);
  assert.equal(r.code, 0, r.err);
}

async function memberHistory(cluster: string): Promise<HistoryEntry[]> {
  const r = await cli('history', 'web', '--cluster', cluster, '-o', 'json');
  assert.equal(r.code, 0, r.err);
  return (JSON.parse(r.out) as { history: HistoryEntry[] }).history;
}

interface PodList { items: { metadata: { deletionTimestamp?: string }; spec: { containers: { name: string; image: string }[] } }[] }

/** Images of the live pods of web in a cluster, as its apiserver lists them now. */
async function liveImages(cluster: string): Promise<string[]> {
  const pods = await rawGet(admins[cluster] as KubeConfig, '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb') as PodList;
  return pods.items.filter((p) => p.metadata.deletionTimestamp === undefined).map((p) => p.spec.containers.find((c) => c.name === 'app')?.image ?? '').sort();
}

async function kubectl(cluster: string, ...args: string[]): Promise<void> {
  const r = await runKubectl(kubeconfig, ['--context', cluster, ...args]);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')} in ${cluster}: ${r.stderr}`);
}

/** Loads the kubeconfig local mode wrote (the planes keep their ports and tokens across restarts). */
function loadAdmins(): void {
  for (const c of CLUSTERS) {
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    kc.setCurrentContext(c);
    admins[c] = kc;
  }
}

/** Stops (SIGSTOP) or continues (SIGCONT) a cluster's kube-apiserver: its process group, from the plane's own records. */
function signalApiserver(cluster: string, signal: 'SIGSTOP' | 'SIGCONT'): void {
  const records = readProcessRecords(path.join(home, 'fleet', cluster)).filter((r) => r.name === 'kube-apiserver');
  assert.equal(records.length, 1, `${cluster} has one kube-apiserver recorded`);
  process.kill(-records[0]!.pgid, signal);
}

/** Releases `image`, approves after the canary wave, and returns once c2's first new pod is there (watchers stopped and judged). */
async function intoWaveTwo(image: string): Promise<{ startedAt: string; id: string }> {
  const w = await watch(image);
  const released = await cli('fleet', 'release', 'web', '--image', `app=${image}`);
  assert.equal(released.code, 0, released.err);
  const started = await waitFor(async () => (await fleetState()).release, { message: 'the fleet release to start', timeoutMs: 30_000 });
  await waitFor(async () => (await fleetState()).cause?.kind === 'Approval', { message: 'the approval wait', timeoutMs: 120_000, intervalMs: 250 });
  w.fleet.openWave(1);
  for (const c of ['c2', 'c3']) w.own[c]!.capPods(image, Number.POSITIVE_INFINITY);
  assert.equal((await cli('fleet', 'approve', 'web')).code, 0);
  await waitFor(() => w.fleet.startOrder().includes('c2'), { message: 'c2 to start releasing', timeoutMs: 120_000, intervalMs: 50 });
  w.fleet.stop();
  for (const c of CLUSTERS) w.own[c]!.stop();
  w.fleet.assertClean();
  for (const c of CLUSTERS) w.own[c]!.assertClean();
  assert.deepEqual(w.fleet.startOrder(), ['c1', 'c2']);
  return started;
}

/** Watches again from here (c1 done, c2 under way, c3 not started) until every cluster runs `image`; judges, and checks each released once. */
async function finishWaveTwo(image: string, started: { startedAt: string; id: string }): Promise<void> {
  const again = await FleetWatcher.start(admins, { namespace: 'default', selector: 'app=web', container: 'app', image, replicas: REPLICAS, firstBatch: FIRST_BATCH, waves: WAVES, openWaves: [1] });
  try {
    await waitFor(async () => {
      const s = await fleetState();
      return s.lastRelease?.id === started.id && s.phase === 'Completed' ? s : null;
    }, { message: `fleet release ${started.id} to complete`, timeoutMs: 180_000, intervalMs: 250 });
    await waitFor(() => again.allDone(), { message: 'every cluster on the new version', timeoutMs: 30_000 });
  } finally {
    again.stop();
  }
  again.assertClean();
  // Seen from the watch's start: c1 already done, c2 already under way (or done), c3 from zero.
  assert.deepEqual(again.startOrder(), ['c1', 'c2', 'c3'], 'c3 started last, once c2 was done');
  for (const c of CLUSTERS) assert.equal((await releasesSince(c, started.startedAt)).length, 1, `${c} released once since ${started.id} started`);
  for (const c of CLUSTERS) assert.deepEqual(await liveImages(c), Array(REPLICAS).fill(image), `${c} on ${image}`);
}

/** The hour on a zone's wall clock at `at`. */
function localHour(at: Date, timeZone: string): number {
  return Number(new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', hourCycle: 'h23' }).format(at));
}

const hh = (h: number): string => `${String(h).padStart(2, '0')}:00`;

/**
 * Windows (every day, no zone: each cluster's own) open from the current hour in `zone` for two
 * hours, as two windows across midnight when needed (a window does not cross midnight).
 */
function windowsOpenNowIn(zone: string, at: Date): { start: string; end: string }[] {
  const h = localHour(at, zone);
  return h + 2 <= 24 ? [{ start: hh(h), end: h + 2 === 24 ? '24:00' : hh(h + 2) }] : [{ start: hh(h), end: '24:00' }, { start: '00:00', end: hh(h + 2 - 24) }];
}

function inWindows(windows: { start: string; end: string }[], hour: number): boolean {
  return windows.some((w) => hour >= Number(w.start.slice(0, 2)) && hour < (w.end === '24:00' ? 24 : Number(w.end.slice(0, 2))));
}

/** The fleet watcher and one InvariantWatcher per cluster, c2 and c3 capped at zero new pods until the approval. */
async function watch(image: string): Promise<{ fleet: FleetWatcher; own: Record<string, InvariantWatcher> }> {
  const fleet = await FleetWatcher.start(admins, { namespace: 'default', selector: 'app=web', container: 'app', image, replicas: REPLICAS, firstBatch: FIRST_BATCH, waves: WAVES });
  const own: Record<string, InvariantWatcher> = {};
  for (const c of CLUSTERS) {
    own[c] = await InvariantWatcher.start(admins[c] as KubeConfig, 'default', 'web');
    if (c !== 'c1') own[c].capPods(image, 0);
  }
  return { fleet, own };
}

/** Waits for wave 1's approval, checks the clusters hold, approves (lifting the caps), and waits for the end. */
async function approveAndFinish(w: Awaited<ReturnType<typeof watch>>, image: string, releaseId: string): Promise<FleetState> {
  const waiting = await waitFor(async () => {
    const s = await fleetState();
    return s.release?.id === releaseId && s.cause?.kind === 'Approval' ? s : null;
  }, { message: 'the fleet to wait for the approval after the canary wave', timeoutMs: 120_000, intervalMs: 250 });
  assert.deepEqual(waiting.release?.waves.map((wave) => [wave.spec.name, wave.state, wave.members.map((m) => `${m.cluster}:${m.status}`)]), [
    ['canary', 'AfterWave', ['c1:Completed']],
    ['rest', 'Pending', ['c2:Waiting', 'c3:Waiting']],
  ]);
  assert.deepEqual(await liveImages('c1'), Array(REPLICAS).fill(image), 'the canary cluster runs the new version');
  for (const c of ['c2', 'c3']) assert.ok(!(await liveImages(c)).includes(image), `${c} has no pod of ${image} while the approval waits`);
  w.fleet.openWave(1);
  for (const c of ['c2', 'c3']) {
    w.own[c]!.beginCommand();
    w.own[c]!.capPods(image, Number.POSITIVE_INFINITY);
  }
  const approved = await cli('fleet', 'approve', 'web');
  for (const c of ['c2', 'c3']) w.own[c]!.endCommand(approved.code === 0);
  assert.equal(approved.code, 0, approved.err);
  const done = await waitFor(async () => {
    const s = await fleetState();
    return s.lastRelease?.id === releaseId && s.phase === 'Completed' ? s : null;
  }, { message: `fleet release ${releaseId} to complete`, timeoutMs: 180_000, intervalMs: 250 });
  await waitFor(() => w.fleet.allDone(), { message: 'every cluster to show the new version on every pod', timeoutMs: 30_000 });
  return done;
}

async function judge(w: Awaited<ReturnType<typeof watch>>): Promise<void> {
  for (const c of CLUSTERS) await w.own[c]!.settle();
  w.fleet.stop();
  for (const c of CLUSTERS) w.own[c]!.stop();
  w.fleet.assertClean();
  for (const c of CLUSTERS) w.own[c]!.assertClean();
  assert.deepEqual(w.fleet.startOrder(), ['c1', 'c2', 'c3'], 'the canary first, then c2 and c3 one after the other (by name)');
}

/** The releases a member started since a fleet release started (its history, as `rollouts history` shows it). */
async function releasesSince(cluster: string, since: string): Promise<HistoryEntry[]> {
  return (await memberHistory(cluster)).filter((h) => h.type === 'Release Started' && Date.parse(h.at) >= Date.parse(since));
}

describe('fleet release over three clusters through local mode', () => {
  before(async () => {
    writeFileSync(fleetFile, [
      'apiVersion: rollouts.serverless-rollouts.io/v1alpha1',
      'kind: FleetRollout',
      'metadata: {name: web}',
      'spec:',
      '  workload: {namespace: default, kind: Deployment, name: web}',
      '  clusterSelector: {matchLabels: {env: sandbox}}',
      '  template:',
      '    spec:',
      '      strategy: {canary: {steps: [{replicas: 1, pause: {duration: 1}}, {replicas: 100%}]}}',
      '  waves:',
      '    - {name: canary, selector: {matchLabels: {ring: canary}}, after: {approval: true}}',
      '    - {name: rest, maxConcurrency: 1}',
      '',
    ].join('\n'));
    serve = await ServeProcess.start(home, SERVE_ARGS, env, { timeoutMs: START_TIMEOUT_MS });
    loadAdmins();
    // Small, so three clusters release in seconds: the demo's 10 replicas scaled down natively first.
    for (const c of CLUSTERS) await kubectl(c, 'scale', 'deployment/web', `--replicas=${REPLICAS}`);
    for (const c of CLUSTERS) await waitFor(async () => (await liveImages(c)).length === REPLICAS, { message: `${c}: ${REPLICAS} pods of web`, timeoutMs: 60_000 });
  });

  after(async () => {
    for (const c of CLUSTERS) {
      try {
        signalApiserver(c, 'SIGCONT');
      } catch {
        // Not running.
      }
    }
    await serve?.interrupt();
    for (const p of ourProcesses(home)) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // Gone.
      }
    }
    rmSync(home, { recursive: true, force: true });
  });

  test('local mode registered c1..c3 with their labels and zones, and the fleet takes c1 as canary, c2 and c3 as the rest', async () => {
    const r = await cli('clusters', 'list', '-o', 'json');
    assert.equal(r.code, 0, r.err);
    const clusters = (JSON.parse(r.out) as { clusters: { name: string; labels: Record<string, string>; timeZone: string }[] }).clusters;
    assert.deepEqual(clusters.map((c) => [c.name, c.labels.ring, c.timeZone]), [['c1', 'canary', 'Europe/Dublin'], ['c2', 'rest', 'America/New_York'], ['c3', 'rest', 'Australia/Sydney']]);
    const applied = await cli('fleet', 'apply', '-f', fleetFile);
    assert.equal(applied.code, 0, applied.err);
    // Each member adopts its cluster's Deployment at rest.
    for (const c of CLUSTERS) {
      await waitFor(async () => {
        const got = await cli('get', 'web', '--cluster', c, '-o', 'json');
        return got.code === 0 && (JSON.parse(got.out) as { state: { stableRevision: string | null } }).state.stableRevision;
      }, { message: `the member in ${c} to adopt web`, timeoutMs: 60_000, intervalMs: 250 });
    }
  });

  test('rollouts fleet release: the canary cluster, the approval, then c2 and c3 one at a time, each in its batches', async () => {
    const image = 'nginx:1.28';
    const w = await watch(image);
    const released = await cli('fleet', 'release', 'web', '--image', `app=${image}`);
    assert.equal(released.code, 0, released.err);
    const started = await waitFor(async () => (await fleetState()).release, { message: 'the fleet release to start', timeoutMs: 30_000 });
    await approveAndFinish(w, image, started.id);
    await judge(w);
    for (const c of CLUSTERS) assert.deepEqual(await liveImages(c), Array(REPLICAS).fill(image), `${c} on ${image}`);
    for (const c of CLUSTERS) assert.equal((await releasesSince(c, started.startedAt)).length, 1, `${c} released once`);
  });

  test('GitOps style: kubectl set image in all three clusters at once is held, and released in the same paced order', async () => {
    const image = 'nginx:1.29';
    const w = await watch(image);
    const before = (await fleetState()).releaseSeq;
    await Promise.all(CLUSTERS.map((c) => kubectl(c, 'set', 'image', 'deployment/web', `app=${image}`)));
    const started = await waitFor(async () => {
      const s = await fleetState();
      return s.releaseSeq > before && s.release ? s.release : null;
    }, { message: 'the fleet to start a release of the held templates', timeoutMs: 60_000 });
    assert.equal(started.change, null, 'a release of the templates the members hold');
    await approveAndFinish(w, image, started.id);
    await judge(w);
    for (const c of CLUSTERS) assert.deepEqual(await liveImages(c), Array(REPLICAS).fill(image), `${c} on ${image}`);
  });

  test('kill -9 of local mode in wave 2: the next start goes on, no cluster released twice, no wave early', async () => {
    const image = 'nginx:1.30';
    const started = await intoWaveTwo(image);
    await serve.kill9();
    await waitFor(() => ourProcesses(home).length === 0, { message: 'nothing of ours left after kill -9', timeoutMs: 30_000 });
    serve = await ServeProcess.start(home, SERVE_ARGS, env, { timeoutMs: START_TIMEOUT_MS });
    loadAdmins();
    await finishWaveTwo(image, started);
  });

  test('c2\'s apiserver stopped while c2 releases: the fleet waits naming c2, c3 does not start; running again, it goes on', async () => {
    const image = 'nginx:1.31';
    const started = await intoWaveTwo(image);
    signalApiserver('c2', 'SIGSTOP');
    try {
      const waiting = await waitFor(async () => {
        const s = await fleetState();
        return s.cause?.kind === 'ClusterUnreachable' && s.cause.cluster === 'c2' ? s : null;
      }, { message: 'the fleet to name c2 unreachable', timeoutMs: 120_000, intervalMs: 500 });
      assert.match(waiting.message, /c2/);
      const shown = await cli('fleet', 'get', 'web');
      assert.equal(shown.code, 0, shown.err);
      assert.match(shown.out, /c2.*unreachable/i, 'fleet get names c2 as the blocker');
      assert.ok(!(await liveImages('c3')).includes(image), 'c3 has not started');
    } finally {
      signalApiserver('c2', 'SIGCONT');
    }
    await finishWaveTwo(image, started);
  });

  test('an after-wave Prometheus gate failing after the canary wave: the fleet halts, rollbackOnFailure returns c1 to stable, and c2 and c3 get nothing', async () => {
    const exporter = await startTestExporter();
    const prometheus = await startPrometheus({ targets: [exporter.target] });
    try {
      await prometheus.waitForTargets();
      exporter.set('app_errors_ratio', 0.3, { app: 'web' });
      await waitFor(async () => Number((await prometheus.query('app_errors_ratio{app="web"}'))[0]?.value[1]) === 0.3, { message: 'Prometheus to scrape the error rate' });
      const gated = path.join(home, 'fleet-gated.yaml');
      writeFileSync(gated, readFileSync(fleetFile, 'utf8')
        .replace('after: {approval: true}', `after: {gates: [{name: errors, interval: 1s, failureLimit: 0, prometheus: {url: "${prometheus.url}", query: 'app_errors_ratio{app="web"}', condition: "< 0.05"}}]}`)
        .replace('  waves:', '  rollbackOnFailure: true\n  waves:'));
      const applied = await cli('fleet', 'apply', '-f', gated);
      assert.equal(applied.code, 0, applied.err);
      const stable = await liveImages('c1');
      const image = 'nginx:1.33';
      const watcher = await FleetWatcher.start(admins, { namespace: 'default', selector: 'app=web', container: 'app', image, replicas: REPLICAS, firstBatch: FIRST_BATCH, waves: WAVES });
      let ended: FleetState;
      try {
        const released = await cli('fleet', 'release', 'web', '--image', `app=${image}`);
        assert.equal(released.code, 0, released.err);
        const started = await waitFor(async () => (await fleetState()).release, { message: 'the fleet release to start', timeoutMs: 30_000 });
        ended = await waitFor(async () => {
          const s = await fleetState();
          return s.lastRelease?.id === started.id && s.release === null ? s : null;
        }, { message: 'the fleet release to halt and roll back', timeoutMs: 180_000, intervalMs: 250 });
      } finally {
        watcher.stop();
      }
      // The canary released (the watcher saw it start and finish), and nothing else ever started.
      watcher.assertClean();
      assert.deepEqual(watcher.startOrder(), ['c1'], 'only the canary cluster released');
      assert.equal(ended.phase, 'RolledBack', ended.message);
      assert.match(ended.lastRelease?.endReason ?? '', /^after-wave gate errors of wave canary failed: .*0\.3/);
      assert.deepEqual(ended.lastRelease?.waves.map((w) => w.members.map((m) => `${m.cluster}:${m.status}`)), [['c1:RolledBack'], ['c2:Waiting', 'c3:Waiting']]);
      const types = (await fleetHistory()).filter((h) => h.releaseId === ended.lastRelease?.id).map((h) => h.type);
      for (const t of ['Fleet Wave Released', 'Fleet Gate Failed', 'Fleet Halted', 'Fleet Rollback Started', 'Fleet Rolled Back']) assert.ok(types.includes(t), `fleet history has ${t}: ${types.join(', ')}`);
      await waitFor(async () => JSON.stringify(await liveImages('c1')) === JSON.stringify(stable), { message: 'c1 back on its stable version on every pod', timeoutMs: 60_000 });
      assert.equal((await memberState('c1'))?.lastRelease?.kind, 'rollback', 'c1 rolled back by its own rollback');
      for (const c of ['c2', 'c3']) {
        assert.ok(!(await liveImages(c)).includes(image), `${c} has no pod of ${image}`);
        assert.equal((await releasesSince(c, ended.lastRelease?.startedAt ?? '')).length, 0, `${c} started no release`);
      }
    } finally {
      await prometheus.stop();
      await exporter.stop();
    }
  });

  test('clusters leave and join mid-run: c3 deregistered, then registered again joins the last wave; c2 deregistered while it waits leaves; c3 cannot leave mid-release; the run completes', async () => {
    // The fleet of the first tests, each member waiting at its first step for its own approval (so c3 is
    // mid-release for as long as the test needs).
    const joins = path.join(home, 'fleet-joins.yaml');
    writeFileSync(joins, readFileSync(fleetFile, 'utf8').replace('{replicas: 1, pause: {duration: 1}}', '{replicas: 1, pause: {}}'));
    const applied = await cli('fleet', 'apply', '-f', joins);
    assert.equal(applied.code, 0, applied.err);
    const registration = async (c: string) => ((await apiCall('GET', `/v1/clusters/${c}`)).json as { cluster: ClusterRegistration }).cluster;
    const c2reg = await registration('c2');
    const c3reg = await registration('c3');
    const before = await liveImages('c3');

    // c3 at rest leaves: its member hands web back exactly as the user had it, then the registration goes.
    const left = await cli('clusters', 'deregister', 'c3', '--wait');
    assert.equal(left.code, 0, left.err);
    assert.match(left.out, /^cluster\/c3 leaving: default\/web hands its workload back first\ncluster\/c3 deregistered\n$/);
    assert.equal(await memberState('c3'), null, 'the member in c3 is gone');
    assertHandedBack('c3', await deployment('c3'));
    assert.deepEqual(await liveImages('c3'), before, 'c3 runs what it ran');
    const listed = JSON.parse((await cli('clusters', 'list', '-o', 'json')).out) as { clusters: { name: string }[] };
    assert.deepEqual(listed.clusters.map((c) => c.name), ['c1', 'c2']);

    const image = 'nginx:1.34';
    const watcher = await FleetWatcher.start(admins, { namespace: 'default', selector: 'app=web', container: 'app', image, replicas: REPLICAS, firstBatch: FIRST_BATCH, waves: WAVES });
    try {
      const released = await cli('fleet', 'release', 'web', '--image', `app=${image}`);
      assert.equal(released.code, 0, released.err);
      const started = await waitFor(async () => (await fleetState()).release, { message: 'the fleet release to start', timeoutMs: 30_000 });
      assert.deepEqual(started.waves.map((w) => w.members.map((m) => m.cluster)), [['c1'], ['c2']]);

      // Registered again mid-run: c3 joins the last wave (ring=rest; no wave's selector picks it).
      assert.equal((await apiCall('PUT', '/v1/clusters/c3', c3reg)).status, 201);
      const joined = await waitFor(async () => {
        const s = await fleetState();
        return s.release?.waves[1]?.members.some((m) => m.cluster === 'c3') ? s : null;
      }, { message: 'c3 to join wave rest', timeoutMs: 60_000, intervalMs: 250 });
      assert.deepEqual(joined.release?.waves[1]?.members.map((m) => [m.cluster, m.status, m.late]), [['c2', 'Waiting', false], ['c3', 'Waiting', false]]);
      await waitFor(async () => (await memberState('c3'))?.stableRevision ?? null, { message: 'the member in c3 to adopt web again', timeoutMs: 60_000, intervalMs: 250 });

      await approveMemberStep('c1');
      await waitFor(async () => (await fleetState()).cause?.kind === 'Approval', { message: 'the approval wait after the canary wave', timeoutMs: 120_000, intervalMs: 250 });

      // c2 waits its turn (nothing of the release reached it): it may leave, handed back, and the run goes on.
      const c2left = await cli('clusters', 'deregister', 'c2', '--wait');
      assert.equal(c2left.code, 0, c2left.err);
      assert.equal(await memberState('c2'), null);
      assertHandedBack('c2', await deployment('c2'));
      const gone = (await fleetState()).release?.waves[1]?.members.find((m) => m.cluster === 'c2');
      assert.deepEqual([gone?.status, gone?.note], ['Left', 'left the fleet: it was deregistered']);

      watcher.openWave(1);
      assert.equal((await cli('fleet', 'approve', 'web')).code, 0);
      // c3 mid-release (at its own step approval): its leave is refused, naming the member and why; nothing changes.
      await waitFor(async () => (await memberState('c3'))?.release?.stepState === 'StepPaused', { message: 'c3 to wait at its first step', timeoutMs: 120_000, intervalMs: 250 });
      const refused = await cli('clusters', 'deregister', 'c3');
      assert.equal(refused.code, 1);
      assert.match(refused.err, /^name: fleet web's member default\/web in cluster c3 is mid-release: a release of revision \S+ is in flight \((Progressing|Paused): .*\); deregister once it has finished, or after rollouts fleet abort web has rolled it back\n$/);
      assert.equal((await registration('c3')).leaving, undefined, 'c3 is not leaving');
      await approveMemberStep('c3');

      const done = await waitFor(async () => {
        const s = await fleetState();
        return s.lastRelease?.id === started.id && s.phase === 'Completed' ? s : null;
      }, { message: `fleet release ${started.id} to complete`, timeoutMs: 180_000, intervalMs: 250 });
      assert.deepEqual(done.lastRelease?.waves.map((w) => w.members.map((m) => `${m.cluster}:${m.status}`)), [['c1:Completed'], ['c2:Left', 'c3:Completed']]);
      await waitFor(() => watcher.allDone() || (watcher.startOrder().join() === 'c1,c3' && watcher.timeline.filter((e) => e.what === 'done').length === 2), { message: 'c1 and c3 on the new version on every pod', timeoutMs: 30_000 });
      const types = (await fleetHistory()).filter((h) => h.releaseId === started.id).map((h) => `${h.type}${h.message.includes('c3 joined') ? ' c3' : h.message.includes('c2 left') ? ' c2' : ''}`);
      assert.ok(types.includes('Fleet Member Joined c3') && types.includes('Fleet Member Left c2'), types.join(', '));
    } finally {
      watcher.stop();
    }
    watcher.assertClean();
    assert.deepEqual(watcher.startOrder(), ['c1', 'c3'], 'c1, then c3 once approved; c2 never');
    for (const c of ['c1', 'c3']) assert.deepEqual(await liveImages(c), Array(REPLICAS).fill(image), `${c} on ${image}`);
    assert.ok(!(await liveImages('c2')).includes(image), 'c2 has no pod of the new version');

    // The sandbox as the next test expects it: c2 registered again, its member adopting web at rest.
    assert.equal((await apiCall('PUT', '/v1/clusters/c2', c2reg)).status, 201);
    await waitFor(async () => (await memberState('c2'))?.stableRevision ?? null, { message: 'the member in c2 to adopt web again', timeoutMs: 60_000, intervalMs: 250 });
  });

  test('release windows in each cluster\'s own time zone: open in c2\'s, closed in c1\'s and c3\'s; c2 releases, c1 and c3 wait naming the window', async () => {
    const now = new Date();
    const windows = windowsOpenNowIn('America/New_York', now);
    // What the zones make of the real clock now (they differ by 4 to 6 hours and 14 to 16 hours).
    assert.ok(inWindows(windows, localHour(now, 'America/New_York')), 'open in c2\'s zone');
    assert.ok(!inWindows(windows, localHour(now, 'Europe/Dublin')), 'closed in c1\'s zone');
    assert.ok(!inWindows(windows, localHour(now, 'Australia/Sydney')), 'closed in c3\'s zone');
    const days = '[Mon, Tue, Wed, Thu, Fri, Sat, Sun]';
    const windowed = path.join(home, 'fleet-windows.yaml');
    writeFileSync(windowed, [
      'apiVersion: rollouts.serverless-rollouts.io/v1alpha1',
      'kind: FleetRollout',
      'metadata: {name: web}',
      'spec:',
      '  workload: {namespace: default, kind: Deployment, name: web}',
      '  clusterSelector: {matchLabels: {env: sandbox}}',
      '  template:',
      '    spec:',
      '      strategy: {canary: {steps: [{replicas: 1, pause: {duration: 1}}, {replicas: 100%}]}}',
      `      releaseWindows: [${windows.map((w) => `{days: ${days}, start: "${w.start}", end: "${w.end}"}`).join(', ')}]`,
      '  waves:',
      '    - {name: all, maxConcurrency: 3}',
      '',
    ].join('\n'));
    const applied = await cli('fleet', 'apply', '-f', windowed);
    assert.equal(applied.code, 0, applied.err);
    const image = 'nginx:1.32';
    const watcher = await FleetWatcher.start(admins, { namespace: 'default', selector: 'app=web', container: 'app', image, replicas: REPLICAS, firstBatch: FIRST_BATCH, waves: [{ name: 'all', clusters: ['c1', 'c2', 'c3'], maxConcurrency: 3 }] });
    try {
      const released = await cli('fleet', 'release', 'web', '--image', `app=${image}`);
      assert.equal(released.code, 0, released.err);
      const waiting = await waitFor(async () => {
        const s = await fleetState();
        const members = s.release?.waves[0]?.members ?? [];
        return members.find((m) => m.cluster === 'c2')?.status === 'Completed' && s.cause?.kind === 'Window' ? s : null;
      }, { message: 'c2 to complete and the fleet to wait on a window', timeoutMs: 120_000, intervalMs: 250 });
      const members = Object.fromEntries((waiting.release?.waves[0]?.members ?? []).map((m) => [m.cluster, m]));
      for (const c of ['c1', 'c3']) {
        assert.equal(members[c]?.status, 'Waiting', c);
        assert.match(members[c]?.note ?? '', /outside its release windows; next opens at/, `${c} names its window`);
      }
      assert.match(waiting.message, /outside its release windows/);
      assert.ok(waiting.cause?.cluster === 'c1' || waiting.cause?.cluster === 'c3', 'the blocker is c1 or c3');
      await waitFor(() => watcher.startOrder().length === 1 && watcher.timeline.some((e) => e.cluster === 'c2' && e.what === 'done'), { message: 'the watcher to see c2 done', timeoutMs: 30_000 });
      assert.deepEqual(watcher.startOrder(), ['c2'], 'only c2 released');
      assert.deepEqual(await liveImages('c2'), Array(REPLICAS).fill(image));
      for (const c of ['c1', 'c3']) assert.ok(!(await liveImages(c)).includes(image), `${c} has no pod of ${image}`);
    } finally {
      watcher.stop();
    }
    watcher.assertClean();
  });
});
