// The Kubernetes client as the Lambda functions carry it: bundled by infra/bundling.ts, where
// client-node's generated APIs are dropped, and undici and the packages of ways the functions never
// reach a cluster (kubeconfig YAML, proxies, OIDC/Azure/GCP auth plugins) are replaced by names that
// throw when used.
// Run in a fresh Node against the real control plane as the least-privilege user, it creates,
// patches, lists, gets and watches: nothing it does reaches the missing code.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleEntry } from '../../infra/bundling.ts';
import { startTestCluster, type TestCluster } from '../../bench/testbed/kube.ts';

let cluster: TestCluster;
let work: string;

before(async () => {
  cluster = await startTestCluster();
  work = mkdtempSync(path.join(os.tmpdir(), 'bundled-kube-client-'));
});

after(async () => {
  if (work) rmSync(work, { recursive: true, force: true });
  await cluster?.stop();
});

test('the bundled client reads, writes and watches the real cluster without undici, kubeconfig YAML, proxy and auth-plugin packages, or the generated APIs', async () => {
  const bundle = await bundleEntry('test/support/bundledKubeClientProbe.ts', work);
  const code = bundle.outputs.map((o) => readFileSync(o.path, 'utf8')).join('\n');
  for (const pkg of ['undici', 'js-yaml', 'socks', 'hpagent', 'openid-client', 'jsonpath-plus']) assert.ok(code.includes(`"${pkg}."`), `${pkg} is replaced`);
  assert.doesNotMatch(code, /function safeLoad|class SocksClient|YAMLException/, 'none of their code is bundled');
  assert.doesNotMatch(code, /class AppsV1Api|CustomObjectsApi/, 'no generated API class is bundled');
  const ns = await cluster.createNamespace('bundled');
  const run = spawnSync(process.execPath, [bundle.file], {
    env: { PATH: process.env.PATH, PROBE_SERVER: cluster.server, PROBE_TOKEN: cluster.rolloutsToken, PROBE_NAMESPACE: ns },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(run.status, 0, run.stderr);
  const out = JSON.parse(run.stdout) as { created: string; patched: string; listed: string[]; missing: null; seen: string[]; watchEnd: string };
  assert.match(out.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, 'timestamps as the apiserver sent them');
  assert.equal(out.patched, 'yes');
  assert.deepEqual(out.listed, ['ReplicaSet probe']);
  assert.equal(out.missing, null);
  assert.deepEqual(out.seen.slice(0, 2), ['ADDED probe', 'MODIFIED probe']);
  assert.equal(out.watchEnd, 'normal');
});
