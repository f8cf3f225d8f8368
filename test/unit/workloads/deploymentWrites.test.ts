import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { deploymentWrites } from '../../../shared/workloads/deployment/writes.ts';
import { ORIGINAL_STRATEGY } from '../../../shared/workloads/deployment/deploymentObjects.ts';
import { deployment, observation, replicaSet, template, V1, V2 } from './deploymentFixtures.ts';
import { revisionId } from '../../../shared/workloads/deployment/revision.ts';

/** The check of the fixture Deployment's generation (2) before ReplicaSet moves. */
const GUARD = [{ op: 'test', path: '/metadata/generation', value: 2 }];
const stable = () => replicaSet('web-old', 'web:v1', { replicas: 10, annotations: { 'deployment.kubernetes.io/desired-replicas': '10', 'deployment.kubernetes.io/max-replicas': '13' } });

describe('Deployment driver: planned actions → exact writes', () => {
  it('holds an unpaused Deployment with one merge patch guarded by its resourceVersion', () => {
    const writes = deploymentWrites(observation(deployment({ paused: false, image: 'web:v1' }), [stable()]), [{ type: 'hold' }]);
    assert.deepEqual(writes, [{
      verb: 'patch', ref: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'ns', name: 'web' }, patchType: 'merge',
      resourceVersion: '100', patch: { spec: { paused: true } }, reason: 'hold (pause)',
    }]);
  });

  it('writes nothing when the cluster already matches the plan', () => {
    const obs = observation(deployment({ image: 'web:v1' }), [stable()]);
    assert.deepEqual(deploymentWrites(obs, [{ type: 'hold' }, { type: 'distribute', target: V1, distribution: { [V1]: 10 }, strategy: 'Partition', final: false }]), []);
  });

  it('starts a batch: Recreate takeover first, then the new ReplicaSet, then the stable scale-down', () => {
    const obs = observation(deployment(), [stable()]);
    const writes = deploymentWrites(obs, [{ type: 'distribute', target: V2, distribution: { [V2]: 1, [V1]: 9 }, strategy: 'Partition', final: false }]);
    assert.deepEqual(writes.map((w) => w.verb), ['patch', 'create', 'patch']);
    const [takeover, create, scale] = writes as [any, any, any];
    assert.deepEqual(takeover.patch, {
      metadata: { annotations: { [ORIGINAL_STRATEGY]: JSON.stringify({ type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } }) } },
      spec: { strategy: { type: 'Recreate', rollingUpdate: null } },
    });
    assert.equal(takeover.resourceVersion, '100');
    const rs = create.object;
    assert.equal(rs.metadata.name, `web-${V2}`);
    assert.equal(rs.spec.replicas, 1);
    assert.deepEqual(rs.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'dep-uid', controller: true }]);
    assert.equal(rs.metadata.annotations['deployment.kubernetes.io/revision'], '2');
    assert.equal(rs.metadata.annotations['deployment.kubernetes.io/desired-replicas'], undefined, 'never "saturated" for the native controller');
    assert.equal(rs.spec.template.metadata.labels['pod-template-hash'], V2);
    assert.deepEqual(rs.spec.selector, { matchLabels: { app: 'web', 'pod-template-hash': V2 } });
    assert.deepEqual(scale.patch, { spec: { replicas: 9 } });
    assert.equal(scale.resourceVersion, 'rv-web-old');
  });

  it('keeps Recreate until the cluster shows a single active ReplicaSet, then restores the user strategy', () => {
    const taken = deployment({ strategy: { type: 'Recreate' }, annotations: { [ORIGINAL_STRATEGY]: '{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1,"maxUnavailable":0}}' } });
    const moving = observation(taken, [stable(), replicaSet(`web-${V2}`, 'web:v2', { replicas: 0, revision: 2 })].map((r, i) => (i === 0 ? { ...r, spec: { ...r.spec, replicas: 1 } } : { ...r, spec: { ...r.spec, replicas: 10 }, status: { ...r.status, replicas: 10, readyReplicas: 10, availableReplicas: 10 } })));
    const last = deploymentWrites(moving, [{ type: 'distribute', target: V2, distribution: { [V2]: 10 }, strategy: 'Partition', final: false }]);
    assert.ok(!last.some((w) => w.verb === 'patch' && w.ref.kind === 'Deployment' && !w.precondition), 'no strategy change in the pass that scales the last old pods down');
    const first = last[0] as { ref: { kind: string }; patch: unknown; precondition: boolean };
    assert.deepEqual([first.ref.kind, first.patch, first.precondition], ['Deployment', GUARD, true], 'the scale-down goes behind a check of the Deployment\'s generation');
    const done = observation(taken, [replicaSet('web-old', 'web:v1', { replicas: 0 }), replicaSet(`web-${V2}`, 'web:v2', { replicas: 10, revision: 2 })]);
    const [restore] = deploymentWrites(done, [{ type: 'distribute', target: V2, distribution: { [V2]: 10 }, strategy: 'Partition', final: false }]) as [any];
    assert.deepEqual(restore.patch, { metadata: { annotations: { [ORIGINAL_STRATEGY]: null } }, spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } } });
  });

  it('strips the saturation annotations from a rollback target the native controller created', () => {
    const taken = deployment({ image: 'web:v1', strategy: { type: 'Recreate' }, annotations: { [ORIGINAL_STRATEGY]: '{"type":"RollingUpdate"}' } });
    const obs = observation(taken, [{ ...stable(), spec: { ...stable().spec, replicas: 5 } }, replicaSet(`web-${V2}`, 'web:v2', { replicas: 5, revision: 2 })]);
    const writes = deploymentWrites(obs, [{ type: 'distribute', target: V1, distribution: { [V1]: 10 }, strategy: 'Partition', final: false }]) as any[];
    const up = writes.find((w) => w.ref.name === 'web-old');
    assert.deepEqual(up.patch.metadata, { annotations: { 'deployment.kubernetes.io/desired-replicas': null, 'deployment.kubernetes.io/max-replicas': null } });
  });

  it('hands back last: ReplicaSet writes first, the unpause and strategy restore after them', () => {
    const done = observation(deployment(), [replicaSet('web-old', 'web:v1', { replicas: 0 }), replicaSet(`web-${V2}`, 'web:v2', { replicas: 10, revision: 2 })]);
    const writes = deploymentWrites(done, [{ type: 'release-hold' }]) as any[];
    assert.deepEqual(writes.map((w) => [w.ref.kind, w.patch]), [['Deployment', { spec: { paused: false } }]]);
  });

  it('puts a revision\'s template back with a merge patch that also removes fields the current template added', () => {
    const current = deployment({ image: 'web:v2' });
    (current.spec!.template as any).metadata.labels.canary = 'yes';
    const writes = deploymentWrites(observation(current, [stable()]), [{ type: 'restore-template', revision: V1, strategy: 'Partition' }]) as any[];
    assert.deepEqual(writes.find((w) => w.ref.kind === 'Deployment').patch.spec.template, { metadata: { labels: { canary: null } }, spec: { containers: [{ name: 'app', image: 'web:v1', resources: {} }] } });
  });

  it('applies a requested image change as a strategic merge patch by container name', () => {
    const writes = deploymentWrites(observation(deployment({ image: 'web:v1' }), [stable()]), [{ type: 'set-template', change: { type: 'images', images: { app: 'web:v3' } } }]) as any[];
    assert.deepEqual(writes, [{
      verb: 'patch', ref: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'ns', name: 'web' }, patchType: 'strategic',
      patch: { spec: { template: { spec: { containers: [{ name: 'app', image: 'web:v3' }] } } } }, reason: 'apply the requested pod template change',
    }]);
  });
});

