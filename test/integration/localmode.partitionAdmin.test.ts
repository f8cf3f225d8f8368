// Local mode on the user's own kubeconfig, on a cluster where infra/k8s/rollouts-rbac.yaml is applied
// with its admission policy serverless-rollouts-partition-hold (issue 21): the user is the cluster
// admin, NOT in the group serverless-rollouts the policy exempts. Local mode impersonates the
// product's identity (shared/local/identity.ts), so a Partition release with a pod killed mid-batch
// and a scale by the user finalizes and completes instead of going Degraded on our own policy.
// A sandbox local mode only provides the cluster (its apiserver, the manifest and the admin user);
// the second local mode, run as the admin through that kubeconfig, drives the release.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AppsV1Api, CoreV1Api, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { createDeployment, createNamespace, loadKubeConfig } from '../../bench/testbed/kube.ts';
import { ServeProcess, cleanEnv, ourProcesses, rolloutsAt } from '../../bench/testbed/localModeProcess.ts';
import { waitFor } from '../../bench/testbed/wait.ts';

const homeCluster = mkdtempSync(path.join(tmpdir(), 'rollouts-partition-cluster-'));
const homeAdmin = mkdtempSync(path.join(tmpdir(), 'rollouts-partition-admin-'));
const env = cleanEnv();
const strategicMerge = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
let cluster: ServeProcess;
let driver: ServeProcess;
let admin: KubeConfig;

async function state(ns: string): Promise<Record<string, any>> {
  const r = await rolloutsAt(homeAdmin, env, 'get', 'web', '-n', ns, '-o', 'json');
  assert.equal(r.code, 0, r.err);
  return (JSON.parse(r.out) as { state: Record<string, any> }).state;
}

describe('local mode as a cluster admin outside the group serverless-rollouts (Partition)', () => {
  before(async () => {
    cluster = await ServeProcess.start(homeCluster, ['--sandbox', '--pod-ready-ms', '300'], env);
    admin = loadKubeConfig(path.join(homeCluster, 'kubeconfig'));
    driver = await ServeProcess.start(homeAdmin, ['--verbose', '--resync-seconds', '5'], cleanEnv({ KUBECONFIG: path.join(homeCluster, 'kubeconfig') }));
  });

  after(async () => {
    await Promise.all([driver?.interrupt(), cluster?.interrupt()]);
    assert.deepEqual(ourProcesses(homeCluster), []);
    rmSync(homeCluster, { recursive: true, force: true });
    rmSync(homeAdmin, { recursive: true, force: true });
  });

  test('a pod killed mid-batch and a scale by the user, then finalizing: the release completes', async () => {
    assert.match(driver.output(), /acting as user serverless-rollouts, group serverless-rollouts \(impersonated/);
    const ns = await createNamespace(admin, 'partition-admin');
    await createDeployment(admin, ns, 'web', { replicas: 4 });
    const file = path.join(homeAdmin, 'rollout.yaml');
    writeFileSync(file, [
      'apiVersion: rollouts.serverless-rollouts.io/v1alpha1',
      'kind: Rollout',
      `metadata: {name: web, namespace: ${ns}}`,
      'spec:',
      '  workloadRef: {apiVersion: apps/v1, kind: Deployment, name: web}',
      '  deploymentStrategy: Partition',
      '  strategy:',
      '    canary:',
      '      steps:',
      '        - {replicas: 2, pause: {}}',
      '        - {replicas: 100%}',
      '',
    ].join('\n'));
    const applied = await rolloutsAt(homeAdmin, env, 'apply', '-f', file);
    assert.equal(applied.code, 0, applied.err);
    await waitFor(async () => (await state(ns)).stableRevision, { message: 'web to be adopted', timeoutMs: 60_000, intervalMs: 300 });

    const apps = admin.makeApiClient(AppsV1Api);
    const core = admin.makeApiClient(CoreV1Api);
    // `kubectl set image` by the admin.
    await apps.patchNamespacedDeployment({ namespace: ns, name: 'web', body: { spec: { template: { spec: { containers: [{ name: 'app', image: 'registry.invalid/app:v2' }] } } } } }, strategicMerge);
    await waitFor(async () => (await state(ns)).release?.stepState === 'StepPaused', { message: 'step 1 to wait for approval', timeoutMs: 90_000, intervalMs: 300 });

    // Mid-batch: a pod of the new revision is killed, and the user scales the Deployment (kubectl scale).
    const pods = (await core.listNamespacedPod({ namespace: ns })).items;
    const v2 = pods.find((p) => p.spec?.containers[0]?.image === 'registry.invalid/app:v2' && !p.metadata?.deletionTimestamp);
    assert.ok(v2?.metadata?.name, 'a pod of the new revision');
    await core.deleteNamespacedPod({ namespace: ns, name: v2.metadata.name, gracePeriodSeconds: 0 });
    await apps.patchNamespacedDeploymentScale({ namespace: ns, name: 'web', body: { spec: { replicas: 5 } } }, mergePatch);

    const approved = await rolloutsAt(homeAdmin, env, 'approve', 'web', '-n', ns);
    assert.equal(approved.code, 0, approved.err);
    const done = await rolloutsAt(homeAdmin, env, 'status', 'web', '-n', ns, '--timeout', '3m');
    assert.equal(done.code, 0, `${done.out}${done.err}\n${driver.output().slice(-3000)}`);

    const s = await state(ns);
    assert.equal(s.phase, 'Completed', s.message);
    const d = await apps.readNamespacedDeployment({ namespace: ns, name: 'web' });
    assert.equal(d.spec?.replicas, 5, 'the user\'s scale kept');
    assert.equal(d.spec?.strategy?.type, 'RollingUpdate', 'handed back with the user\'s strategy');
    const live = (await core.listNamespacedPod({ namespace: ns })).items.filter((p) => !p.metadata?.deletionTimestamp);
    assert.deepEqual([...new Set(live.map((p) => p.spec?.containers[0]?.image))], ['registry.invalid/app:v2']);
    assert.equal(live.length, 5);
    assert.ok(!driver.output().includes(`event Degraded: ${ns}/web`), 'never Degraded on our own policy');
  });
});
