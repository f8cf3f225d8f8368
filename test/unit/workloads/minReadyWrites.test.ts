// The MinReadySeconds strategy of the Deployment driver: planned actions → exact writes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { deploymentWrites } from '../../../shared/workloads/deployment/writes.ts';
import { deploymentView } from '../../../shared/workloads/deployment/view.ts';
import type { KubeObject } from '../../../shared/kube/types.ts';
import type { Action, IntOrPercent } from '../../../shared/rollout/types.ts';
import { deployment, observation, replicaSet, V1, V2 } from './deploymentFixtures.ts';

const ANNOTATIONS = {
  'rollouts.kruise.io/original-min-ready-seconds': '__k8s_default__',
  'rollouts.kruise.io/original-progress-deadline-seconds': '600',
  'rollouts.kruise.io/original-max-unavailable': '25%',
  'rollouts.kruise.io/original-max-surge': '25%',
};
const DROPPED = Object.fromEntries(Object.keys(ANNOTATIONS).map((k) => [k, null]));
const REF = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'ns', name: 'web' };
const distribute = (target: string, distribution: Record<string, number>, final = false): Action =>
  ({ type: 'distribute', target, distribution, strategy: 'MinReadySeconds', final });

/** A Deployment under a MinReadySeconds release: annotations, inflated fields, unpaused, this pass's budget. */
function takenOver(budget: { maxSurge: IntOrPercent; maxUnavailable: IntOrPercent }, over: Partial<{ annotations: Record<string, string>; minReadySeconds: number }> = {}): KubeObject {
  const d = deployment({ paused: false, annotations: over.annotations ?? ANNOTATIONS, strategy: { type: 'RollingUpdate', rollingUpdate: budget } });
  d.spec = { ...d.spec, minReadySeconds: over.minReadySeconds ?? 2147483646, progressDeadlineSeconds: 2147483647 };
  return d;
}

const stable = (replicas = 10, available = replicas) => replicaSet('web-old', 'web:v1', { replicas, available });
const canary = (replicas: number, ready = replicas) => ({ ...replicaSet(`web-${V2}`, 'web:v2', { replicas, available: 0, revision: 2 }), spec: { ...replicaSet(`web-${V2}`, 'web:v2', { replicas }).spec, minReadySeconds: 2147483646 }, status: { observedGeneration: 1, replicas, readyReplicas: ready, availableReplicas: 0 } });

