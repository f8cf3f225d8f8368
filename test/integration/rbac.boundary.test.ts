// The least-privilege boundary on the real apiserver (issue 13): the product's user, bound only by
// infra/k8s/rollouts-rbac.yaml (derived from the drivers' declarations, shared/workloads/rbac.ts),
// is granted exactly what the registry needs and refused the rest, tried as an attacker holding its
// token would, with the real kubectl; and with `namespaces` configured for a cluster (the commands
// `cdk synth` prints, infra/constructs/ClusterAccess.ts), it can touch nothing outside them, and a
// rollout there goes Degraded saying so instead of retrying forever.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AppsV1Api, AuthorizationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { KUBERNETES_GROUP, namespaceBindingCommands } from '../../infra/constructs/ClusterAccess.ts';
import { productRbac } from '../../shared/traffic/rbac.ts';
import { Engine, type Scenario } from '../../bench/testbed/engine.ts';
import { grantsOfAccess } from '../support/rbacManifest.ts';
import { waitFor } from '../../bench/testbed/wait.ts';

let engine: Engine;
let namespace: string;

/** What every authenticated user may do (system:basic-user, system:discovery): not ours to grant or refuse. */
const EVERYONE = /^(authorization\.k8s\.io\/selfsubject(access|rules)reviews|authentication\.k8s\.io\/selfsubjectreviews) /;

/** "group/resource verb" the apiserver itself says the product's user may do in `ns` (SelfSubjectRulesReview). */
async function grantedIn(ns: string): Promise<string[]> {
  const review = await engine.cluster.rollouts.makeApiClient(AuthorizationV1Api).createSelfSubjectRulesReview({ body: { spec: { namespace: ns } } });
  return (review.status?.resourceRules ?? [])
    .flatMap((r) => (r.apiGroups ?? []).flatMap((g) => (r.resources ?? []).flatMap((res) => r.verbs.map((v) => `${g}/${res} ${v}`))))
    .filter((g) => !EVERYONE.test(g))
    .sort();
}

/** The real kubectl as the product's user; the refusal must be the apiserver's RBAC answer. */
async function refused(args: string[], input?: string): Promise<string> {
  const r = await engine.cluster.kubectl(args, { as: 'rollouts', ...(input === undefined ? {} : { input }) });
  assert.notEqual(r.code, 0, `kubectl ${args.join(' ')} succeeded: ${r.stdout}`);
  assert.match(r.stderr, /Forbidden|forbidden/, r.stderr);
  return r.stderr;
}

describe('the product\'s Kubernetes user holds exactly the documented role', () => {
  before(async () => {
    engine = await Engine.start({ podReadyDelayMs: 200 });
    namespace = await engine.cluster.createNamespace('boundary');
    await engine.cluster.createDeployment(namespace, 'web', { replicas: 2, image: 'registry.invalid/web:v1' });
    await engine.cluster.admin.makeApiClient(CoreV1Api).createNamespacedSecret({ namespace, body: { metadata: { name: 'db-password' }, stringData: { password: 'hunter2' } } });
    await waitFor(async () => (await engine.cluster.admin.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: 'web', namespace })).status?.readyReplicas === 2, { message: 'web ready' });
  });
  after(async () => {
    await engine?.stop();
  });

  test('the apiserver grants it the union of the drivers\' declarations, and nothing more', async () => {
    assert.deepEqual(await grantedIn(namespace), grantsOfAccess(productRbac().reconcile));
  });

  test('it may do its job: observe, hold and pace a Deployment (so the refusals below are the role at work)', async () => {
    const ok = await engine.cluster.kubectl(['patch', 'deployment', 'web', '-n', namespace, '--type=merge', '-p', '{"spec":{"minReadySeconds":0}}'], { as: 'rollouts' });
    assert.equal(ok.code, 0, ok.stderr);
    const pods = await engine.cluster.kubectl(['get', 'pods', '-n', namespace, '-o', 'name'], { as: 'rollouts' });
    assert.equal(pods.code, 0, pods.stderr);
    assert.equal(pods.stdout.trim().split('\n').length, 2);
  });

  const podOf = async (): Promise<string> => {
    const list = await engine.cluster.admin.makeApiClient(CoreV1Api).listNamespacedPod({ namespace });
    return list.items[0]?.metadata?.name as string;
  };
  const cases: [string, () => Promise<string[]>][] = [
    ['delete the Deployment', async () => ['delete', 'deployment', 'web', '-n', namespace]],
    ['read a Secret', async () => ['get', 'secret', 'db-password', '-n', namespace, '-o', 'yaml']],
    ['list Secrets', async () => ['get', 'secrets', '-n', namespace]],
    ['read a ConfigMap', async () => ['get', 'configmaps', '-n', namespace]],
    ['create a Deployment', async () => ['create', 'deployment', 'intruder', '-n', namespace, '--image=registry.invalid/x:1']],
    ['replace (update) the Deployment instead of patching it', async () => ['replace', '-f', '-', '-n', namespace]],
    ['scale the Deployment through its scale subresource', async () => ['scale', 'deployment', 'web', '-n', namespace, '--replicas=5']],
    ['write the Deployment\'s status', async () => ['patch', 'deployment', 'web', '-n', namespace, '--subresource=status', '--type=merge', '-p', '{"status":{"replicas":9}}']],
    ['delete a ReplicaSet', async () => ['delete', 'replicasets', '--all', '-n', namespace]],
    ['relabel a pod (patch is not granted on pods)', async () => ['label', 'pod', await podOf(), '-n', namespace, 'owned=yes']],
    ['create a pod', async () => ['run', 'intruder', '-n', namespace, '--image=registry.invalid/x:1']],
    ['exec into a pod', async () => ['exec', await podOf(), '-n', namespace, '--', 'true']],
    ['list namespaces', async () => ['get', 'namespaces']],
    ['read nodes', async () => ['get', 'nodes']],
    ['grant itself more (create a ClusterRoleBinding)', async () => ['create', 'clusterrolebinding', 'escalate', '--clusterrole=cluster-admin', `--group=${KUBERNETES_GROUP}`]],
    ['impersonate the admin', async () => ['get', 'secrets', '-n', namespace, '--as=admin']],
  ];

  for (const [what, args] of cases) {
    test(`it may not ${what}, and nothing changes`, async () => {
      const apps = engine.cluster.admin.makeApiClient(AppsV1Api);
      const before = await apps.readNamespacedDeployment({ name: 'web', namespace });
      const argv = await args();
      const input = argv[0] === 'replace' ? JSON.stringify({ ...before, spec: { ...before.spec, replicas: 7 } }) : undefined;
      const message = await refused(argv, input);
      assert.doesNotMatch(message, /hunter2/);
      const afterwards = await apps.readNamespacedDeployment({ name: 'web', namespace });
      assert.equal(afterwards.metadata?.generation, before.metadata?.generation, 'the Deployment is as it was');
      assert.equal((await engine.cluster.admin.makeApiClient(CoreV1Api).listNamespacedPod({ namespace })).items.length, 2, 'the pods are as they were');
      assert.equal((await apps.listNamespacedDeployment({ namespace })).items.length, 1, 'no Deployment created');
    });
  }
});

