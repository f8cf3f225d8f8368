// The watch loop against a scripted watch source: resume, relist on 410 Gone, backoff on errors.
// (The real apiserver is exercised by test/integration/wiring.test.ts.)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { GoneError, UnauthorizedError } from '../../../shared/errors.ts';
import type { KubeObject } from '../../../shared/kube/types.ts';
import type { WatchDoneHandler, WatchEventHandler, WatchQuery } from '../../../shared/adapters/kubernetes/watcher.ts';
import { ResourceWatch } from '../../../shared/watch/resourceWatch.ts';
import { SILENT_LOG } from '../../../shared/ports.ts';
import type { WatchSource } from '../../../shared/ports.ts';

function obj(name: string, rv: string): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, resourceVersion: rv } };
}

type Script = (emit: WatchEventHandler, done: WatchDoneHandler) => void;

/** Each watch() call runs the next script step; records the queries it was given. */
class ScriptedSource implements WatchSource {
  readonly queries: WatchQuery[] = [];
  private resolveIdle: (() => void) | null = null;
  constructor(private readonly steps: Script[], private readonly onIdle: () => void) {}

  async watch(_path: string, query: WatchQuery, onEvent: WatchEventHandler, onDone: WatchDoneHandler) {
    this.queries.push(query);
    const step = this.steps.shift();
    if (step) queueMicrotask(() => step(onEvent, onDone));
    else {
      this.resolveIdle?.();
      this.onIdle();
    }
    return { stop: () => onDone(null) };
  }
}

async function run(steps: Script[], extra: { onUnauthorized?: () => void; startFromNow?: boolean; listVersion?: string } = {}) {
  const events: string[] = [];
  const sleeps: number[] = [];
  let relists = 0;
  let idle!: () => void;
  const finished = new Promise<void>((resolve) => (idle = resolve));
  const { listVersion, ...rest } = extra;
  const source: ScriptedSource & { listVersion?: (path: string) => Promise<string> } = new ScriptedSource(steps, () => idle());
  if (listVersion !== undefined) source.listVersion = async () => listVersion;
  const watch = new ResourceWatch({
    source: async () => source,
    path: '/apis/apps/v1/namespaces/shop/deployments',
    onEvent: (type, o) => events.push(`${type} ${o.metadata.name}`),
    onRelist: () => (relists += 1),
    log: SILENT_LOG,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0,
    ...rest,
  });
  watch.start();
  await finished; // the script is exhausted: the watch is parked on a connection that never ends
  await watch.stop();
  return { events, sleeps, relists, queries: source.queries, stats: watch.stats };
}

describe('resource watch', () => {
  test('starting from now watches from the listed version (no replay), and still replays after a 410 Gone', async () => {
    const r = await run([
      (emit, done) => {
        emit('MODIFIED', obj('web', '101'));
        done(new GoneError('too old'));
      },
      (emit, done) => {
        emit('ADDED', obj('web', '150'));
        done(null);
      },
    ], { startFromNow: true, listVersion: '100' });
    assert.deepEqual(r.queries.map((q) => q.resourceVersion), ['100', undefined, '150']);
    assert.equal(r.relists, 1, 'the relist after 410 only');
    assert.deepEqual(r.events, ['MODIFIED web', 'ADDED web']);
  });

  test('after a normal end it watches again from the last resourceVersion seen, bookmarks included', async () => {
    const r = await run([
      (emit, done) => {
        emit('ADDED', obj('web', '5'));
        emit('BOOKMARK', obj('', '9'));
        done(null);
      },
    ]);
    assert.deepEqual(r.events, ['ADDED web']);
    assert.equal(r.queries[0]?.resourceVersion, undefined, 'the first watch lists everything');
    assert.equal(r.queries[1]?.resourceVersion, '9');
    assert.equal(r.queries[1]?.allowWatchBookmarks, true);
    assert.deepEqual([r.relists, r.sleeps], [1, []]);
  });

  test('410 Gone relists: the next watch has no resourceVersion, at once', async () => {
    const r = await run([
      (emit, done) => {
        emit('MODIFIED', obj('web', '7'));
        done(new GoneError('too old resource version'));
      },
    ]);
    assert.equal(r.queries[1]?.resourceVersion, undefined);
    assert.deepEqual([r.relists, r.sleeps, r.stats.errors], [2, [], 0]);
  });

  test('other failures back off exponentially and resume from the resourceVersion', async () => {
    const fail: Script = (_emit, done) => done(new Error('connection reset'));
    const r = await run([
      (emit, done) => {
        emit('ADDED', obj('web', '3'));
        done(new Error('connection reset'));
      },
      fail,
      fail,
    ]);
    assert.deepEqual(r.sleeps, [250, 500, 1000], 'half of 500·2^n with zero jitter');
    assert.deepEqual(r.queries.slice(1).map((q) => q.resourceVersion), ['3', '3', '3']);
    assert.equal(r.stats.errors, 3);
  });

  test('a 401 drops the cached credentials before retrying', async () => {
    let invalidated = 0;
    await run([(_emit, done) => done(new UnauthorizedError('token expired'))], { onUnauthorized: () => (invalidated += 1) });
    assert.equal(invalidated, 1);
  });
});