describe('Deployment driver, MinReadySeconds strategy: exact writes', () => {
  it('starts a release with ONE patch guarded by the resourceVersion: snapshot, inflation, the first batch\'s budget, unpause', () => {
    const at = deployment({ paused: true });
    at.spec = { ...at.spec, progressDeadlineSeconds: 600 };
    const writes = deploymentWrites(observation(at, [stable()]), [distribute(V2, { [V2]: 1, [V1]: 9 })]);
    assert.deepEqual(writes, [{
      verb: 'patch', ref: REF, patchType: 'merge', resourceVersion: '100',
      patch: {
        metadata: { annotations: ANNOTATIONS },
        spec: { minReadySeconds: 2147483646, progressDeadlineSeconds: 2147483647, strategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } }, paused: false },
      },
      reason: 'take over: snapshot the user\'s fields into rollouts.kruise.io/original-*, inflate minReadySeconds and progressDeadlineSeconds, batch budget maxSurge 1, maxUnavailable 0, unpause (the native controller moves the pods)',
    }]);
  });

  it('a landed batch pauses the Deployment, then writes nothing; the next batch is one budget patch (25%/25%: 1 → 5 in one wave)', () => {
    const obs = observation(takenOver({ maxSurge: 0, maxUnavailable: 1 }), [stable(9), canary(1)]);
    assert.deepEqual((deploymentWrites(obs, [distribute(V2, { [V2]: 1, [V1]: 9 })]) as any[]).map((w) => w.patch), [{ spec: { paused: true } }], 'nothing moves until the next batch');
    const paused = takenOver({ maxSurge: 0, maxUnavailable: 1 });
    paused.spec = { ...paused.spec, paused: true };
    assert.deepEqual(deploymentWrites(observation(paused, [stable(9), canary(1)]), [distribute(V2, { [V2]: 1, [V1]: 9 })]), [], 'converged: nothing to write');
    const [w, ...rest] = deploymentWrites(obs, [distribute(V2, { [V2]: 5, [V1]: 5 })]) as any[];
    assert.deepEqual(w.patch, { spec: { strategy: { rollingUpdate: { maxSurge: 3, maxUnavailable: 2 } } } });
    assert.deepEqual(rest, []);
  });

  it('drains old pods beyond the controller\'s reach itself (maxUnavailable 0), within the Available pods', () => {
    // 3/0: the batch of 5 has 4 new pods, all Available; the surge is used up: one old pod goes, and
    // the controller fills its room with the 5th new pod.
    const d = takenOver({ maxSurge: 3, maxUnavailable: 0 }, { annotations: { ...ANNOTATIONS, 'rollouts.kruise.io/original-max-unavailable': '0', 'rollouts.kruise.io/original-max-surge': '3' } });
    const writes = deploymentWrites(observation(d, [stable(9), canary(4)]), [distribute(V2, { [V2]: 5, [V1]: 5 })]) as any[];
    assert.deepEqual(writes.map((w) => [w.ref.kind, w.patch, w.resourceVersion]), [['Deployment', [{ op: 'test', path: '/metadata/generation', value: 2 }], undefined], ['ReplicaSet', { spec: { replicas: 8 } }, 'rv-web-old']], 'behind a check of the Deployment\'s generation');
    // The batch landed and is Available: the surplus old pods go, maxSurge comes down first, alone:
    // the controller must act on the lowered budget before any old pod goes, or it would fill
    // their room with new pods beyond the batch (its informers see the two writes in any order).
    const landed = deploymentWrites(observation(d, [stable(8), canary(5)]), [distribute(V2, { [V2]: 5, [V1]: 5 })]) as any[];
    assert.deepEqual(landed.map((w) => [w.ref.kind, w.patch]), [
      ['Deployment', { spec: { strategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } } }],
    ]);
    const lowered = takenOver({ maxSurge: 1, maxUnavailable: 0 }, { annotations: { ...ANNOTATIONS, 'rollouts.kruise.io/original-max-unavailable': '0', 'rollouts.kruise.io/original-max-surge': '3' } });
    const unobserved = { ...lowered, metadata: { ...lowered.metadata, generation: 3 }, status: { ...lowered.status, observedGeneration: 2 } };
    assert.deepEqual(deploymentWrites(observation(unobserved, [stable(8), canary(5)]), [distribute(V2, { [V2]: 5, [V1]: 5 })]), [], 'not before the controller has observed the budget');
    const next = deploymentWrites(observation(lowered, [stable(8), canary(5)]), [distribute(V2, { [V2]: 5, [V1]: 5 })]) as any[];
    assert.deepEqual(next.map((w) => [w.ref.kind, w.patch]), [
      ['Deployment', [{ op: 'test', path: '/metadata/generation', value: 2 }]],
      ['ReplicaSet', { spec: { replicas: 6 } }],
      ['Deployment', [{ op: 'test', path: '/metadata/generation', value: 2 }, { op: 'add', path: '/spec/paused', value: true }]],
    ], 'one surplus old pod stays: 0/0 is not a budget; drained, the batch is complete: paused after the drain, in the same pass');
  });

  it('the pass whose drain completes the batch also pauses (after the drain), so the next pass at the pause writes nothing', () => {
    // 25%/25% of 10, batch of 3 landed with one surge pod: old 8 → 7 is ours to drain, then the batch stands.
    const d = takenOver({ maxSurge: 0, maxUnavailable: 2 });
    const drained = deploymentWrites(observation(d, [stable(8), canary(3)]), [distribute(V2, { [V2]: 3, [V1]: 7 })]) as any[];
    assert.deepEqual(drained.map((w) => [w.ref.kind, w.patch, w.precondition ?? false]), [
      ['Deployment', [{ op: 'test', path: '/metadata/generation', value: 2 }], true],
      ['ReplicaSet', { spec: { replicas: 7 } }, false],
      ['Deployment', [{ op: 'test', path: '/metadata/generation', value: 2 }, { op: 'add', path: '/spec/paused', value: true }], true],
    ]);
    const atRest = takenOver({ maxSurge: 0, maxUnavailable: 2 });
    atRest.spec = { ...atRest.spec, paused: true };
    assert.deepEqual(deploymentWrites(observation(atRest, [stable(7), canary(3)]), [distribute(V2, { [V2]: 3, [V1]: 7 })]), [], 'at the pause: nothing to write');
    // A drain that leaves the batch short (its pods not all there yet) does not pause.
    const short = deploymentWrites(observation(takenOver({ maxSurge: 3, maxUnavailable: 0 }, { annotations: { ...ANNOTATIONS, 'rollouts.kruise.io/original-max-unavailable': '0', 'rollouts.kruise.io/original-max-surge': '3' } }), [stable(9), canary(4)]), [distribute(V2, { [V2]: 5, [V1]: 5 })]) as any[];
    assert.ok(!short.some((w) => JSON.stringify(w.patch).includes('/spec/paused')), JSON.stringify(short.map((w) => w.patch)));
  });

  it('puts lowered inflated fields back (a GitOps sync), keeping the originals', () => {
    const d = takenOver({ maxSurge: 0, maxUnavailable: 1 }, { minReadySeconds: 0 });
    const [w] = deploymentWrites(observation(d, [stable(9), canary(1)]), [distribute(V2, { [V2]: 1, [V1]: 9 })]) as any[];
    assert.deepEqual(w.patch, { spec: { minReadySeconds: 2147483646, paused: true } });
    assert.match(w.reason, /re-inflate/);
  });

  it('hands back (end, deletion) in ONE patch: the exact original fields, unset ones removed, annotations gone', () => {
    const d = takenOver({ maxSurge: 3, maxUnavailable: 7 });
    for (const actions of [[distribute(V2, { [V2]: 10 }, true)], [{ type: 'release-hold' } as Action]]) {
      const writes = deploymentWrites(observation(d, [stable(3), canary(10)]), actions) as any[];
      assert.deepEqual(writes, [{
        verb: 'patch', ref: REF, patchType: 'merge', resourceVersion: '100',
        patch: {
          metadata: { annotations: DROPPED },
          spec: { minReadySeconds: null, progressDeadlineSeconds: 600, strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } } },
        },
        reason: 'hand back: restore the user\'s minReadySeconds, progressDeadlineSeconds, maxSurge and maxUnavailable',
      }]);
    }
  });

  it('aborts with the template and the user\'s fields in one patch, so the native controller rolls back within the user\'s budget', () => {
    const obs = observation(takenOver({ maxSurge: 3, maxUnavailable: 2 }), [stable(8), canary(5)]);
    const [w, ...rest] = deploymentWrites(obs, [{ type: 'restore-template', revision: V1, strategy: 'MinReadySeconds' }]) as any[];
    assert.deepEqual(w.patch.spec.template, { spec: { containers: [{ name: 'app', image: 'web:v1', resources: {} }] } });
    assert.equal(w.patch.spec.progressDeadlineSeconds, 600);
    assert.deepEqual(w.patch.metadata.annotations, DROPPED);
    assert.deepEqual(rest.map((x) => [x.ref.name, x.patch]), [[`web-${V2}`, { spec: { minReadySeconds: 0 } }]], 'the interrupted revision gets the user\'s minReadySeconds back, or its pods stay unavailable to the controller');
  });

  it('a broken annotation: no pacing at all, and a deleted rollout restores what it can read', () => {
    const d = takenOver({ maxSurge: 1, maxUnavailable: 0 }, { annotations: { ...ANNOTATIONS, 'rollouts.kruise.io/original-max-surge': 'lots' } });
    const obs = observation(d, [stable(10), canary(1)]);
    assert.deepEqual(deploymentView(obs).problems, ['annotation rollouts.kruise.io/original-max-surge is "lots", which is not a maxSurge (an integer or a percent) (nor __k8s_default__); put back the value it had']);
    assert.deepEqual(deploymentWrites(obs, [distribute(V2, { [V2]: 5, [V1]: 5 })]), []);
    const [w] = deploymentWrites(obs, [{ type: 'release-hold' }]) as any[];
    assert.deepEqual(w.patch.spec.strategy, { rollingUpdate: { maxSurge: null, maxUnavailable: '25%' } });
  });

  it('holds a Deployment at rest by pausing it, like the Partition strategy', () => {
    const writes = deploymentWrites(observation(deployment({ paused: false, image: 'web:v1' }), [stable()]), [{ type: 'hold' }]) as any[];
    assert.deepEqual(writes.map((w) => w.patch), [{ spec: { paused: true } }]);
  });
});

