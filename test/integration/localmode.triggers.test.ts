// No release is lost or late because an event was missed, tried as a user would: `rollouts serve`
// in child processes and the `rollouts` CLI, workloads changed as `kubectl set image` changes them
// (a strategic-merge patch of the image, by the cluster admin).
//  - Local mode A (sandbox, watches on, resync every hour so it cannot rescue anything here):
//    `apply -f` immediately followed by `release`, for new and changed Rollouts of Deployments and
//    StatefulSets, always starts; a StatefulSet release by an image change alone starts on the
//    watch path; a timed pause ends because its wake-up fired.
//  - Local mode B on the same cluster through the least-privilege kubeconfig, with every watch
//    event dropped (`--no-watch`) and a 4 s resync: a StatefulSet release by an image change alone
//    starts through the resync, and a Deployment release completes, paced by the resync.
// Both print every pass with its reason (--verbose): that is what the assertions read.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AppsV1Api, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { createDeployment, createNamespace, loadKubeConfig } from '../../bench/testbed/kube.ts';
import { ServeProcess, cleanEnv, ourProcesses, rolloutsAt, type ServeLine } from '../../bench/testbed/localModeProcess.ts';
import { waitFor } from '../../bench/testbed/wait.ts';

const homeA = mkdtempSync(path.join(tmpdir(), 'rollouts-triggers-a-'));
const homeB = mkdtempSync(path.join(tmpdir(), 'rollouts-triggers-b-'));
const env = cleanEnv();
const strategicMerge = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
let a: ServeProcess;
let b: ServeProcess;
let admin: KubeConfig;

type Kind = 'Deployment' | 'StatefulSet';

function rolloutYaml(namespace: string, name: string, kind: Kind, steps: string[]): string {
  return [
    'apiVersion: rollouts.serverless-rollouts.io/v1alpha1',
    'kind: Rollout',
    `metadata: {name: ${name}, namespace: ${namespace}}`,
    'spec:',
    `  workloadRef: {apiVersion: apps/v1, kind: ${kind}, name: ${name}}`,
    '  strategy:',
    '    canary:',
    '      steps:',
    ...steps.map((s) => `        - ${s}`),
    '',
  ].join('\n');
}

function writeRollout(home: string, namespace: string, name: string, kind: Kind, steps: string[]): string {
  const file = path.join(home, `${namespace}-${name}-${Date.now()}.yaml`);
  writeFileSync(file, rolloutYaml(namespace, name, kind, steps));
  return file;
}

async function createStatefulSet(namespace: string, name: string, replicas: number): Promise<void> {
  const labels = { app: name };
  await admin.makeApiClient(AppsV1Api).createNamespacedStatefulSet({
    namespace,
    body: {
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name, labels },
      spec: { replicas, serviceName: name, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'registry.invalid/app:v1' }] } } },
    },
  });
}

/** What `kubectl set image <kind>/<name> app=<image>` sends. */
async function setImage(namespace: string, kind: Kind, name: string, image: string): Promise<void> {
  const apps = admin.makeApiClient(AppsV1Api);
  const body = { spec: { template: { spec: { containers: [{ name: 'app', image }] } } } };
  if (kind === 'Deployment') await apps.patchNamespacedDeployment({ namespace, name, body }, strategicMerge);
  else await apps.patchNamespacedStatefulSet({ namespace, name, body }, strategicMerge);
}

async function state(home: string, namespace: string, name: string): Promise<Record<string, any>> {
  const r = await rolloutsAt(home, env, 'get', name, '-n', namespace, '-o', 'json');
  assert.equal(r.code, 0, r.err);
  return (JSON.parse(r.out) as { state: Record<string, any> }).state;
}

async function adopted(home: string, namespace: string, name: string): Promise<void> {
  await waitFor(async () => (await state(home, namespace, name)).stableRevision, { message: `${namespace}/${name} to be adopted`, timeoutMs: 60_000, intervalMs: 200 });
}

/** Adopted and quiet: the pass after the one that held it (it looks at its own write) found nothing to do. */
async function settled(serve: ServeProcess, home: string, namespace: string, name: string): Promise<void> {
  await adopted(home, namespace, name);
  await serve.waitForLine(new RegExp(`reconcile ${namespace}/${name} \\(requeue\\): noop Healthy`), { message: `${namespace}/${name} to settle` });
}