describe('Partition strategy: what the soak found', () => {
  it('strips the saturation annotations of the revision going back before its template is restored (the native controller, seeing it "saturated", scaled the canary to 0 itself)', () => {
    const taken = deployment({ image: 'web:v2', strategy: { type: 'Recreate' }, annotations: { [ORIGINAL_STRATEGY]: '{"type":"RollingUpdate"}' } });
    const old = replicaSet('web-old', 'web:v1', { replicas: 10, annotations: { 'deployment.kubernetes.io/desired-replicas': '10', 'deployment.kubernetes.io/max-replicas': '11' } });
    const writes = deploymentWrites(observation(taken, [old, replicaSet(`web-${V2}`, 'web:v2', { replicas: 1, revision: 2 })]), [{ type: 'restore-template', revision: V1, strategy: 'Partition' }]) as any[];
    assert.deepEqual(writes.map((w) => [w.ref.kind, w.ref.name]), [['ReplicaSet', 'web-old'], ['Deployment', 'web']]);
    assert.deepEqual(writes[0].patch, { metadata: { annotations: { 'deployment.kubernetes.io/desired-replicas': null, 'deployment.kubernetes.io/max-replicas': null } } });
    assert.equal(writes[0].resourceVersion, 'rv-web-old');
  });

  it('sends ReplicaSet moves behind a check of the Deployment\'s generation (a stable scale-down sized for N 4 landed after the user scaled to 5)', () => {
    const taken = deployment({ strategy: { type: 'Recreate' }, annotations: { [ORIGINAL_STRATEGY]: '{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1,"maxUnavailable":0}}' } });
    const obs = observation(taken, [{ ...stable(), spec: { ...stable().spec, replicas: 10 } }, replicaSet(`web-${V2}`, 'web:v2', { replicas: 1, revision: 2 })]);
    const writes = deploymentWrites(obs, [{ type: 'distribute', target: V2, distribution: { [V2]: 1, [V1]: 9 }, strategy: 'Partition', final: false }]) as any[];
    assert.deepEqual(writes.map((w) => [w.ref.kind, w.patch, w.resourceVersion]), [['Deployment', GUARD, undefined], ['ReplicaSet', { spec: { replicas: 9 } }, 'rv-web-old']]);
    assert.equal(writes[0].precondition, true);
  });
});

