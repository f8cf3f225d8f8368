// `rollouts clusters deregister` against the real API core (in memory), and the CLI's --cluster
// default when local mode serves several clusters (serve --clusters N: c1..cN, no "local").
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { initialState } from '../../../shared/rollout/state.ts';
import { HOME, LOCAL_KEY, harness } from './cliHarness.ts';

describe('the CLI\'s --cluster against local mode', () => {
  test('local mode with several clusters (serve --clusters 3) needs a cluster name: usage error (2) naming them; one cluster defaults to "local"', async () => {
    const h = harness();
    h.files[`${HOME}/.rollouts/clusters`] = 'c1\nc2\nc3\n';
    const r = await h.cli('get', 'web');
    assert.deepEqual(r, { code: 2, out: '', err: 'error: local mode serves clusters c1, c2, c3 (serve --clusters 3), none of them "local": give --cluster <name> (e.g. --cluster c1) or set ROLLOUTS_CLUSTER\n' });
    assert.equal(h.requests.length, 0, 'nothing sent');
    await h.cli('get', 'web', '--cluster', 'c2');
    h.env.ROLLOUTS_CLUSTER = 'c3';
    await h.cli('get', 'web');
    h.env.ROLLOUTS_CLUSTER = undefined;
    h.files[`${HOME}/.rollouts/clusters`] = 'local\n';
    await h.cli('get', 'web');
    assert.deepEqual(h.requests.filter((r) => !r.endsWith('/workload')), ['GET /v1/rollouts/c2/default/web', 'GET /v1/rollouts/c3/default/web', 'GET /v1/rollouts/local/default/web']);
  });
});

describe('rollouts clusters deregister', () => {
  test('a cluster with nothing stored is deregistered at once', async () => {
    const h = harness();
    await h.api.call('PUT', '/v1/clusters/spare', { endpoint: { server: 'https://spare.example' } });
    assert.deepEqual(await h.cli('clusters', 'deregister', 'spare'), { code: 0, out: 'cluster/spare deregistered\n', err: '' });
    assert.deepEqual(h.requests, ['DELETE /v1/clusters/spare']);
  });

  test('--wait waits while its rollouts hand their workloads back; a refusal is "<field>: <reason>", exit code 1', async () => {
    const h = harness();
    await h.api.call('PUT', '/v1/clusters/local', { endpoint: { server: 'https://local.example' } });
    await h.seed(initialState());
    const refused = await h.cli('clusters', 'deregister', 'local');
    assert.deepEqual(refused, { code: 1, out: '', err: 'name: cluster local has rollout default/web, which no fleet owns: delete it first (rollouts delete web -n default --cluster local hands its workload back)\n' });
    // Owned by a fleet, at rest: it leaves; the member's removal (here: by hand) ends the wait.
    const loaded = await h.api.store.load(LOCAL_KEY);
    await h.api.store.putSpec(LOCAL_KEY, { ...loaded.spec!.spec, fleet: { name: 'web', wave: null } }, null, loaded.spec!.specVersion);
    h.onSleep = async () => {
      await h.api.store.deleteRollout(LOCAL_KEY);
      await h.api.store.deleteCluster('local');
    };
    const marked = await h.cli('clusters', 'deregister', 'local');
    assert.equal(marked.out, 'cluster/local leaving: default/web hands its workload back first\n');
    assert.match((await h.cli('clusters', 'list')).out, /^local \(leaving\) +https:\/\/local\.example/m, 'clusters list says it is leaving');
    const left = await h.cli('clusters', 'deregister', 'local', '--wait');
    assert.deepEqual(left, { code: 0, out: 'cluster/local leaving: default/web hands its workload back first\ncluster/local deregistered\n', err: '' });
  });
});