describe('MinReadySeconds strategy: a new image mid-release (soak)', () => {
  it('pauses the Deployment before the template changes (the live batch budget let the native controller roll the new image past step 1)', () => {
    const obs = observation(takenOver({ maxSurge: 1, maxUnavailable: 0 }), [stable(9), canary(1)]);
    const writes = deploymentWrites(obs, [{ type: 'set-template', change: { type: 'images', images: { app: 'web:v3' } } }]) as any[];
    assert.deepEqual(writes.map((w) => w.patch), [{ spec: { paused: true } }, { spec: { template: { spec: { containers: [{ name: 'app', image: 'web:v3' }] } } } }]);
    assert.equal(writes[0].resourceVersion, '100', 'the pause is guarded, and goes first');
  });
});

describe('Deployment view under a MinReadySeconds release', () => {
  it('is held without a pause, names the strategy from the annotations, and reports the user\'s budget', () => {
    const view = deploymentView(observation(takenOver({ maxSurge: 1, maxUnavailable: 0 }), [stable(10), canary(1)]));
    assert.equal(view.held, true);
    assert.equal(view.strategy, 'MinReadySeconds');
    assert.deepEqual([view.maxSurge, view.maxUnavailable], [3, 2], 'the original 25%/25%, not the live 1/0');
    assert.equal(view.revisions.find((r) => r.id === V2)?.available, 1, 'original minReadySeconds 0: Ready is Available');
  });

  it('counts a new pod Available only once Ready for the ORIGINAL minReadySeconds, and says when the next one turns Available', () => {
    const d = takenOver({ maxSurge: 1, maxUnavailable: 0 }, { annotations: { ...ANNOTATIONS, 'rollouts.kruise.io/original-min-ready-seconds': '5' } });
    const rs = canary(2);
    const pod = (name: string, readySince: string) => ({
      apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.metadata.name, uid: rs.metadata.uid ?? '', controller: true }] },
      status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: readySince }] },
    });
    const obs = { ...observation(d, [stable(10), rs]), pods: [pod('a', '2030-01-01T00:00:00Z'), pod('b', '2030-01-01T00:00:04Z')], now: new Date('2030-01-01T00:00:06Z') };
    const view = deploymentView(obs);
    assert.equal(view.revisions.find((r) => r.id === V2)?.available, 1);
    assert.equal(view.nextAvailableAt, '2030-01-01T00:00:09.000Z');
  });

  it('a Partition release in flight is the Partition strategy; at rest there is none', () => {
    const partition = deployment({ strategy: { type: 'Recreate' }, annotations: { 'rollouts.serverless-rollouts.io/original-strategy': '{"type":"RollingUpdate"}' } });
    assert.equal(deploymentView(observation(partition, [stable()])).strategy, 'Partition');
    assert.equal(deploymentView(observation(deployment(), [stable()])).strategy, null);
  });

  it('reports a foreign ReplicaSet holding the name of the one a Partition release must create', () => {
    const foreign = { ...replicaSet(`web-${V2}`, 'other:v9', { replicas: 1 }), metadata: { ...replicaSet(`web-${V2}`, 'other:v9', { replicas: 1 }).metadata, uid: 'foreign', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'api', uid: 'api-uid', controller: true }] } };
    const obs = { ...observation(deployment(), [stable()]), others: [foreign] };
    assert.match(deploymentView(obs).problems.join(), new RegExp(`ReplicaSet web-${V2} already exists and does not belong to Deployment web \\(name collision\\)`));
    assert.deepEqual(deploymentWrites(obs, [{ type: 'distribute', target: V2, distribution: { [V2]: 1, [V1]: 9 }, strategy: 'Partition', final: false }]).filter((w) => w.verb === 'create'), []);
  });
});