/** The reason of the pass that printed `line`: its "reconcile <ns>/<name> (<reason>)" line comes after its events. */
async function passOf(serve: ServeProcess, line: ServeLine, key: string): Promise<string | undefined> {
  const pass = await serve.waitForLine(new RegExp(`reconcile ${key} \\(`), { from: serve.lines.indexOf(line), message: `the pass line of ${key}` });
  return /\((\w+)\)/.exec(pass.line)?.[1];
}

/**
 * A managed, settled StatefulSet `db` gets a new image by a patch alone; returns the reason of the
 * pass that started its release.
 */
async function statefulSetReleaseByImageAlone(serve: ServeProcess, home: string, prefix: string): Promise<string | undefined> {
  const ns = await createNamespace(admin, prefix);
  await createStatefulSet(ns, 'db', 2);
  assert.equal((await rolloutsAt(home, env, 'apply', '-f', writeRollout(home, ns, 'db', 'StatefulSet', ['{replicas: 1, pause: {}}', '{replicas: 100%}']))).code, 0);
  await settled(serve, home, ns, 'db');
  const from = serve.lines.length;
  await setImage(ns, 'StatefulSet', 'db', 'registry.invalid/app:v2');
  const started = await serve.waitForLine(new RegExp(`event Release Started: ${ns}/db `), { from, timeoutMs: 60_000 });
  return passOf(serve, started, `${ns}/db`);
}

