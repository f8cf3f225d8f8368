// `serve --clusters N` (shared/local/clusterCount.ts, shared/local/sandboxFleet.ts): the option, the
// clusters it registers (labels, zones) and what examples/fleet.yaml makes of them, the kubeconfig
// with one context per cluster, and a restart with another number of clusters refused.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { run } from '../../../shared/cli/main.ts';
import type { CliIO } from '../../../shared/cli/io.ts';
import { clusterInfo, clusterPlacementIssues } from '../../../shared/fleet/clusters.ts';
import { parseFleetRollout } from '../../../shared/fleet/parse.ts';
import { assignWaves, placementIssues } from '../../../shared/fleet/placement.ts';
import { MAX_SANDBOX_CLUSTERS, parseClusterCount } from '../../../shared/local/clusterCount.ts';
import { claimClusterCount, fleetKubeconfig, sandboxClusterPlacements, sandboxRegistration } from '../../../shared/local/sandboxFleet.ts';

async function cli(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = { out: (t) => void out.push(t), err: (t) => void err.push(t), readFile: async () => '' };
  const code = await run(argv, io);
  return { code, out: out.join(''), err: err.join('') };
}

describe('serve --clusters', () => {
  test('takes a whole number from 1 to the limit', () => {
    assert.equal(parseClusterCount('1'), 1);
    assert.equal(parseClusterCount('3'), 3);
    assert.equal(parseClusterCount(String(MAX_SANDBOX_CLUSTERS)), MAX_SANDBOX_CLUSTERS);
  });

  for (const bad of ['0', String(MAX_SANDBOX_CLUSTERS + 1), 'three', '1.5', '-2', '']) {
    test(`refuses "${bad}" naming the option and the range`, () => {
      const reason = parseClusterCount(bad);
      assert.equal(typeof reason, 'string');
      assert.match(reason as string, new RegExp(`^--clusters must be a whole number from 1 to ${MAX_SANDBOX_CLUSTERS}`));
    });
  }

  test('the CLI refuses a bad value before starting anything (usage error, exit 2)', async () => {
    const r = await cli(['serve', '--clusters', '9']);
    assert.equal(r.code, 2);
    assert.match(r.err, /option '--clusters <n>' argument '9' is invalid\. --clusters must be a whole number from 1 to 5 \(each cluster is a control plane on this machine\), not 9\./);
    assert.equal(r.out, '');
  });

  test('serve --help says what --clusters starts', async () => {
    const r = await cli(['serve', '--help']);
    assert.equal(r.code, 0);
    assert.match(r.out, /--clusters <n>\s+sandbox clusters to start, registered as c1\.\.cN/);
    assert.match(r.out, /npm start -- --clusters 3/);
  });
});