describe('with namespaces configured, nothing outside them', () => {
  const granted = 'granted';
  let other: string;
  let inside: Scenario;
  before(async () => {
    engine = await Engine.start({ podReadyDelayMs: 200 });
    inside = await engine.scenario(granted, { namespace: granted, replicas: 2 });
    other = await engine.cluster.createNamespace('other');
    await engine.cluster.createDeployment(other, 'web', { replicas: 2, image: 'registry.invalid/web:v1' });
    // Exactly what `cdk synth` prints for a cluster with "namespaces": ["granted"].
    for (const argv of namespaceBindingCommands([KUBERNETES_GROUP], [granted])) {
      const r = await engine.cluster.kubectl(argv);
      assert.equal(r.code, 0, `kubectl ${argv.join(' ')}: ${r.stderr}`);
    }
  });
  after(async () => {
    await engine?.stop();
  });

  test('inside the granted namespace it holds the whole role; outside it, nothing', async () => {
    assert.deepEqual(await grantedIn(granted), grantsOfAccess(productRbac().reconcile));
    assert.deepEqual(await grantedIn(other), []);
  });

  test('it may not read, patch or list workloads outside the granted namespace, nor across namespaces', async () => {
    await refused(['get', 'deployment', 'web', '-n', other]);
    await refused(['patch', 'deployment', 'web', '-n', other, '--type=merge', '-p', '{"spec":{"paused":true}}']);
    await refused(['get', 'pods', '-n', other]);
    await refused(['get', 'deployments', '--all-namespaces']);
    const paused = (await engine.cluster.admin.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: 'web', namespace: other })).spec?.paused;
    assert.notEqual(paused, true, 'untouched');
  });

  test('a rollout outside the granted namespaces goes Degraded with the apiserver\'s refusal in one pass, and its workload is untouched', async () => {
    const outside = await engine.scenario('outside', { replicas: 2 });
    const result = await outside.reconcile();
    assert.equal(result.outcome, 'degraded');
    const state = await outside.state();
    assert.equal(state.phase, 'Degraded');
    assert.match(state.message, /forbidden/i);
    assert.match(state.message, /serverless-rollouts/);
    const d = await engine.cluster.admin.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: 'web', namespace: outside.namespace });
    assert.notEqual(d.spec?.paused, true, 'not held: nothing was written');
    assert.deepEqual(Object.keys(d.metadata?.annotations ?? {}).filter((k) => k.startsWith('rollouts.')), []);
  });

  test('a rollout inside the granted namespace is adopted and held as usual', async () => {
    const snap = await inside.reconcileUntil((x) => x.state.phase === 'Healthy', 'the rollout in the granted namespace to be adopted');
    assert.equal(snap.deployment.spec?.paused, true);
  });
});
