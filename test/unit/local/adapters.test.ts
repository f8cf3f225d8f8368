// The small local stand-ins: the watch sink enqueues, transitions are printed, the queue worker
// runs again at the next wake-up, and where local mode keeps its files.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LocalKeyedQueue } from '../../../shared/adapters/local/keyedQueue.ts';
import { printingPublisher } from '../../../shared/local/adapters.ts';
import { queueWatchSink } from '../../../shared/watch/queueSink.ts';
import { nextTag, renderBanner } from '../../../shared/local/banner.ts';
import { dataDirPaths, resolveDataDir } from '../../../shared/local/dataDir.ts';
import { watchedKinds } from '../../../shared/local/localMode.ts';
import type { ReconcileResult } from '../../../shared/reconcile/reconcile.ts';
import { runsAskedFor } from '../../../shared/reconcile/runAgain.ts';
import { MemoryQueue } from '../../../bench/testbed/fakes/memoryQueue.ts';
import { queueKeyName } from '../../../shared/fleet/key.ts';
import type { RolloutKey } from '../../../shared/rollout/types.ts';

const NOW = new Date('2030-01-01T00:00:00Z');
const clock = { now: () => NOW };

function result(over: Partial<ReconcileResult>): ReconcileResult {
  return { outcome: 'progressed', phase: 'Progressing', requeueSeconds: null, wakeAt: null, previousWakeAt: null, writes: 0, counts: {} as ReconcileResult['counts'], ...over };
}

describe('local adapters', () => {
  test('the watch sink queues one reconcile per changed rollout, reason "watch"', async () => {
    const queue = new MemoryQueue();
    await queueWatchSink(queue).send([
      { cluster: 'local', namespace: 'default', name: 'web', reasons: ['ReplicaSet web-1 MODIFIED'] },
      { cluster: 'local', namespace: 'shop', name: 'api', reasons: ['Deployment api MODIFIED'] },
    ]);
    assert.deepEqual(queue.sent.map((s) => [`${(s.key as RolloutKey).namespace}/${queueKeyName(s.key)}`, s.reason]), [['default/web', 'watch'], ['shop/api', 'watch']]);
  });

  test('every pass with a wake-up, changed or not, runs again at it: the sooner of the wake-up and "again in n s" first', async () => {
    const now = clock.now();
    assert.deepEqual(runsAskedFor(result({ wakeAt: '2030-01-01T00:01:00.250Z' }), now), [{ afterSeconds: 60.25, reason: 'wake' }]);
    assert.deepEqual(runsAskedFor(result({ wakeAt: '2029-12-31T23:59:00Z' }), now), [{ afterSeconds: 0, reason: 'wake' }]);
    assert.deepEqual(runsAskedFor(result({ outcome: 'noop', wakeAt: '2030-01-01T00:01:00Z' }), now), [{ afterSeconds: 60, reason: 'wake' }], 'a no-op pass keeps the wake-up alive');
    assert.deepEqual(runsAskedFor(result({ requeueSeconds: 5, wakeAt: '2030-01-01T00:00:02Z' }), now)[0], { afterSeconds: 2, reason: 'wake' });
    assert.deepEqual(runsAskedFor(result({ requeueSeconds: 1, wakeAt: '2030-01-01T00:00:02Z' }), now)[0], { afterSeconds: 1, reason: 'requeue' });
    assert.deepEqual(runsAskedFor(result({}), now), []);
    // Beyond a timer: local mode's queue leaves it to the sweep.
    const scheduled: string[] = [];
    let anyScheduled = (): void => {};
    const scheduledOnce = new Promise<void>((resolve) => (anyScheduled = resolve));
    const queue = new LocalKeyedQueue(async () => runsAskedFor(result({ wakeAt: '2031-01-01T00:00:00Z' }), now), {
      onScheduled: (_k, _at, reason) => {
        scheduled.push(reason);
        anyScheduled();
      },
    });
    await queue.enqueue({ cluster: 'local', namespace: 'default', name: 'web' });
    await Promise.race([queue.idle(), scheduledOnce]);
    await queue.stop();
    assert.deepEqual(scheduled, [], 'beyond a timer: the sweep finds it');
  });

  test('transitions are printed one line each', async () => {
    const lines: string[] = [];
    await printingPublisher((l) => lines.push(l)).publish([
      { type: 'Batch Ready', rollout: { cluster: 'local', namespace: 'default', name: 'web' }, releaseId: 'r1', phase: 'Progressing', stepIndex: 0, message: 'step 1: 1 of 10 pods ready', at: NOW.toISOString(), by: null, reason: 'step 1/3: ready', cause: null },
    ]);
    assert.deepEqual(lines, ['event Batch Ready: default/web r1 step 1 → Progressing: step 1: 1 of 10 pods ready']);
  });
});