describe('the sandbox clusters', () => {
  test('c1 is the canary ring, the others the rest, each in its own region, zone and time zone', () => {
    const three = sandboxClusterPlacements(3);
    assert.deepEqual(three.map((c) => [c.name, c.labels.ring, c.labels.region, c.labels.zone, c.timeZone]), [
      ['c1', 'canary', 'eu-west-1', 'eu-west-1a', 'Europe/Dublin'],
      ['c2', 'rest', 'us-east-1', 'us-east-1a', 'America/New_York'],
      ['c3', 'rest', 'ap-southeast-2', 'ap-southeast-2a', 'Australia/Sydney'],
    ]);
    assert.deepEqual(sandboxClusterPlacements(1).map((c) => c.name), ['c1']);
    assert.equal(new Set(sandboxClusterPlacements(MAX_SANDBOX_CLUSTERS).map((c) => c.timeZone)).size, MAX_SANDBOX_CLUSTERS);
    assert.throws(() => sandboxClusterPlacements(MAX_SANDBOX_CLUSTERS + 1), /is not from 1 to 5/);
  });

  test('their registrations pass the checks PUT /v1/clusters runs on labels and zones', () => {
    for (const p of sandboxClusterPlacements(MAX_SANDBOX_CLUSTERS)) {
      const reg = sandboxRegistration(p, 'https://127.0.0.1:6443');
      assert.deepEqual(clusterPlacementIssues(reg), [], p.name);
      assert.deepEqual(reg.endpoint, { server: 'https://127.0.0.1:6443', insecureSkipTlsVerify: true });
    }
  });

  test('examples/fleet.yaml selects all three: c1 in the canary wave, c2 and c3 in the rest', () => {
    const doc = parse(readFileSync(new URL('../../../examples/fleet.yaml', import.meta.url), 'utf8'));
    const spec = parseFleetRollout(doc);
    const clusters = sandboxClusterPlacements(3).map((p) => clusterInfo(sandboxRegistration(p, 'https://127.0.0.1:1')));
    assert.deepEqual(placementIssues(spec, clusters), []);
    assert.deepEqual(assignWaves(spec, clusters).map((w) => [w.wave.name, w.members.map((m) => m.cluster.name)]), [['canary', ['c1']], ['rest', ['c2', 'c3']]]);
  });

  test('the kubeconfig has one context per cluster, named after it, c1 current', () => {
    const kc = new KubeConfig();
    kc.loadFromString(fleetKubeconfig([{ name: 'c1', server: 'https://127.0.0.1:1', token: 't1' }, { name: 'c2', server: 'https://127.0.0.1:2', token: 't2' }]));
    assert.equal(kc.getCurrentContext(), 'c1');
    kc.setCurrentContext('c2');
    assert.equal(kc.getCurrentCluster()?.server, 'https://127.0.0.1:2');
    assert.equal(kc.getCurrentUser()?.token, 't2');
  });

  test('a restart with another number of clusters is refused, saying how to start it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sandbox-fleet-'));
    try {
      await claimClusterCount(dir, 3);
      await claimClusterCount(dir, 3);
      await assert.rejects(claimClusterCount(dir, 2), /the sandbox in .* has 3 clusters; start it with --clusters 3, or start over with --clusters 2 --fresh/);
      assert.equal(readFileSync(path.join(dir, 'clusters'), 'utf8'), '3\n', 'unchanged');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the banner of serve --clusters 3', () => {
  test('lists each cluster with its labels and zone, the fleet table, a context per cluster, and the fleet commands', async () => {
    const { renderBanner } = await import('../../../shared/local/banner.ts');
    const { dataDirPaths } = await import('../../../shared/local/dataDir.ts');
    const clusters = sandboxClusterPlacements(3).map((p, i) => ({ name: p.name, server: `https://127.0.0.1:${6443 + i}`, version: 'v1.34.4', labels: p.labels, timeZone: p.timeZone }));
    const text = renderBanner({
      endpoint: 'http://127.0.0.1:4000', paths: dataDirPaths('/src/app/.rollouts'), principal: 'me', podReadyDelayMs: 300, sweepSeconds: 10, startupMs: 41000, cwd: '/src/app',
      resyncSeconds: 30, watched: ['Deployment'],
      cluster: { kind: 'sandboxes', clusters, restarted: false, demo: { namespace: 'default', name: 'web', replicas: 10, images: { app: 'nginx:1.27' } } },
    });
    assert.match(text, /embedded DynamoDB \(dynalite\) in \.rollouts\/fleet\/dynamodb/);
    assert.match(text, /3 sandbox clusters \(kwok nodes; pods become ready 300 ms after scheduling;/);
    assert.match(text, /^ {4}c1 {3}Kubernetes v1\.34\.4 at https:\/\/127\.0\.0\.1:6443 {2}ring=canary,region=eu-west-1,zone=eu-west-1a,env=sandbox {2}Europe\/Dublin$/m);
    assert.match(text, /^ {4}c3 {3}Kubernetes v1\.34\.4 at https:\/\/127\.0\.0\.1:6445 {2}ring=rest,region=ap-southeast-2/m);
    assert.match(text, /KUBECONFIG=\.rollouts\/kubeconfig kubectl --context c1 get pods {3}\(one context per cluster\)/);
    assert.match(text, /^ {2}npx rollouts fleet apply -f examples\/fleet\.yaml$/m);
    assert.match(text, /^ {2}npx rollouts fleet release web --image app=nginx:1\.28$/m);
    assert.match(text, /^ {2}npx rollouts fleet approve web$/m);
  });
});