describe('Partition strategy: a restart never leaves the stable ReplicaSet alone for the native controller (soak)', () => {
  it('creates the new revision\'s ReplicaSet before scaling the interrupted one to 0 (in between, the controller sized the lone stable ReplicaSet to N and the ReplicaSets asked for N + 1 for minutes)', () => {
    const taken = deployment({ image: 'web:v3', replicas: 5, strategy: { type: 'Recreate' }, annotations: { [ORIGINAL_STRATEGY]: '{"type":"RollingUpdate","rollingUpdate":{"maxSurge":0,"maxUnavailable":1}}' } });
    const V3 = revisionId(template('web:v3'));
    const obs = observation(taken, [replicaSet('web-old', 'web:v1', { replicas: 4 }), replicaSet(`web-${V2}`, 'web:v2', { replicas: 1, revision: 2 })]);
    const writes = deploymentWrites(obs, [{ type: 'distribute', target: V3, distribution: { [V3]: 1, [V1]: 4 }, strategy: 'Partition', final: false }]) as any[];
    assert.deepEqual(
      writes.filter((w) => w.ref?.kind !== 'Deployment').map((w) => (w.verb === 'create' ? ['create', w.object.spec.replicas] : [w.ref.name, w.patch.spec.replicas])),
      [['create', 1], [`web-${V2}`, 0]],
    );
  });

  it('scales the last stable pods down before the target\'s last pods: the controller sizing the lone target to N is that very move (ups first asked for N + maxSurge + 1)', () => {
    const taken = deployment({ replicas: 4, strategy: { type: 'Recreate' }, annotations: { [ORIGINAL_STRATEGY]: '{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1,"maxUnavailable":1}}' } });
    const obs = observation(taken, [replicaSet('web-old', 'web:v1', { replicas: 2 }), replicaSet(`web-${V2}`, 'web:v2', { replicas: 3, revision: 2 })]);
    const writes = deploymentWrites(obs, [{ type: 'distribute', target: V2, distribution: { [V2]: 4 }, strategy: 'Partition', final: false }]) as any[];
    assert.deepEqual(writes.filter((w) => w.ref.kind === 'ReplicaSet').map((w) => [w.ref.name, w.patch.spec.replicas]), [['web-old', 0], [`web-${V2}`, 4]]);
  });

  it('brings a rollback\'s stable ReplicaSet back from 0 before scaling the interrupted one down and creating the new one: never above N + maxSurge, never a lone ReplicaSet between two writes', () => {
    const taken = deployment({ image: 'web:v3', replicas: 5, strategy: { type: 'Recreate' }, annotations: { [ORIGINAL_STRATEGY]: '{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"}}' } });
    const V3 = revisionId(template('web:v3'));
    const interrupted = replicaSet(`web-${V2}`, 'web:v2', { replicas: 5, revision: 2 });
    const obs = observation(taken, [replicaSet('web-old', 'web:v1', { replicas: 0 }), interrupted]);
    const writes = deploymentWrites(obs, [{ type: 'distribute', target: V3, distribution: { [V3]: 1, [V1]: 4 }, strategy: 'Partition', final: false }]) as any[];
    const asked = new Map<string, number>([['web-old', 0], [`web-${V2}`, 5]]);
    const afterEach: number[][] = [];
    for (const w of writes.filter((w) => w.ref?.kind !== 'Deployment')) {
      if (w.verb === 'create') asked.set(w.object.metadata.name, w.object.spec.replicas);
      else asked.set(w.ref.name, w.patch.spec.replicas);
      afterEach.push([...asked.values()]);
    }
    assert.ok(afterEach.length >= 2, `several ReplicaSet writes: ${JSON.stringify(writes.map((w) => w.reason))}`);
    for (const state of afterEach.slice(0, -1)) assert.ok(state.filter((n) => n > 0).length >= 2, `a lone active ReplicaSet between two writes: ${JSON.stringify(afterEach)}`);
    for (const state of afterEach) assert.ok(state.reduce((a, b) => a + b, 0) <= 5 + 2, `asked for more than N 5 + maxSurge 2: ${JSON.stringify(afterEach)}`);
  });

  it('brings a second revision up beside a lone ReplicaSet at N by no more than maxSurge: the up must be written first, so the rest waits for a later pass (it asked for N + 2 with maxSurge 1)', () => {
    const taken = deployment({ replicas: 4, strategy: { type: 'Recreate' }, annotations: { [ORIGINAL_STRATEGY]: '{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"}}' } });
    const obs = observation(taken, [replicaSet('web-old', 'web:v1', { replicas: 0 }), replicaSet(`web-${V2}`, 'web:v2', { replicas: 4, revision: 2 })]);
    const writes = deploymentWrites(obs, [{ type: 'distribute', target: V1, distribution: { [V1]: 4 }, strategy: 'Partition', final: false }]) as any[];
    assert.deepEqual(writes.filter((w) => w.ref.kind === 'ReplicaSet').map((w) => [w.ref.name, w.patch.spec.replicas]), [['web-old', 1], [`web-${V2}`, 3]]);
  });

  it('still scales down before up when two ReplicaSets stay active throughout (never above N + maxSurge)', () => {
    const taken = deployment({ replicas: 10, strategy: { type: 'Recreate' }, annotations: { [ORIGINAL_STRATEGY]: '{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1,"maxUnavailable":1}}' } });
    const obs = observation(taken, [replicaSet('web-old', 'web:v1', { replicas: 9 }), replicaSet(`web-${V2}`, 'web:v2', { replicas: 1, revision: 2 })]);
    const writes = deploymentWrites(obs, [{ type: 'distribute', target: V2, distribution: { [V2]: 5, [V1]: 5 }, strategy: 'Partition', final: false }]) as any[];
    assert.deepEqual(writes.filter((w) => w.ref.kind === 'ReplicaSet').map((w) => [w.ref.name, w.patch.spec.replicas]), [['web-old', 8], [`web-${V2}`, 3]]);
  });
});

