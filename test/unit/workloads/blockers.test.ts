// What the drivers report as blocking: each pod state Kubernetes can be in, read as kubectl would
// explain it; and the Deployment driver lists pods for it only while a release has unready pods.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../shared/kube/types.ts';
import { podBlockers, replicaFailure } from '../../../shared/workloads/common/blockers.ts';
import { deploymentDriver } from '../../../shared/workloads/deployment/driver.ts';
import { MemoryCluster } from '../../support/fakes/memoryCluster.ts';
import { V1, V2, deployment, replicaSet } from './deploymentFixtures.ts';

const T = '2030-01-01T00:00:00Z';

function pod(name: string, status: Record<string, unknown>, extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', creationTimestamp: T, ...extra }, spec: { containers: [{ name: 'app', image: 'web:v2' }] }, status };
}

const scheduled = { type: 'PodScheduled', status: 'True', lastTransitionTime: T };
const notReady = (message = 'containers with unready status: [app]') => ({ type: 'Ready', status: 'False', reason: 'ContainersNotReady', message, lastTransitionTime: '2030-01-01T00:00:05Z' });

describe('podBlockers', () => {
  it('reads each pod state as Kubernetes reports it', () => {
    const pods = [
      pod('ready', { conditions: [scheduled, { type: 'Ready', status: 'True' }] }),
      pod('pull', { phase: 'Pending', conditions: [scheduled, notReady()], containerStatuses: [{ name: 'app', state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "web:v2"' } } }] }),
      pod('unschedulable', { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/3 nodes are\navailable', lastTransitionTime: T }] }),
      pod('creating', { phase: 'Pending', conditions: [scheduled], containerStatuses: [{ name: 'app', state: { waiting: { reason: 'ContainerCreating' } } }] }),
      pod('crashed', { phase: 'Running', conditions: [scheduled, notReady()], containerStatuses: [{ name: 'app', state: { terminated: { reason: 'Error', exitCode: 3 } } }] }),
      pod('probe', { phase: 'Running', conditions: [scheduled, notReady('readiness probe failed')], containerStatuses: [{ name: 'app', state: { running: {} } }] }),
      pod('new', { phase: 'Pending' }),
      pod('leaving', { phase: 'Running' }, { deletionTimestamp: T }),
    ];
    const got = podBlockers(pods, () => 'rev').map((b) => [b.object, b.kind, b.reason, b.message, b.transient]);
    assert.deepEqual(got, [
      ['pod/pull', 'PodNotReady', 'ImagePullBackOff', 'Back-off pulling image "web:v2"', false],
      ['pod/unschedulable', 'PodUnschedulable', 'Unschedulable', '0/3 nodes are available', false],
      ['pod/creating', 'PodNotReady', 'ContainerCreating', '', true],
      ['pod/crashed', 'PodNotReady', 'Error', 'exit code 3', false],
      ['pod/probe', 'PodNotReady', 'ContainersNotReady', 'readiness probe failed', true],
      ['pod/new', 'PodNotReady', 'Pending', 'not scheduled yet', true],
    ]);
    assert.equal(podBlockers([pods[1] as KubeObject], () => 'rev')[0]?.since, '2030-01-01T00:00:05Z', 'since the Ready condition changed');
  });

  it('reports a ReplicaSet that cannot create pods', () => {
    const rs = replicaSet('web-2', 'web:v2', { replicas: 3 });
    rs.status = { ...rs.status, conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'pods "web-2-x" is forbidden: exceeded quota', lastTransitionTime: T }] };
    assert.deepEqual(replicaFailure(rs, V2), { kind: 'ReplicaFailure', object: 'replicaset/web-2', revision: V2, reason: 'FailedCreate', message: 'pods "web-2-x" is forbidden: exceeded quota', since: T, transient: false });
  });
});

/** Fixture ReplicaSets carry no labels; the driver lists them by the Deployment's selector. */
function labelled(rs: KubeObject): KubeObject {
  return { ...rs, metadata: { ...rs.metadata, labels: { app: 'web' } } };
}

describe('the Deployment driver reads pods to name blockers only when a release waits on them', () => {
  async function reads(d: KubeObject, children: KubeObject[]): Promise<string[]> {
    const cluster = new MemoryCluster();
    cluster.put(d);
    for (const c of children) cluster.put(labelled(c));
    await deploymentDriver.observe(cluster, 'ns', { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, new Date());
    return cluster.requests.map((r) => `${r.verb} ${r.target.split(' ')[0]}`);
  }

  it('at rest, or with every pod Ready: the Deployment and its ReplicaSets, nothing more', async () => {
    assert.deepEqual(await reads(deployment({ image: 'web:v1' }), [replicaSet('web-1', 'web:v1', { replicas: 10, available: 8 })]), ['get Deployment', 'list ReplicaSet']);
    const releasing = deployment({ paused: false });
    assert.deepEqual(await reads(releasing, [replicaSet('web-1', 'web:v1', { replicas: 9 }), replicaSet('web-2', 'web:v2', { replicas: 1, revision: 2 })]), ['get Deployment', 'list ReplicaSet']);
  });

  it('mid-release with a pod that is not Ready: the pods too, and the view names their revision', async () => {
    const cluster = new MemoryCluster();
    cluster.put(deployment({ paused: false }));
    cluster.put(labelled(replicaSet('web-1', 'web:v1', { replicas: 9 })));
    const rs2 = cluster.put(labelled(replicaSet('web-2', 'web:v2', { replicas: 1, available: 0, revision: 2 })));
    cluster.put({ ...pod('web-2-a', { phase: 'Pending', conditions: [scheduled], containerStatuses: [{ name: 'app', state: { waiting: { reason: 'ErrImagePull', message: 'not found' } } }] }), metadata: { name: 'web-2-a', namespace: 'ns', labels: { app: 'web' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-2', uid: rs2.metadata.uid as string, controller: true }] } });
    const obs = await deploymentDriver.observe(cluster, 'ns', { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, new Date());
    assert.deepEqual(cluster.requests.map((r) => r.verb), ['get', 'list', 'list']);
    const blockers = deploymentDriver.view(obs).blockers ?? [];
    assert.deepEqual(blockers.map((b) => [b.object, b.reason, b.revision]), [['pod/web-2-a', 'ErrImagePull', V2]]);
    assert.notEqual(V1, V2);
  });
});