describe('MinReadySeconds strategy: a scale-down mid-batch (soak)', () => {
  it('pauses once the batch is complete (after a scale-down the live budget, or the forced maxSurge 1 when no old pod is surplus, let the controller add a pod beyond the approved batch)', () => {
    // 25%/25% of 3 resolves to maxSurge 1, maxUnavailable 0; the user scaled 4 → 3 and the controller took the surplus old pod.
    const d = takenOver({ maxSurge: 0, maxUnavailable: 1 });
    d.spec = { ...d.spec, replicas: 3 };
    const writes = deploymentWrites(observation(d, [stable(2), canary(1)]), [distribute(V2, { [V2]: 1, [V1]: 2 })]) as any[];
    assert.deepEqual(writes.map((w) => w.patch), [{ spec: { paused: true } }]);
  });

  it('unpauses with the next batch\'s budget once there is room to move', () => {
    const d = takenOver({ maxSurge: 0, maxUnavailable: 1 });
    d.spec = { ...d.spec, replicas: 3, paused: true };
    const writes = deploymentWrites(observation(d, [stable(2), canary(1)]), [distribute(V2, { [V2]: 2, [V1]: 1 })]) as any[];
    assert.deepEqual(writes.map((w) => w.patch.spec), [{ strategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } }, paused: false }]);
  });
});
