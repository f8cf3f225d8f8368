// Adding a kind touches its own folder and the registry, nothing else: a seventh kind, ShardSet
// (./shardSetDriver.ts, whose controller is ./shardSetController.ts), is registered with one call and
// then goes through the product's own core unchanged: its Rollout is parsed and checked against the
// kind's declared capabilities, and a release is planned end to end (hold, three batches, hand back)
// by plan() over the driver's view, with the driver's writes applied to the workload.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '../../../../shared/errors.ts';
import { plan } from '../../../../shared/rollout/plan.ts';
import { parseRollout, ROLLOUTS_API_VERSION } from '../../../../shared/rollout/spec.ts';
import { initialState } from '../../../../shared/rollout/state.ts';
import type { ReleaseState, RolloutSpec } from '../../../../shared/rollout/types.ts';
import { describeWorkloadType, workloadKindOf } from '../../../../shared/rollout/workloadKinds.ts';
import { driverFor, registerDriver } from '../../../../shared/workloads/registry.ts';
import { ShardSetController } from './shardSetController.ts';
import { SHARDSET_API_VERSION, SHARDSET_KIND, revisionOfImage, shardSetDriver } from './shardSetDriver.ts';

registerDriver(shardSetDriver);

function rolloutDoc(spec: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: ROLLOUTS_API_VERSION, kind: 'Rollout', metadata: { name: 'web', namespace: 'shop' },
    spec: {
      workloadRef: { apiVersion: SHARDSET_API_VERSION, kind: 'ShardSet', name: 'web' },
      strategy: { canary: { steps: [{ replicas: 1, pause: { duration: 10 } }, { replicas: '50%', pause: { duration: 10 } }, { replicas: '100%' }] } },
      ...spec,
    },
  };
}

/** The reconcile loop around the pure planner: observe, view, plan, write; the controller steps between passes. */
class Loop {
  state: ReleaseState = initialState();
  now = new Date('2026-12-02T10:00:00.000Z');

  constructor(readonly spec: RolloutSpec, readonly cluster: ShardSetController) {}

  pass(): void {
    const driver = driverFor(this.spec.workloadRef.kind);
    const obs = this.cluster.observation(this.now);
    const view = driver.view(obs);
    const result = plan(this.spec, this.state, view, this.now);
    this.cluster.apply(driver.writes(obs, result.actions, view));
    this.state = result.nextState;
  }

  run(done: () => boolean, maxPasses = 100): void {
    for (let i = 0; i < maxPasses && !done(); i += 1) {
      this.pass();
      this.cluster.settle();
      this.now = new Date(this.now.getTime() + 5_000);
    }
    assert.ok(done(), `not done after ${maxPasses} passes: ${this.state.phase} ${this.state.message}`);
  }
}

describe('a seventh workload kind, registered with one call', () => {
  test('is known to the core by its workloadRef, with the capabilities its driver declares', () => {
    assert.equal(workloadKindOf(SHARDSET_API_VERSION, 'ShardSet'), SHARDSET_KIND);
    assert.equal(describeWorkloadType(SHARDSET_KIND), 'ShardSet (example.io/v1)');
    const spec = parseRollout(rolloutDoc(), { cluster: 'prod' });
    assert.deepEqual(spec.workloadRef, { apiVersion: SHARDSET_API_VERSION, kind: SHARDSET_KIND, name: 'web' });
    assert.equal(spec.deploymentStrategy, null, 'no strategies declared: none is recorded');
    assert.equal(spec.onDeletePolicy, null, 'no OnDelete declared');
    assert.throws(() => registerDriver(shardSetDriver), /already known/);
  });

  test('its Rollout is checked against those capabilities: a strategy is refused, a preUpdate hook accepted', () => {
    assert.throws(() => parseRollout(rolloutDoc({ deploymentStrategy: 'Partition' }), { cluster: 'prod' }), (err: unknown) =>
      err instanceof ValidationError && err.issues.some((i) => i.path === 'spec.deploymentStrategy' && /a ShardSet has one way of moving pods/.test(i.reason)));
    const hooked = parseRollout(rolloutDoc({ lifecycle: { preUpdate: { http: { url: 'https://hooks.example/pre' } } } }), { cluster: 'prod' });
    assert.ok(hooked.lifecycle?.preUpdate);
  });

  test('a release is planned end to end: held at rest, 1 → 2 → 4 pods by the partition, complete and held again', () => {
    const cluster = new ShardSetController(4, 'app:v1');
    const loop = new Loop(parseRollout(rolloutDoc(), { cluster: 'prod' }), cluster);
    loop.run(() => cluster.partition === 4 && loop.state.phase === 'Healthy');
    assert.deepEqual(cluster.partitions, [4], 'held with a partition of every pod');

    cluster.setImage('app:v2');
    loop.run(() => loop.state.phase === 'Completed' && cluster.pods.every((p) => p.image === 'app:v2' && p.ready));
    loop.run(() => cluster.partition === 4);
    assert.deepEqual(cluster.partitions, [4, 3, 2, 0, 4], 'one batch per step (1, 2, then 4 of 4 pods on the new revision), then held again at rest');
    assert.equal(loop.state.stableRevision, revisionOfImage('app:v2'));
    assert.equal(loop.state.release, null);
  });
});
