// The peers benchmark's reading of the audit log (bench/lib/batchReactions.ts) and its command-line
// options (bench/lib/peersOptions.ts): a reaction read from the wrong ReplicaSet or the wrong pod
// would compare us with the peers on a number that means nothing.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { AuditEvent } from '../../../shared/adapters/local/controlPlane.ts';
import { batchReactions, writeTrail } from '../../../bench/lib/batchReactions.ts';
import { parsePeersOptions } from '../../../bench/lib/peersOptions.ts';
import { ConfigError } from '../../../shared/errors.ts';

const T0 = Date.parse('2026-12-02T10:00:00Z');
let seq = 0;

/** An audit timestamp `ms` after T0, with microseconds as the apiserver writes them. */
function ts(ms: number): string {
  return new Date(T0 + Math.floor(ms)).toISOString().replace(/\.(\d{3})Z$/, (_, f: string) => `.${f}${String(Math.round((ms % 1) * 1000)).padStart(3, '0')}Z`);
}

function rsWrite(ms: number, verb: string, name: string, replicas: number, agent: string): AuditEvent {
  seq += 1;
  return {
    auditID: `a${seq}`, stage: 'ResponseComplete', verb, requestURI: '', user: { username: 'admin' }, userAgent: agent,
    objectRef: { resource: 'replicasets', namespace: 'ns', name: verb === 'create' ? undefined : name, apiGroup: 'apps' },
    responseStatus: { code: verb === 'create' ? 201 : 200 }, requestReceivedTimestamp: ts(ms),
    requestObject: { metadata: { name }, spec: { replicas } },
  };
}

function podReady(ms: number, pod: string): AuditEvent {
  seq += 1;
  return {
    auditID: `a${seq}`, stage: 'ResponseComplete', verb: 'patch', requestURI: '', user: { username: 'admin' }, userAgent: 'kwok/v0.7.0',
    objectRef: { resource: 'pods', subresource: 'status', namespace: 'ns', name: pod }, responseStatus: { code: 200 },
    requestReceivedTimestamp: ts(ms + 1), requestObject: { status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: ts(ms) }] } },
  };
}

function rsStatus(ms: number, name: string): AuditEvent {
  seq += 1;
  return {
    auditID: `a${seq}`, stage: 'ResponseComplete', verb: 'update', requestURI: '', user: { username: 'admin' },
    userAgent: 'kube-controller-manager/v1.34.4 (linux/amd64) kubernetes/abc/replicaset-controller',
    objectRef: { resource: 'replicasets', subresource: 'status', namespace: 'ns', name }, responseStatus: { code: 200 }, requestReceivedTimestamp: ts(ms),
  };
}

const ARGO = 'rollouts-controller/v0.0.0 (linux/amd64) kubernetes/$Format';

describe('batch reactions read from the audit log', () => {
  it('measures each batch from its last pod Ready to the write that asks the new ReplicaSet for more, naming the writer, and when the first batch began and the last pod turned Ready', () => {
    const events = [
      // Argo's workloadRef: the Deployment (at 0) gets its own new ReplicaSet, which stays at 0.
      rsWrite(0, 'create', 'web-deploy', 0, 'kube-controller-manager/v1.34.4 (linux/amd64) kubernetes/abc/deployment-controller'),
      rsWrite(10, 'create', 'web-canary', 1, ARGO),
      podReady(2000, 'web-canary-aaaaa'),
      rsStatus(2005, 'web-canary'),
      rsWrite(2030, 'update', 'web-canary', 5, ARGO),
      ...['bbbbb', 'ccccc', 'ddddd'].map((p, i) => podReady(4000 + i, `web-canary-${p}`)),
      podReady(4010, 'web-canary-eeeee'),
      podReady(2000, 'web-canary-aaaaa'), // a later status patch of the first pod, Ready since 2000: not a sixth pod
      rsStatus(4016, 'web-canary'),
      rsWrite(4050, 'update', 'web-canary', 10, ARGO),
    ];
    const { reactions, problems, firstBatchAt, lastReadyAt } = batchReactions(events, [1, 5], 5);
    assert.deepEqual(problems, []);
    assert.deepEqual([(firstBatchAt ?? NaN) - T0, (lastReadyAt ?? NaN) - T0], [10, 4010]);
    assert.deepEqual(reactions.map((r) => [r.batch, r.nextReplicas, Math.round(r.totalMs), Math.round(r.kubeMs), r.writer]), [
      [1, 5, 30, 5, 'argo-rollouts'],
      [5, 10, 40, 6, 'argo-rollouts'],
    ]);
  });

  it('reports a boundary where the ReplicaSet grew before the batch\'s last pod was Ready, instead of a negative reaction', () => {
    const events = [
      rsWrite(0, 'create', 'web-new', 1, ARGO),
      rsWrite(500, 'update', 'web-new', 5, ARGO),
      podReady(2000, 'web-new-aaaaa'),
    ];
    const { reactions, problems } = batchReactions(events, [1]);
    assert.deepEqual(reactions, []);
    assert.match(problems[0] ?? '', /asked for 5 before its 1th pod was Ready/);
  });

  it('lists the writes between two moments, whose they were, leaving out kwok\'s pod status patches', () => {
    const events = [rsWrite(0, 'create', 'web-new', 1, ARGO), podReady(2000, 'web-new-aaaaa'), rsStatus(2005, 'web-new'), rsWrite(2030, 'update', 'web-new', 5, ARGO)];
    assert.deepEqual(writeTrail(events, T0 + 2000, T0 + 2030), ['+5.0 replicaset-controller update replicasets/status', '+30.0 argo-rollouts update replicasets']);
  });

  it('says so when no ReplicaSet was created in the window', () => {
    assert.deepEqual(batchReactions([podReady(10, 'web-x-aaaaa')], [1]), { reactions: [], problems: ['no ReplicaSet created in the window'] });
  });
});

describe('the peers area\'s options', () => {
  it('defaults to 5 repetitions at 10 and 100 replicas', () => {
    assert.deepEqual(parsePeersOptions(['--only', 'peers']), { reps: 5, replicas: [10, 100] });
  });

  it('takes --reps and --replicas in either form', () => {
    assert.deepEqual(parsePeersOptions(['--only', 'peers', '--reps', '1', '--replicas=10']), { reps: 1, replicas: [10] });
    assert.deepEqual(parsePeersOptions(['--reps=3', '--replicas', '10,100,100']), { reps: 3, replicas: [10, 100] });
  });

  it('refuses a value that is not a whole number from 1, or a flag without a value, naming the flag', () => {
    assert.throws(() => parsePeersOptions(['--reps', '0']), (e: unknown) => e instanceof ConfigError && /--reps: '0'/.test(e.message));
    assert.throws(() => parsePeersOptions(['--replicas', '10,x']), (e: unknown) => e instanceof ConfigError && /--replicas: 'x'/.test(e.message));
    assert.throws(() => parsePeersOptions(['--reps', '--replicas', '10']), (e: unknown) => e instanceof ConfigError && /--reps needs a value/.test(e.message));
  });
});

describe('who builds the peers', () => {
  const root = path.resolve(import.meta.dirname, '../../..');
  const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

  it('the bench builds them on first use; CI and npm test never do (minutes of Go builds)', () => {
    assert.match(read('bench/lib/peerControllers.ts'), /scripts\/build-peers\.sh/);
    for (const file of ['.ci/run', 'scripts/run-tests.mjs', 'package.json']) assert.doesNotMatch(read(file), /build-peers/, `${file} builds no peer`);
  });
});
