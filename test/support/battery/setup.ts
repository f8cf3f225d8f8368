// Puts each fixture of fixtures.ts in the state its cases need, through the API and `reconcile`,
// then waits until the cluster is at rest.
import { FIXTURES, type FixtureName } from '../../../bench/testbed/battery/fixtures.ts';
import { CLUSTER } from '../../../bench/testbed/engine.ts';
import type { Battery } from './harness.ts';

const REPLICAS = 2;

export async function setUpFixtures(b: Battery): Promise<void> {
  // The fixtures' cluster registered (the deregistration cases aim at it); the APIs reach it through the engine's client.
  await b.engine.store.putCluster({ name: CLUSTER, endpoint: { server: 'https://127.0.0.1:6443' } });
  await b.createNamespace();
  const deployments = (['web', 'busy', 'held', 'leaving', 'dupes'] as const);
  for (const name of deployments) await b.createDeployment(name, { replicas: REPLICAS });
  await b.createDeployment('recreate', { replicas: REPLICAS, strategy: { type: 'Recreate' } });
  await b.createStatefulSet('db', REPLICAS);
  for (const name of [...deployments, 'recreate'] as const) await b.waitForReady('Deployment', name, REPLICAS);
  await b.waitForReady('StatefulSet', 'db', REPLICAS);

  const managed: FixtureName[] = [...deployments, 'db'];
  for (const name of [...managed, 'orphan', 'clone'] as const) await b.applyRollout(name);
  for (const name of managed) await b.reconcileUntil(name, (s) => s.stableRevision !== null && s.phase === 'Healthy', `${name} to be adopted`);

  await b.command('busy', 'release', { images: { app: 'registry.invalid/app:v2' } });
  await b.reconcileUntil('busy', (s) => s.release?.stepIndex === 0 && s.release.stepState === 'StepPaused', 'busy to wait for approval at step 1');
  await b.command('held', 'pause');
  await b.reconcileUntil('held', (s) => s.userPaused && s.commands.length === 0, 'held to be paused');
  // Recorded and left pending: nothing reconciles them.
  await b.command('leaving', 'delete');
  await b.command('dupes', 'pause', { commandId: FIXTURES.dupes.pendingCommandId });
}
