// kill -9 of `npm start` (the `rollouts serve` process itself) in the middle of a release, at three
// points: while the first batch's pods move, while step 1 waits for approval (with the control
// plane frozen, so nothing can stop by itself and the next start must clean up from its records),
// and while the second batch moves right after an approval. Each time: no process of ours is left
// (or, frozen, the next start stops them); what was stored at the moment of the kill (read from the
// data directory while nothing runs) is exactly what the next start goes on from: the same release,
// phase, step, history and commands; and in the end the release completes with every pod on the
// new revision. Everything goes through the CLI and the data directory, as a user would see it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedDynamo } from '../../shared/adapters/dynamodb/embedded.ts';
import { DynamoStateStore } from '../../shared/adapters/dynamodb/stateStore.ts';
import { readProcessRecords } from '../../shared/adapters/local/controlplane/processRecords.ts';
import { LOCAL_CLUSTER } from '../../shared/local/dataDir.ts';
import type { HistoryEntry } from '../../shared/ports.ts';
import type { ReleaseState } from '../../shared/rollout/types.ts';
import { ServeProcess, cleanEnv, ourProcesses, rolloutsAt } from '../../bench/testbed/localModeProcess.ts';
import { waitFor } from '../../bench/testbed/wait.ts';

const home = mkdtempSync(path.join(tmpdir(), 'rollouts-crash-'));
const env = cleanEnv();
const SERVE_ARGS = ['--sandbox', '--pod-ready-ms', '1500', '--verbose'];
const KEY = { cluster: LOCAL_CLUSTER, namespace: 'default', name: 'web' };
const rolloutFile = path.join(home, 'rollout.yaml');
let serve: ServeProcess;

const cli = (...args: string[]) => rolloutsAt(home, env, ...args);

async function getJson(): Promise<{ state: ReleaseState; workload: { revisions: { number: number; images: Record<string, string>; pods: unknown[] }[] } }> {
  const r = await cli('get', 'web', '-o', 'json');
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out);
}

async function history(): Promise<HistoryEntry[]> {
  const r = await cli('history', 'web', '-o', 'json');
  assert.equal(r.code, 0, r.err);
  return (JSON.parse(r.out) as { history: HistoryEntry[] }).history;
}

/** What the kill left in the data directory, read with the embedded DynamoDB while nothing runs. */
async function storedAtKill(): Promise<{ state: ReleaseState; history: HistoryEntry[] }> {
  const dynamo = await startEmbeddedDynamo({ path: path.join(home, 'sandbox', 'dynamodb'), tableName: 'rollouts' });
  try {
    const store = new DynamoStateStore({ client: dynamo.client, tableName: 'rollouts' });
    return { state: (await store.load(KEY)).state.state, history: await store.listHistory(KEY) };
  } finally {
    await dynamo.stop();
  }
}

/** After kill -9 nothing of ours may run: the supervisors end the components when serve dies. */
async function assertNothingLeft(): Promise<void> {
  await waitFor(() => ourProcesses(home).length === 0, { message: `no process of ours left: ${JSON.stringify(ourProcesses(home))}`, timeoutMs: 20_000, intervalMs: 100 });
}

/** Kills serve at once, checks nothing is left, and returns what was stored at that moment. */
async function kill9(opts: { freezeFirst?: boolean } = {}): Promise<{ state: ReleaseState; history: HistoryEntry[] }> {
  const groups = readProcessRecords(path.join(home, 'sandbox', 'kube')).map((r) => r.pgid);
  if (opts.freezeFirst) for (const pgid of groups) process.kill(-pgid, 'SIGSTOP');
  await serve.kill9();
  if (opts.freezeFirst) {
    // Frozen, they cannot end themselves: they are still there (proved here), for the next start to stop.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.ok(ourProcesses(home).length >= groups.length, 'the frozen components outlive serve');
  } else {
    await assertNothingLeft();
  }
  return storedAtKill();
}

function assertResumedFrom(stored: { state: ReleaseState; history: HistoryEntry[] }, now: ReleaseState, nowHistory: HistoryEntry[]): void {
  assert.equal(now.release?.id, stored.state.release?.id, 'the same release');
  assert.deepEqual(nowHistory.slice(0, stored.history.length), stored.history, 'the history up to the kill is all there');
  for (const id of stored.state.appliedCommandIds) assert.ok(now.appliedCommandIds.includes(id), `command ${id} still applied`);
  assert.equal(now.release?.targetRevision, stored.state.release?.targetRevision, 'the same target revision');
  assert.equal(now.release?.stableRevision, stored.state.release?.stableRevision, 'from the same stable revision');
}