describe('no release is lost or late because an event was missed (local mode, as a user)', () => {
  before(async () => {
    a = await ServeProcess.start(homeA, ['--sandbox', '--pod-ready-ms', '300', '--verbose', '--resync-seconds', '3600'], env);
    admin = loadKubeConfig(path.join(homeA, 'kubeconfig'));
    // B drives the same cluster as the documented least-privilege user, with the watches off.
    b = await ServeProcess.start(homeB, ['--no-watch', '--verbose', '--resync-seconds', '4'], cleanEnv({ KUBECONFIG: path.join(homeA, 'sandbox', 'kube', 'rollouts.kubeconfig') }));
  });

  after(async () => {
    await Promise.all([b?.interrupt(), a?.interrupt()]);
    assert.deepEqual(ourProcesses(homeA), []);
    rmSync(homeA, { recursive: true, force: true });
    rmSync(homeB, { recursive: true, force: true });
  });

  test('apply -f immediately followed by release starts every release: new and changed Rollouts, Deployments and StatefulSets', async () => {
    const ns = await createNamespace(admin, 'apply-release');
    const workloads: { name: string; kind: Kind; changed: boolean }[] = [
      { name: 'dep-new', kind: 'Deployment', changed: false },
      { name: 'dep-changed', kind: 'Deployment', changed: true },
      { name: 'sts-new', kind: 'StatefulSet', changed: false },
      { name: 'sts-changed', kind: 'StatefulSet', changed: true },
    ];
    for (const w of workloads) {
      if (w.kind === 'Deployment') await createDeployment(admin, ns, w.name, { replicas: 2 });
      else await createStatefulSet(ns, w.name, 2);
    }
    // The changed ones exist (and are managed) before; the release follows an apply that changes them.
    for (const w of workloads.filter((x) => x.changed)) {
      assert.equal((await rolloutsAt(homeA, env, 'apply', '-f', writeRollout(homeA, ns, w.name, w.kind, ['{replicas: 1, pause: {}}', '{replicas: 100%}']))).code, 0);
      await adopted(homeA, ns, w.name);
    }
    for (const w of workloads) {
      const file = writeRollout(homeA, ns, w.name, w.kind, ['{replicas: 1, pause: {duration: 3600}}', '{replicas: 100%}']);
      const applied = await rolloutsAt(homeA, env, 'apply', '-f', file);
      assert.equal(applied.code, 0, applied.err);
      assert.equal(applied.out, `rollout/${w.name} ${w.changed ? 'configured' : 'created'}\n`);
      const released = await rolloutsAt(homeA, env, 'release', w.name, '-n', ns, '--image', 'app=registry.invalid/app:v2');
      assert.equal(released.code, 0, released.err);
    }
    for (const w of workloads) {
      await a.waitForLine(new RegExp(`event Release Started: ${ns}/${w.name} `), { message: `the release of ${w.kind} ${w.name} to start`, timeoutMs: 60_000 });
    }
  });

  test('a StatefulSet release by an image change alone (no command of ours) starts on the watch path', async () => {
    assert.equal(await statefulSetReleaseByImageAlone(a, homeA, 'sts-watch'), 'watch', a.output().slice(-2000));
  });

  test('a timed pause ends because its wake-up fired: scheduled for the pause\'s deadline, never dropped', async () => {
    const ns = await createNamespace(admin, 'timed-pause');
    await createDeployment(admin, ns, 'web', { replicas: 3 });
    assert.equal((await rolloutsAt(homeA, env, 'apply', '-f', writeRollout(homeA, ns, 'web', 'Deployment', ['{replicas: 1, pause: {duration: 5}}', '{replicas: 100%}']))).code, 0);
    await adopted(homeA, ns, 'web');
    await setImage(ns, 'Deployment', 'web', 'registry.invalid/app:v2');
    const paused = await waitFor(async () => {
      const s = await state(homeA, ns, 'web');
      return s.release?.stepState === 'StepPaused' && s.nextWakeAt ? s : null;
    }, { message: 'the timed pause to begin', timeoutMs: 60_000, intervalMs: 200 });
    const deadline: string = paused.nextWakeAt;
    // The pass that began the pause asked for a pass at its deadline…
    await a.waitForLine(new RegExp(`next pass of ${ns}/web at ${deadline.replaceAll('.', '\\.')} \\(wake\\)`), { message: `a wake-up scheduled for ${deadline}` });
    // …and that wake-up ran, at or after the deadline, and the release went on to step 2.
    const woke = await a.waitForLine(new RegExp(`reconcile ${ns}/web \\(wake\\)`), { timeoutMs: 60_000, message: 'the wake-up pass' });
    assert.ok(woke.at >= Date.parse(deadline), `the wake-up ran at ${new Date(woke.at).toISOString()}, before ${deadline}`);
    const done = await rolloutsAt(homeA, env, 'status', 'web', '-n', ns, '--timeout', '2m');
    assert.equal(done.code, 0, `${done.out}${done.err}`);
    assert.ok(a.lines.some((l) => l.line.includes(`event Step Started: ${ns}/web`) || l.line.includes(`event Release Finalizing: ${ns}/web`)), 'step 2 began');
  });

  test('with every watch event dropped, a StatefulSet release by an image change alone starts through the resync', async () => {
    assert.match(b.output(), /watches OFF \(--no-watch\)/);
    assert.equal(await statefulSetReleaseByImageAlone(b, homeB, 'sts-resync'), 'sweep', 'no watch, no command: only the resync can have started it');
  });

  test('with every watch event dropped, a Deployment release still completes, paced by the resync', async () => {
    const ns = await createNamespace(admin, 'dep-resync');
    await createDeployment(admin, ns, 'web', { replicas: 4 });
    assert.equal((await rolloutsAt(homeB, env, 'apply', '-f', writeRollout(homeB, ns, 'web', 'Deployment', ['{replicas: 1, pause: {duration: 0}}', '{replicas: 50%, pause: {duration: 0}}', '{replicas: 100%}']))).code, 0);
    await settled(b, homeB, ns, 'web');
    const from = b.lines.length;
    await setImage(ns, 'Deployment', 'web', 'registry.invalid/app:v2');
    const started = await b.waitForLine(new RegExp(`event Release Started: ${ns}/web `), { from, timeoutMs: 60_000 });
    assert.equal(await passOf(b, started, `${ns}/web`), 'sweep');
    const done = await rolloutsAt(homeB, env, 'status', 'web', '-n', ns, '--timeout', '3m');
    assert.equal(done.code, 0, `${done.out}${done.err}\n${b.since(from, new RegExp(ns)).map((l) => l.line).join('\n')}`);
    assert.equal(b.since(from, new RegExp(`reconcile ${ns}/web \\(watch\\)`)).length, 0, 'no watch pass at all');
    const r = await rolloutsAt(homeB, env, 'get', 'web', '-n', ns, '-o', 'json');
    const revisions = (JSON.parse(r.out) as { workload: { revisions: { images: Record<string, string>; pods: unknown[] }[] } }).workload.revisions;
    assert.deepEqual(revisions.map((x) => [x.images.app, x.pods.length]), [['registry.invalid/app:v2', 4], ['registry.invalid/app:v1', 0]]);
  });
});
