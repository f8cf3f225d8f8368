// The real kubectl (built at the control plane's version) works against the test bed as users run
// it, including `kubectl exec` into kwok pods, which kwok runs on this host in the plane's exec dir.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AppsV1Api, CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { deploymentManifest, isPodReady, startTestCluster, type TestCluster } from '../../bench/testbed/kube.ts';
import { waitFor } from '../../bench/testbed/wait.ts';


describe('kubectl on the test bed', () => {
  let cluster: TestCluster;

  before(async () => {
    cluster = await startTestCluster();
  });

  after(async () => {
    await cluster?.stop();
  });

  async function readyPod(namespace: string, name: string): Promise<V1Pod> {
    const core = cluster.admin.makeApiClient(CoreV1Api);
    await core.createNamespacedPod({ namespace, body: { metadata: { name }, spec: { containers: [{ name: 'app', image: 'registry.invalid/app:v1' }] } } });
    return waitFor(async () => {
      const pod = await core.readNamespacedPod({ name, namespace });
      return isPodReady(pod) ? pod : undefined;
    }, { message: `pod ${name} Ready` });
  }

  test('is the control plane version', async () => {
    const expected = execFileSync('bash', ['scripts/build-testplane.sh', '--print-version'], { encoding: 'utf8' }).trim();
    const { stdout, code } = await cluster.kubectl(['version', '-o', 'json']);
    assert.equal(code, 0);
    const versions = JSON.parse(stdout) as { clientVersion: { gitVersion: string }; serverVersion: { gitVersion: string } };
    assert.equal(versions.clientVersion.gitVersion, expected);
    assert.equal(versions.serverVersion.gitVersion, expected);
  });

  test('kubectl exec runs the command in the plane exec dir and prints its output', async () => {
    const namespace = await cluster.createNamespace('exec');
    const pod = await readyPod(namespace, 'web');
    // Nodes point their kubelet endpoint at kwok's server on loopback, so every pod's hostIP is too.
    assert.equal(pod.status?.hostIP, '127.0.0.1');

    const { stdout, code } = await cluster.kubectl(['exec', '-n', namespace, 'web', '--', 'sh', '-c', 'echo "hello from $KWOK_EXEC"; pwd; echo web >> hooks.log']);
    assert.equal(code, 0);
    assert.deepEqual(stdout.trim().split('\n'), ['hello from true', cluster.execWorkDir]);
    assert.equal(fs.readFileSync(path.join(cluster.execWorkDir, 'hooks.log'), 'utf8'), 'web\n');
  });

  test('a failing exec command exits 1 with its exit code only in the message', async () => {
    const namespace = await cluster.createNamespace('exec-fail');
    await readyPod(namespace, 'web');
    const { code, stderr } = await cluster.kubectl(['exec', '-n', namespace, 'web', '--', 'sh', '-c', 'exit 3']);
    assert.equal(code, 1);
    assert.match(stderr, /exit status 3/);
  });

  test('apply --server-side, set image and rollout resume drive a paused Deployment to the new image', async () => {
    const namespace = await cluster.createNamespace('rollout');
    const manifest = { ...deploymentManifest('web', { replicas: 2, paused: true }), metadata: { name: 'web', namespace } };
    const applied = await cluster.kubectl(['apply', '--server-side', '-f', '-'], { input: JSON.stringify(manifest) });
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /deployment.apps\/web serverside-applied/);

    const setImage = await cluster.kubectl(['set', 'image', '-n', namespace, 'deployment/web', 'app=registry.invalid/app:v2']);
    assert.equal(setImage.code, 0, setImage.stderr);
    const resume = await cluster.kubectl(['rollout', 'resume', '-n', namespace, 'deployment/web']);
    assert.equal(resume.code, 0, resume.stderr);
    const status = await cluster.kubectl(['rollout', 'status', '-n', namespace, 'deployment/web', '--timeout=60s']);
    assert.equal(status.code, 0, status.stderr);

    const deployment = await cluster.admin.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: 'web', namespace });
    assert.equal(deployment.spec?.paused, undefined);
    assert.equal(deployment.spec?.template.spec?.containers[0]?.image, 'registry.invalid/app:v2');
    assert.equal(deployment.status?.updatedReplicas, 2);
  });

  test('kubectl kustomize renders a kustomization', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rollouts-kustomize-'));
    try {
      fs.writeFileSync(path.join(dir, 'kustomization.yaml'), 'namePrefix: team-\nresources:\n- deployment.json\n');
      fs.writeFileSync(path.join(dir, 'deployment.json'), JSON.stringify(deploymentManifest('web')));
      const { stdout, code } = await cluster.kubectl(['kustomize', dir]);
      assert.equal(code, 0);
      assert.match(stdout, /^ {2}name: team-web$/m);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