describe('Partition strategy: the controller manager away (soak)', () => {
  it('moves nothing while a ReplicaSet has not observed its last change (each pass scaled further down on pods about to go, all landing at once when the controller came back)', () => {
    const taken = deployment({ strategy: { type: 'Recreate' }, annotations: { [ORIGINAL_STRATEGY]: '{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1,"maxUnavailable":0}}' } });
    const lagging = { ...replicaSet(`web-${V2}`, 'web:v2', { replicas: 1, revision: 2 }), metadata: { ...replicaSet(`web-${V2}`, 'web:v2', { replicas: 1, revision: 2 }).metadata, generation: 2 } };
    const obs = observation(taken, [{ ...stable(), spec: { ...stable().spec, replicas: 10 } }, lagging]);
    assert.deepEqual(deploymentWrites(obs, [{ type: 'distribute', target: V2, distribution: { [V2]: 5, [V1]: 5 }, strategy: 'Partition', final: false }]), []);
  });
});

describe('Partition strategy: a scale-down the absent controller never carried out (soak)', () => {
  it('takes it back where the user has since scaled up and the stable pods are needed again, and moves nothing else', () => {
    const taken = deployment({ strategy: { type: 'Recreate' }, annotations: { [ORIGINAL_STRATEGY]: '{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1,"maxUnavailable":0}}' } });
    const old = replicaSet('web-old', 'web:v1', { replicas: 3 });
    // Our scale-down to 3 is in spec, but the ReplicaSet controller (down) has not observed it: 4 pods still run.
    const unobserved = { ...old, metadata: { ...old.metadata, generation: 2 }, status: { ...old.status, replicas: 4, availableReplicas: 4, readyReplicas: 4 } };
    const canary = replicaSet(`web-${V2}`, 'web:v2', { replicas: 1, revision: 2 });
    const writes = deploymentWrites(observation(taken, [unobserved, canary]), [{ type: 'distribute', target: V2, distribution: { [V2]: 2, [V1]: 5 }, strategy: 'Partition', final: false }]) as any[];
    assert.deepEqual(writes.filter((w) => w.ref.kind === 'ReplicaSet').map((w) => [w.ref.name, w.patch]), [['web-old', { spec: { replicas: 4 } }]], 'back to the 4 still running, never above them, and no canary growth');
  });

  it('takes it back only within N + maxSurge, counting what the other ReplicaSets ask for (a take-back to 4 asked for 7 of 5 + 1)', () => {
    const V3 = revisionId(template('web:v3'));
    const takeBack = (maxSurge: number) => {
      const taken = deployment({ image: 'web:v3', replicas: 5, strategy: { type: 'Recreate' }, annotations: { [ORIGINAL_STRATEGY]: JSON.stringify({ type: 'RollingUpdate', rollingUpdate: { maxSurge, maxUnavailable: 1 } }) } });
      const old = replicaSet('web-old', 'web:v1', { replicas: 2 });
      const unobserved = { ...old, metadata: { ...old.metadata, generation: 2 }, status: { ...old.status, replicas: 4, availableReplicas: 4, readyReplicas: 4 } };
      const interrupted = replicaSet(`web-${V2}`, 'web:v2', { replicas: 3, revision: 2 });
      const batch = replicaSet(`web-${V3}`, 'web:v3', { replicas: 1, revision: 3 });
      const writes = deploymentWrites(observation(taken, [unobserved, interrupted, batch]), [{ type: 'distribute', target: V3, distribution: { [V3]: 1, [V1]: 4 }, strategy: 'Partition', final: false }]) as any[];
      return writes.filter((w) => w.ref.kind === 'ReplicaSet').map((w) => [w.ref.name, w.patch.spec.replicas]);
    };
    assert.deepEqual(takeBack(3), [['web-old', 4]], 'room for it under 5 + 3: back to the 4 still running');
    assert.deepEqual(takeBack(1), [], 'asked 2 + 3 + 1 = 6 = 5 + 1 already: no room to take any back');
  });
});
