// POST .../undo over the in-memory cluster (issue 21): the API resolves where an undo goes from the
// rollout's completed revisions and the live workload's revisions, the same way the planner does
// (shared/rollout/undo.ts); a dry run says so and records nothing; the recorded undo is pinned to
// that revision; what cannot work is refused naming the field.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../shared/kube/types.ts';
import { initialState } from '../../../shared/rollout/state.ts';
import type { ReleaseState } from '../../../shared/rollout/types.ts';
import { revisionId } from '../../../shared/workloads/deployment/revision.ts';
import { MemoryCluster } from '../../support/fakes/memoryCluster.ts';
import { KEY, PATH, api, seedRollout, seedState, type Api } from './apiFixtures.ts';

const NS = 'shop';
const template = (image: string) => ({ metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image }] } });
const id = (image: string) => revisionId(template(image));

function deployment(image: string): KubeObject {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: NS, uid: 'dep-uid', generation: 1 },
    spec: { replicas: 3, paused: true, selector: { matchLabels: { app: 'web' } }, template: template(image) },
    status: { observedGeneration: 1 },
  };
}

function replicaSet(name: string, image: string, revision: number, replicas: number): KubeObject {
  return {
    apiVersion: 'apps/v1', kind: 'ReplicaSet',
    metadata: {
      name, namespace: NS, uid: `${name}-uid`, generation: 1, creationTimestamp: '2030-01-01T00:00:00Z', labels: { app: 'web' },
      annotations: { 'deployment.kubernetes.io/revision': String(revision) },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'dep-uid', controller: true }],
    },
    spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: template(image) },
    status: { observedGeneration: 1, replicas, readyReplicas: replicas, availableReplicas: replicas },
  };
}

/** web:v1 completed, web:v2 completed, a release of web:v3 aborted back to web:v2 (revision 4 now). */
async function afterAbort(completed = [id('web:v1'), id('web:v2')]): Promise<Api> {
  const cluster = new MemoryCluster();
  cluster.put(deployment('web:v2'));
  cluster.put(replicaSet('web-v1', 'web:v1', 1, 0));
  cluster.put(replicaSet('web-v3', 'web:v3', 3, 0));
  cluster.put(replicaSet('web-v2', 'web:v2', 4, 3));
  const a = api({ clusters: { client: async () => cluster } });
  await seedRollout(a);
  const state: ReleaseState = { ...initialState(), phase: 'Aborted', message: 'aborted', stableRevision: id('web:v2'), releaseSeq: 2, completedRevisions: completed };
  await seedState(a, state);
  return a;
}

const pending = async (a: Api) => (await a.store.load(KEY)).state.state.commands;

describe('POST .../undo', () => {
  test('a dry run names the last revision that completed a release (not the aborted one) and that it moves at once, recording nothing', async () => {
    const a = await afterAbort();
    const res = await a.call('POST', `${PATH}/undo`, { dryRun: true });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json.undo, { revision: 1, images: { app: 'web:v1' }, move: 'all-at-once' });
    assert.equal(res.json.dryRun, true);
    assert.deepEqual(await pending(a), []);
  });

  test('records the undo pinned to the revision it answered', async () => {
    const a = await afterAbort();
    const res = await a.call('POST', `${PATH}/undo`, {});
    assert.equal(res.status, 202);
    assert.deepEqual(res.json.undo, { revision: 1, images: { app: 'web:v1' }, move: 'all-at-once' });
    assert.deepEqual((await pending(a)).map((c) => c.type === 'undo' && c.toRevision), [1]);
  });

  test('says that an undo to a revision that never completed a release goes through the steps', async () => {
    const a = await afterAbort();
    const res = await a.call('POST', `${PATH}/undo`, { toRevision: 3, dryRun: true });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json.undo, { revision: 3, images: { app: 'web:v3' }, move: 'through-steps' });
  });

  test('refuses a revision that is not retained, naming the field', async () => {
    const a = await afterAbort();
    const res = await a.call('POST', `${PATH}/undo`, { toRevision: 9 });
    assert.equal(res.status, 409);
    assert.deepEqual(res.json.error, {
      message: 'toRevision: revision 9 is not retained by Deployment shop/web (retained: 1, 3, 4)',
      issues: [{ path: 'toRevision', reason: 'revision 9 is not retained by Deployment shop/web (retained: 1, 3, 4)' }],
    });
    assert.deepEqual(await pending(a), []);
  });

  test('refuses an undo with no earlier revision that completed a release, saying how to name one', async () => {
    const a = await afterAbort([id('web:v2')]);
    const res = await a.call('POST', `${PATH}/undo`, {});
    assert.equal(res.status, 409);
    assert.match((res.json.error as { message: string }).message, /^undo prod\/shop\/web: there is no earlier revision that completed a release to go back to \(retained: 1, 3, 4\); name one with toRevision/);
    assert.deepEqual(await pending(a), []);
  });
});
