// The README walk-through, end to end, as a user runs it: `rollouts serve --sandbox` (local mode on a
// fresh local control plane) in one child process, and the `rollouts` executable in others. Nothing
// in this process talks to the store, and every observation goes through the CLI; the cluster is
// only touched as a user would with kubectl and the kubeconfig local mode writes (a second Deployment).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { AppsV1Api, KubeConfig } from '@kubernetes/client-node';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitFor } from '../../bench/testbed/wait.ts';
import { REPO_ROOT, ROLLOUTS_BIN, runRollouts, type CliRun } from '../../bench/testbed/cliProcess.ts';

const root = REPO_ROOT;
const bin = ROLLOUTS_BIN;
const home = mkdtempSync(path.join(tmpdir(), 'rollouts-e2e-'));
const env = { ...process.env, ROLLOUTS_HOME: home, NO_COLOR: '1', ROLLOUTS_ENDPOINT: '', ROLLOUTS_CLUSTER: '', KUBECONFIG: '' };

function rollouts(...args: string[]): Promise<CliRun> {
  return runRollouts(args, env);
}

/** `get -o json`, parsed (the rollout's stored spec and state, and the live workload). */
async function getJson(name = 'web'): Promise<Record<string, any>> {
  const r = await rollouts('get', name, '-o', 'json');
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out) as Record<string, any>;
}

/** Waits until the release is paused for approval at step `index` (0-based). */
function awaitingApprovalAt(index: number, name = 'web'): Promise<unknown> {
  return waitFor(async () => {
    const { state } = await getJson(name);
    return state.release?.stepIndex === index && state.release.stepState === 'StepPaused';
  }, { message: `the release of ${name} to wait for approval at step ${index + 1}`, timeoutMs: 60_000, intervalMs: 250 });
}

/** Pods per image of the rollout's live workload, as `rollouts get -o json` shows it. */
async function podsByImage(name: string): Promise<Record<string, number>> {
  const { workload } = await getJson(name);
  return Object.fromEntries((workload.revisions as any[]).filter((r) => r.pods.length > 0).map((r) => [r.images.app, r.pods.length]));
}

/** Control-plane processes started for this test's data directory (their arguments name it). */
function sandboxProcesses(): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmd.includes(path.join(home, 'sandbox'))) found.push(`${pid} ${cmd.slice(0, 120)}`);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

let serve: ChildProcess;
let serveOutput = '';
let serveExit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

