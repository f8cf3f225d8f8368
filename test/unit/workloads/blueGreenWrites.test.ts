// The Deployment driver's blue-green moves (shared/workloads/deployment/blueGreenPace.ts): planned
// actions → exact writes, and what the Deployment is left with between passes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { deploymentWrites } from '../../../shared/workloads/deployment/writes.ts';
import { deploymentView } from '../../../shared/workloads/deployment/view.ts';
import type { KubeObject } from '../../../shared/kube/types.ts';
import type { Action } from '../../../shared/rollout/types.ts';
import { deployment, observation, replicaSet, V1, V2 } from './deploymentFixtures.ts';

const ANNOTATIONS = {
  'rollouts.kruise.io/original-min-ready-seconds': '__k8s_default__',
  'rollouts.kruise.io/original-progress-deadline-seconds': '600',
  'rollouts.kruise.io/original-max-unavailable': '25%',
  'rollouts.kruise.io/original-max-surge': '25%',
};
const DROPPED = Object.fromEntries(Object.keys(ANNOTATIONS).map((k) => [k, null]));
const REF = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'ns', name: 'web' };
const blueGreen = (newPods: number, final = false): Action =>
  ({ type: 'distribute', target: V2, distribution: { [V2]: newPods, [V1]: 10 - newPods }, strategy: 'MinReadySeconds', final, rollingStyle: 'BlueGreen' });

/** A Deployment a blue-green release has taken over, with `surge` new pods asked for. */
function takenOver(surge: number): KubeObject {
  const d = deployment({ paused: false, annotations: ANNOTATIONS, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: surge, maxUnavailable: 0 } } });
  d.spec = { ...d.spec, minReadySeconds: 2147483646, progressDeadlineSeconds: 2147483647 };
  return d;
}

const old = (replicas = 10) => replicaSet('web-old', 'web:v1', { replicas, available: replicas });
const fresh = (replicas: number) => ({ ...replicaSet(`web-${V2}`, 'web:v2', { replicas, available: 0, revision: 2 }), status: { observedGeneration: 1, replicas, readyReplicas: replicas, availableReplicas: 0 } });

describe('Deployment driver, blue-green moves: exact writes', () => {
  it('starts with ONE patch guarded by the resourceVersion: snapshot, inflation, maxSurge = the batch, maxUnavailable 0, unpause', () => {
    const at = deployment({ paused: true });
    at.spec = { ...at.spec, progressDeadlineSeconds: 600 };
    assert.deepEqual(deploymentWrites(observation(at, [old()]), [blueGreen(5)]), [{
      verb: 'patch', ref: REF, patchType: 'merge', resourceVersion: '100',
      patch: {
        metadata: { annotations: ANNOTATIONS },
        spec: { minReadySeconds: 2147483646, progressDeadlineSeconds: 2147483647, strategy: { rollingUpdate: { maxSurge: 5, maxUnavailable: 0 } }, paused: false },
      },
      reason: 'take over: snapshot the user\'s fields into rollouts.kruise.io/original-*, inflate minReadySeconds and progressDeadlineSeconds, blue-green: maxSurge 5 (the new revision\'s pods), maxUnavailable 0 (no old pod goes), unpause (the native controller brings the new pods up beside the old)',
    }]);
  });

  it('never scales the old revision down, never pauses a landed batch, and writes nothing once converged', () => {
    const landed = observation(takenOver(5), [old(10), fresh(5)]);
    assert.deepEqual(deploymentWrites(landed, [blueGreen(5)]), [], 'the batch stands: the controller cannot remove an old pod with maxUnavailable 0 and no new pod Available to it');
    const writes = deploymentWrites(landed, [blueGreen(10)]) as { ref: { kind: string }; patch: unknown }[];
    assert.deepEqual(writes.map((w) => [w.ref.kind, w.patch]), [['Deployment', { spec: { strategy: { rollingUpdate: { maxSurge: 10, maxUnavailable: 0 } } } }]], 'the next step only raises the surge: no ReplicaSet write');
  });

  it('keeps what the new revision already has (a step never shrinks it) and caps the surge at N', () => {
    const ahead = observation(takenOver(8), [old(10), fresh(8)]);
    assert.deepEqual(deploymentWrites(ahead, [blueGreen(5)]), []);
    const writes = deploymentWrites(observation(takenOver(8), [old(10), fresh(8)]), [{ ...(blueGreen(10) as Extract<Action, { type: 'distribute' }>), distribution: { [V2]: 14 } }]) as { patch: unknown }[];
    assert.deepEqual(writes.map((w) => w.patch), [{ spec: { strategy: { rollingUpdate: { maxSurge: 10, maxUnavailable: 0 } } } }]);
  });

  it('re-inflates a minReadySeconds someone lowered mid-release', () => {
    const lowered = takenOver(5);
    lowered.spec = { ...lowered.spec, minReadySeconds: 0 };
    const [w] = deploymentWrites(observation(lowered, [old(10), fresh(5)]), [blueGreen(5)]) as { patch: unknown }[];
    assert.deepEqual(w?.patch, { spec: { minReadySeconds: 2147483646 } });
  });

  it('the final move hands back exactly the user\'s fields and removes every annotation of ours, in one patch', () => {
    const [w, ...rest] = deploymentWrites(observation(takenOver(10), [old(10), fresh(10)]), [blueGreen(10, true)]) as { patch: unknown; resourceVersion?: string }[];
    assert.deepEqual(w?.patch, {
      metadata: { annotations: DROPPED },
      spec: { minReadySeconds: null, progressDeadlineSeconds: 600, strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } } },
    });
    assert.equal(w?.resourceVersion, '100');
    // The new ReplicaSet keeps the inflated minReadySeconds until the controller syncs the restored one onto it.
    assert.deepEqual(rest, []);
  });

  it('the view counts the new pods Available by the user\'s own minReadySeconds and reports the old revision whole', () => {
    const view = deploymentView(observation(takenOver(5), [old(10), fresh(5)]));
    assert.deepEqual(view.revisions.map((r) => [r.id, r.desired, r.current, r.available]), [[V2, 5, 5, 5], [V1, 10, 10, 10]]);
    assert.equal(view.strategy, 'MinReadySeconds', 'held by its marks: the planner never leaves it unheld');
    assert.equal(view.held, true);
  });
});