describe('data directory and banner', () => {
  test('.rollouts in the working directory; ROLLOUTS_HOME overrides (relative to it)', () => {
    assert.equal(resolveDataDir({}, '/src/app'), '/src/app/.rollouts');
    assert.equal(resolveDataDir({ ROLLOUTS_HOME: '/var/rollouts' }, '/src/app'), '/var/rollouts');
    assert.equal(resolveDataDir({ ROLLOUTS_HOME: 'state' }, '/src/app'), '/src/app/state');
    assert.equal(dataDirPaths('/d').sandboxDynamodb, '/d/sandbox/dynamodb');
  });

  test('the banner says what runs where and gives the next commands for the demo', () => {
    const text = renderBanner({
      endpoint: 'http://127.0.0.1:4000', paths: dataDirPaths('/src/app/.rollouts'), principal: 'me', podReadyDelayMs: 2000, sweepSeconds: 10, startupMs: 6400, cwd: '/src/app',
      resyncSeconds: 30, watched: ['Deployment', 'ReplicaSet', 'StatefulSet'],
      cluster: { kind: 'sandbox', server: 'https://127.0.0.1:6443', version: 'v1.34.4', why: null, restarted: true, demo: { namespace: 'default', name: 'web', replicas: 10, images: { app: 'nginx:1.27' } } },
    });
    assert.match(text, /every rollout resynced every 30 s,\n {12}watches on Deployments, ReplicaSets, StatefulSets/);
    assert.match(text, /started again with everything of the last run; kept when serve stops: `--fresh` starts over/);
    assert.match(text, /^ {2}API {7}http:\/\/127\.0\.0\.1:4000 {2}\(in \.rollouts\/endpoint;/m);
    assert.match(text, /embedded DynamoDB \(dynalite\) in \.rollouts\/sandbox\/dynamodb/);
    assert.match(text, /Deployment default\/web: 10 replicas, app=nginx:1\.27/);
    assert.match(text, /^ {2}npx rollouts release web --image app=nginx:1\.28$/m);
    assert.match(text, /KUBECONFIG=\.rollouts\/kubeconfig kubectl get pods/);
  });

  test('the banner names each watched kind once: Kruise\'s StatefulSet and DaemonSet by their own names', () => {
    const kinds = watchedKinds();
    assert.equal(new Set(kinds).size, kinds.length, kinds.join(', '));
    assert.deepEqual(kinds, ['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'CloneSet', 'Advanced StatefulSet', 'Advanced DaemonSet']);
  });

  test('the example image is the next minor tag', () => {
    assert.deepEqual(['nginx:1.27', 'registry:5000/app:2.9', 'app:latest'].map(nextTag), ['nginx:1.28', 'registry:5000/app:2.10', 'app:next']);
  });
});

describe('local mode runs what the deployed stack runs', () => {
  test('it has a driver for every workload kind the API accepts', async () => {
    const { LOCAL_DRIVERS } = await import('../../../shared/local/localMode.ts');
    const { SUPPORTED_KINDS } = await import('../../../shared/workloads/registry.ts');
    assert.deepEqual(SUPPORTED_KINDS.filter((k) => !LOCAL_DRIVERS[k]), []);
  });
});