describe('rollouts CLI against local mode (the README walk-through)', () => {
  before(async () => {
    serve = spawn(process.execPath, [bin, 'serve', '--sandbox', '--pod-ready-ms', '200'], { cwd: root, env });
    serve.stdout?.on('data', (d: Buffer) => (serveOutput += d.toString()));
    serve.stderr?.on('data', (d: Buffer) => (serveOutput += d.toString()));
    serveExit = new Promise((resolve) => serve.once('exit', (code, signal) => resolve({ code, signal })));
    await waitFor(() => existsSync(path.join(home, 'endpoint')) || serve.exitCode !== null, { message: 'local mode to write its endpoint', timeoutMs: 180_000, intervalMs: 200 });
    assert.ok(existsSync(path.join(home, 'endpoint')), `serve exited early:\n${serveOutput}`);
  });

  after(async () => {
    // Also on failure: never leave local mode (and its control plane) behind.
    if (serve.exitCode === null && serve.signalCode === null) {
      serve.kill('SIGINT');
      await serveExit;
    }
    rmSync(home, { recursive: true, force: true });
  });

  test('apply, release, approve twice: status exits 0 once the release completed', async () => {
    const applied = await rollouts('apply', '-f', 'examples/rollout.yaml');
    assert.deepEqual([applied.code, applied.out], [0, 'rollout/web created\n'], applied.err);
    await waitFor(async () => (await getJson()).state.stableRevision, { message: 'the Deployment to be adopted', timeoutMs: 60_000, intervalMs: 250 });

    const released = await rollouts('release', 'web', '--image', 'app=nginx:1.28');
    assert.equal(released.code, 0, released.err);
    await awaitingApprovalAt(0);

    const screen = await rollouts('get', 'web');
    assert.equal(screen.code, 0, screen.err);
    assert.match(screen.out, /^ {2}Step: {10}1\/3$/m);
    assert.match(screen.out, /◀ awaiting approval/);
    assert.match(screen.out, /^Images: +nginx:1\.28 \(canary\)$/m);
    // The tree: revision 2's ReplicaSet (canary) holds exactly one pod, and it is ready.
    const canary = screen.out.slice(screen.out.indexOf('# revision:2'), screen.out.indexOf('# revision:1'));
    assert.match(canary, /ReplicaSet +✔ Healthy +\S+ +canary/);
    assert.equal(canary.match(/□ web-\S+ +Pod +✔ Running/g)?.length, 1, screen.out);

    assert.equal((await rollouts('approve', 'web')).code, 0);
    await awaitingApprovalAt(1);
    assert.equal((await rollouts('approve', 'web')).code, 0);

    const done = await rollouts('status', 'web', '--timeout', '2m');
    assert.equal(done.code, 0, `${done.out}${done.err}`);
    assert.match(done.out, /✔ Completed: /);
    const { workload } = await getJson();
    assert.deepEqual(workload.revisions.map((r: any) => [r.number, r.images.app, r.pods.length]), [[2, 'nginx:1.28', 10], [1, 'nginx:1.27', 0]]);
  });

  test('a second release, aborted: status exits non-zero', async () => {
    assert.equal((await rollouts('release', 'web', '--image', 'app=nginx:1.29')).code, 0);
    await awaitingApprovalAt(0);
    assert.equal((await rollouts('abort', 'web')).code, 0);
    const st = await rollouts('status', 'web', '--timeout', '2m');
    assert.equal(st.code, 1, st.out);
    assert.match(st.out, /✖ Aborted/);
    assert.equal(st.err, 'error: release of web ended Aborted\n');
  });

  test('an odd replica count, 7 replicas [1, 40%, 100%]: exactly 1, then 3, then 7; then deleted with --wait, saying what it restored', async () => {
    // As a user would with kubectl and the kubeconfig local mode wrote: a second Deployment.
    const kc = new KubeConfig();
    kc.loadFromFile(path.join(home, 'kubeconfig'));
    const labels = { app: 'api' };
    await kc.makeApiClient(AppsV1Api).createNamespacedDeployment({
      namespace: 'default',
      body: { metadata: { name: 'api' }, spec: { replicas: 7, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } } } },
    });
    const file = path.join(home, 'api-rollout.yaml');
    writeFileSync(file, [
      'apiVersion: rollouts.serverless-rollouts.io/v1alpha1', 'kind: Rollout', 'metadata: {name: api}', 'spec:',
      '  workloadRef: {apiVersion: apps/v1, kind: Deployment, name: api}',
      '  strategy: {canary: {steps: [{replicas: 1, pause: {}}, {replicas: 40%, pause: {}}, {replicas: 100%}]}}', '',
    ].join('\n'));
    assert.equal((await rollouts('apply', '-f', file)).code, 0);
    await waitFor(async () => (await getJson('api')).state.stableRevision, { message: 'api to be adopted', timeoutMs: 60_000, intervalMs: 250 });
    assert.equal((await rollouts('release', 'api', '--image', 'app=nginx:1.28')).code, 0);
    await awaitingApprovalAt(0, 'api');
    assert.equal((await podsByImage('api'))['nginx:1.28'], 1);
    assert.equal((await rollouts('approve', 'api')).code, 0);
    await awaitingApprovalAt(1, 'api');
    assert.equal((await podsByImage('api'))['nginx:1.28'], 3, '40% of 7 rounds up to 3');
    assert.equal((await rollouts('approve', 'api')).code, 0);
    assert.equal((await rollouts('status', 'api', '--timeout', '2m')).code, 0);
    await waitFor(async () => JSON.stringify(await podsByImage('api')) === JSON.stringify({ 'nginx:1.28': 7 }), { message: 'all 7 pods on nginx:1.28', timeoutMs: 30_000, intervalMs: 250 });

    const deleted = await rollouts('delete', 'api', '--wait', '--timeout', '1m');
    assert.equal(deleted.code, 0, deleted.err);
    assert.match(deleted.out, /^rollout\/api deleting: handing the workload back to its native controller$/m);
    assert.match(deleted.out, /rollout\/api deleted; restored on Deployment default\/api:\n {2}spec\.paused: false/);
    const get = await rollouts('get', 'api');
    assert.equal(get.code, 1);
    const api = await kc.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: 'api', namespace: 'default' });
    assert.notEqual(api.spec?.paused, true, 'handed back unpaused');
  });

  test('errors: an unknown rollout is one line and exit 1; a bad flag exits 2', async () => {
    const unknown = await rollouts('get', 'nope');
    assert.deepEqual([unknown.code, unknown.out, unknown.err], [1, '', 'error: rollout local/default/nope not found\n']);
    const bad = await rollouts('get', 'web', '--no-such-flag');
    assert.equal(bad.code, 2);
    assert.match(bad.err, /unknown option '--no-such-flag'/);
  });

  test('history lists the transitions of both releases', async () => {
    const h = await rollouts('history', 'web');
    assert.equal(h.code, 0, h.err);
    for (const event of ['Workload Adopted', 'Release Started', 'Step Approved', 'Release Completed', 'Rollback Started', 'Release Aborted']) assert.match(h.out, new RegExp(event));
  });

  test('a second serve on the same data directory refuses to start (it would wipe the running sandbox)', async () => {
    const second = await rollouts('serve', '--sandbox');
    assert.equal(second.code, 1);
    assert.match(second.err, /^error: local mode did not start: local mode is already running from .* \(process \d+\)/);
    assert.ok(existsSync(path.join(home, 'endpoint')), 'the running one is untouched');
  });

  test('with a kubeconfig whose cluster answers, serve drives that cluster instead of a sandbox', async () => {
    const otherHome = mkdtempSync(path.join(tmpdir(), 'rollouts-e2e-kubeconfig-'));
    const other = spawn(process.execPath, [bin, 'serve'], { cwd: root, env: { ...env, ROLLOUTS_HOME: otherHome, KUBECONFIG: path.join(home, 'kubeconfig') } });
    let output = '';
    other.stdout.on('data', (d: Buffer) => (output += d.toString()));
    other.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => other.once('exit', (code) => resolve(code)));
    try {
      const banner = /cluster {3}"local" = context "\S+" of \S+kubeconfig: https:\/\/127\.0\.0\.1:\d+ \(Kubernetes v\d/;
      // The endpoint file can appear before the banner's bytes reach this pipe (a CI run saw ''), so wait for both.
      await waitFor(() => (existsSync(path.join(otherHome, 'endpoint')) && banner.test(output)) || other.exitCode !== null, { message: 'the second local mode to start and print its banner', timeoutMs: 60_000 });
      assert.match(output, banner, output);
      assert.ok(!existsSync(path.join(otherHome, 'sandbox')), 'no sandbox started');
    } finally {
      other.kill('SIGINT');
      assert.equal(await exited, 0, output);
      rmSync(otherHome, { recursive: true, force: true });
    }
  });

  test('Ctrl-C stops local mode: exit 0, endpoint file removed, no control-plane process left', async () => {
    serve.kill('SIGINT');
    const exit = await serveExit;
    assert.deepEqual(exit, { code: 0, signal: null }, serveOutput);
    assert.equal(existsSync(path.join(home, 'endpoint')), false);
    assert.deepEqual(sandboxProcesses(), []);
    assert.match(serveOutput, /SIGINT: stopping/);
  });
});