describe('kill -9 of local mode mid-release, at three points', () => {
  before(async () => {
    writeFileSync(rolloutFile, [
      'apiVersion: rollouts.serverless-rollouts.io/v1alpha1',
      'kind: Rollout',
      'metadata: {name: web, namespace: default}',
      'spec:',
      '  workloadRef: {apiVersion: apps/v1, kind: Deployment, name: web}',
      '  strategy:',
      '    canary:',
      '      steps:',
      '        - {replicas: 1, pause: {}}',
      '        - {replicas: 50%, pause: {duration: 3}}',
      '        - {replicas: 100%}',
      '',
    ].join('\n'));
    serve = await ServeProcess.start(home, SERVE_ARGS, env);
  });

  after(async () => {
    // Also on failure: never leave local mode (and its control plane) behind.
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

  test('1: killed while the first batch moves; the next start goes on with the same release and step', async () => {
    assert.equal((await cli('apply', '-f', rolloutFile)).code, 0);
    await waitFor(async () => (await getJson()).state.stableRevision, { message: 'the Deployment to be adopted', timeoutMs: 60_000 });
    const from = serve.lines.length;
    assert.equal((await cli('release', 'web', '--image', 'app=nginx:1.28')).code, 0);
    await serve.waitForLine(/event Release Started: default\/web/, { from });
    const stored = await kill9();
    assert.equal(stored.state.release?.stepIndex, 0);
    assert.equal(stored.state.release?.stepState, 'Upgrading', 'killed while pods moved');

    serve = await ServeProcess.start(home, SERVE_ARGS, env);
    const now = await waitFor(async () => {
      const s = (await getJson()).state;
      return s.release?.stepState === 'StepPaused' ? s : null;
    }, { message: 'the first batch to finish after the restart', timeoutMs: 60_000, intervalMs: 250 });
    assert.equal(now.release?.stepIndex, 0, 'the same step');
    assertResumedFrom(stored, now, await history());
  });

  test('2: killed (control plane frozen) while step 1 awaits approval; the next start stops the leftovers by their records and has it all', async () => {
    const before = (await getJson()).state;
    const frozen = ourProcesses(home).map((p) => p.pid);
    const stored = await kill9({ freezeFirst: true });
    assert.deepEqual(stored.state, before, 'nothing moved while waiting');

    serve = await ServeProcess.start(home, SERVE_ARGS, env);
    assert.match(serve.output(), /stopped \d+ process\(es\) an earlier run left behind/);
    assert.deepEqual(ourProcesses(home).filter((p) => frozen.includes(p.pid)), [], 'the frozen processes are gone');
    // Let the restarted engine look at it (first sweep and the watches' replay), then compare.
    await serve.waitForLine(/reconcile default\/web \(sweep\): noop/, { message: 'the start-up resync of web' });
    const now = (await getJson()).state;
    assert.deepEqual(
      { phase: now.phase, release: now.release, commands: now.commands, applied: now.appliedCommandIds },
      { phase: stored.state.phase, release: stored.state.release, commands: stored.state.commands, applied: stored.state.appliedCommandIds },
      'same phase, step, and commands',
    );
    assert.deepEqual(await history(), stored.history, 'same history');
  });

  test('3: killed while the second batch moves right after an approval; it resumes and completes with every pod on the new revision', async () => {
    const from = serve.lines.length;
    assert.equal((await cli('approve', 'web')).code, 0);
    await serve.waitForLine(/event Step Approved: default\/web/, { from });
    const stored = await kill9();
    assert.equal(stored.state.release?.stepIndex, 1, 'killed in step 2');
    assert.ok(stored.state.commands.length === 0 && stored.state.appliedCommandIds.length >= 2, 'the approval was consumed before the kill');

    serve = await ServeProcess.start(home, SERVE_ARGS, env);
    const done = await cli('status', 'web', '--timeout', '2m');
    assert.equal(done.code, 0, `${done.out}${done.err}`);
    assert.match(done.out, /✔ Completed: /);
    const { state, workload } = await getJson();
    // The release that completed is the one that was interrupted (it is lastRelease now).
    assertResumedFrom(stored, { ...state, release: state.lastRelease }, await history());
    assert.deepEqual(workload.revisions.map((r) => [r.number, r.images.app, r.pods.length]), [[2, 'nginx:1.28', 10], [1, 'nginx:1.27', 0]]);
  });

  test('Ctrl-C after all that still stops everything, and keeps the data', async () => {
    const exit = await serve.interrupt();
    assert.deepEqual(exit, { code: 0, signal: null }, serve.output());
    await assertNothingLeft();
    const { state } = await storedAtKill();
    assert.equal(state.phase, 'Completed');
  });
});
