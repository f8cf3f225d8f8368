// Exact writes of the CloneSet, Advanced StatefulSet, Advanced DaemonSet and DaemonSet drivers for
// the hold, a batch and the hand-back: one merge patch guarded by the observed resourceVersion (the
// partition and its records, or a native DaemonSet's OnDelete switch and its record), and for a
// native DaemonSet's batch the delete of the old pod its order picks, guarded by the pod's own.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../shared/kube/types.ts';
import { BATCH_PARTITION, ORIGINAL_PARTITION } from '../../../shared/workloads/common/partition.ts';
import { ORIGINAL_UPDATE_STRATEGY } from '../../../shared/workloads/daemonset/daemonSetObjects.ts';
import { WORKLOAD_DRIVERS } from '../../../shared/workloads/registry.ts';
import { observation, pods, workload, V1, V2 } from './partitionKindsFixtures.ts';

const CLONESET = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet' };
const ADVANCED_STATEFULSET = { apiVersion: 'apps.kruise.io/v1beta1', kind: 'StatefulSet' };
const ADVANCED_DAEMONSET = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'DaemonSet' };
const DAEMONSET = { apiVersion: 'apps/v1', kind: 'DaemonSet' };
const ref = (k: { apiVersion: string; kind: string }) => ({ ...k, namespace: 'ns', name: 'web' });
const patchOf = (k: { apiVersion: string; kind: string }, patch: unknown, reason: string) => ({ verb: 'patch', ref: ref(k), patchType: 'merge', resourceVersion: '100', patch, reason });
const onFour = (w: KubeObject, rev: string) => observation(w, undefined, pods(w, rev, rev, rev, rev));
/** A DaemonSet's revision ids are the ControllerRevisions' hashes. */
const H1 = V1.slice(4);
const H2 = V2.slice(4);

describe('CloneSet driver: planned actions → exact writes', () => {
  const driver = WORKLOAD_DRIVERS.CloneSet;

  it('holds at partition "100%", recording the user\'s unset partition', () => {
    const w = workload({ ...CLONESET, image: 'web:v1', updateStrategy: { type: 'ReCreate' }, status: { updateRevision: V1 } });
    assert.deepEqual(driver.writes(onFour(w, V1), [{ type: 'hold' }]), [
      patchOf(CLONESET, { metadata: { annotations: { [ORIGINAL_PARTITION]: 'null' } }, spec: { updateStrategy: { partition: '100%' } } }, 'hold (partition 100%)'),
    ]);
  });

  it('moves a batch of 1 of 4 with the percent that keeps exactly 3 old, recorded', () => {
    const w = workload({ ...CLONESET, updateStrategy: { type: 'ReCreate', partition: '100%' }, annotations: { [ORIGINAL_PARTITION]: 'null' } });
    assert.deepEqual(driver.writes(onFour(w, V1), [{ type: 'distribute', target: V2, distribution: { [V2]: 1, [V1]: 3 }, strategy: null, final: false }]), [
      patchOf(CLONESET, { metadata: { annotations: { [BATCH_PARTITION]: '75%' } }, spec: { updateStrategy: { partition: '75%' } } }, `partition 75%: 75% pods stay old, the CloneSet updates the rest to ${V2}`),
    ]);
  });

  it('hands back the user\'s unset partition and drops both records, in one patch', () => {
    const w = workload({
      ...CLONESET, updateStrategy: { type: 'ReCreate', partition: 0 }, annotations: { [ORIGINAL_PARTITION]: 'null', [BATCH_PARTITION]: '0' },
      status: { currentRevision: V2, updatedReplicas: 4, updatedReadyReplicas: 4 },
    });
    assert.deepEqual(driver.writes(onFour(w, V2), [{ type: 'release-hold' }]), [
      patchOf(CLONESET, { metadata: { annotations: { [BATCH_PARTITION]: null, [ORIGINAL_PARTITION]: null } }, spec: { updateStrategy: { partition: null } } }, 'hand back to its controller (partition unset, the user\'s)'),
    ]);
  });
});

describe('Advanced StatefulSet driver: planned actions → exact writes', () => {
  const driver = WORKLOAD_DRIVERS.AdvancedStatefulSet;

  it('holds at partition 32767, recording the user\'s partition; its podUpdatePolicy is not touched', () => {
    const w = workload({ ...ADVANCED_STATEFULSET, image: 'web:v1', updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0, podUpdatePolicy: 'InPlaceIfPossible' } }, status: { updateRevision: V1 } });
    assert.deepEqual(driver.writes(onFour(w, V1), [{ type: 'hold' }]), [
      patchOf(ADVANCED_STATEFULSET, { metadata: { annotations: { [ORIGINAL_PARTITION]: '0' } }, spec: { updateStrategy: { rollingUpdate: { partition: 32767 } } } }, 'hold (partition 32767)'),
    ]);
  });

  it('moves a batch of 2 of 4: partition 2, recorded', () => {
    const w = workload({ ...ADVANCED_STATEFULSET, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 32767, podUpdatePolicy: 'InPlaceIfPossible' } }, annotations: { [ORIGINAL_PARTITION]: '0' } });
    assert.deepEqual(driver.writes(onFour(w, V1), [{ type: 'distribute', target: V2, distribution: { [V2]: 2, [V1]: 2 }, strategy: null, final: false }]), [
      patchOf(ADVANCED_STATEFULSET, { metadata: { annotations: { [BATCH_PARTITION]: '2' } }, spec: { updateStrategy: { rollingUpdate: { partition: 2 } } } }, `partition 2: pods from ordinal 2 up move to ${V2}`),
    ]);
  });
});

describe('Advanced DaemonSet driver: planned actions → exact writes', () => {
  const driver = WORKLOAD_DRIVERS.AdvancedDaemonSet;

  it('holds at a node partition of 32767, recording the user\'s unset partition', () => {
    const w = workload({ ...ADVANCED_DAEMONSET, image: 'web:v1', updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } }, status: { updateRevision: V1 } });
    assert.deepEqual(driver.writes(onFour(w, V1), [{ type: 'hold' }]), [
      patchOf(ADVANCED_DAEMONSET, { metadata: { annotations: { [ORIGINAL_PARTITION]: 'null' } }, spec: { updateStrategy: { rollingUpdate: { partition: 32767 } } } }, 'hold (partition 32767)'),
    ]);
  });

  it('moves a batch of 1 node of 4: 3 nodes stay old, recorded', () => {
    const w = workload({ ...ADVANCED_DAEMONSET, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, partition: 32767 } }, annotations: { [ORIGINAL_PARTITION]: 'null' } });
    assert.deepEqual(driver.writes(onFour(w, V1), [{ type: 'distribute', target: H2, distribution: { [H2]: 1, [H1]: 3 }, strategy: null, final: false }]), [
      patchOf(ADVANCED_DAEMONSET, { metadata: { annotations: { [BATCH_PARTITION]: '3' } }, spec: { updateStrategy: { rollingUpdate: { partition: 3 } } } }, `partition 3: 3 nodes stay old, the Advanced DaemonSet updates the others to ${H2}`),
    ]);
  });
});

describe('DaemonSet driver: planned actions → exact writes', () => {
  const driver = WORKLOAD_DRIVERS.DaemonSet;
  const userStrategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } };

  it('holds by switching to OnDelete, keeping the user\'s strategy in an annotation, in one patch', () => {
    const w = workload({ ...DAEMONSET, image: 'web:v1', updateStrategy: userStrategy, status: { updateRevision: V1 } });
    assert.deepEqual(driver.writes(onFour(w, V1), [{ type: 'hold' }]), [
      patchOf(DAEMONSET, { metadata: { annotations: { [ORIGINAL_UPDATE_STRATEGY]: JSON.stringify(userStrategy) } }, spec: { updateStrategy: { type: 'OnDelete', rollingUpdate: null } } },
        `hold (updateStrategy OnDelete; the user's ${JSON.stringify(userStrategy)} kept in ${ORIGINAL_UPDATE_STRATEGY})`),
    ]);
  });

  it('moves a batch of 1 node by deleting the old pod on the last node by name, guarded by its resourceVersion', () => {
    const w = workload({ ...DAEMONSET, updateStrategy: { type: 'OnDelete' }, annotations: { [ORIGINAL_UPDATE_STRATEGY]: JSON.stringify(userStrategy) } });
    assert.deepEqual(driver.writes(onFour(w, V1), [{ type: 'distribute', target: H2, distribution: { [H2]: 1, [H1]: 3 }, strategy: null, final: false }]), [{
      verb: 'delete', ref: { apiVersion: 'v1', kind: 'Pod', namespace: 'ns', name: 'web-3' }, resourceVersion: 'rv-pod-3',
      reason: `delete web-3 on node node-3 (revision ${H1}) so the DaemonSet recreates it at ${H2}`,
    }]);
  });

  it('hands back the user\'s strategy exactly and drops the annotation, in one patch', () => {
    const w = workload({ ...DAEMONSET, updateStrategy: { type: 'OnDelete' }, annotations: { [ORIGINAL_UPDATE_STRATEGY]: JSON.stringify(userStrategy) } });
    assert.deepEqual(driver.writes(onFour(w, V2), [{ type: 'release-hold' }]), [
      patchOf(DAEMONSET, { metadata: { annotations: { [ORIGINAL_UPDATE_STRATEGY]: null } }, spec: { updateStrategy: userStrategy } },
        `hand back to the DaemonSet controller (updateStrategy ${JSON.stringify(userStrategy)}, the user's)`),
    ]);
  });
});
