import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../shared/kube/types.ts';
import { statefulSetWrites } from '../../../shared/workloads/statefulset/writes.ts';
import { BATCH_PARTITION, ORIGINAL_PARTITION } from '../../../shared/workloads/statefulset/statefulSetObjects.ts';
import { observation, pod, pods, revision, statefulSet, STS_REF, V1, V2, V3 } from './statefulSetFixtures.ts';

const partitionPatch = (partition: number | null, record?: string | null, original?: string | null) => ({
  ...(record !== undefined || original !== undefined ? {
    metadata: { annotations: { ...(record !== undefined ? { [BATCH_PARTITION]: record } : {}), ...(original !== undefined ? { [ORIGINAL_PARTITION]: original } : {}) } },
  } : {}),
  spec: { updateStrategy: { rollingUpdate: { partition } } },
});

describe('StatefulSet driver: planned actions → exact writes', () => {
  it('holds an unheld StatefulSet at partition 32767, recording the user\'s partition, with one merge patch guarded by its resourceVersion', () => {
    const writes = statefulSetWrites(observation(statefulSet({ partition: 0, image: 'web:v1', updateRevision: V1 })), [{ type: 'hold' }]);
    assert.deepEqual(writes, [{
      verb: 'patch', ref: STS_REF, patchType: 'merge', resourceVersion: '100',
      patch: partitionPatch(32767, undefined, '0'), reason: 'hold (partition 32767)',
    }]);
  });

  it('holds a StatefulSet without a rollingUpdate by adding one (recording that the partition was unset)', () => {
    const [w] = statefulSetWrites(observation(statefulSet({ partition: null, updateRevision: V1, image: 'web:v1' })), [{ type: 'hold' }]) as [any];
    assert.deepEqual(w.patch, partitionPatch(32767, undefined, 'null'));
  });

  it('records the user\'s latest partition when they changed it between releases, and none for our own hold', () => {
    const [w] = statefulSetWrites(observation({ ...statefulSet({ partition: 2, image: 'web:v1', updateRevision: V1 }), metadata: { ...statefulSet().metadata, annotations: { [ORIGINAL_PARTITION]: '0' } } }), [{ type: 'hold' }]) as [any];
    assert.deepEqual(w.patch, partitionPatch(32767, undefined, '2'));
    assert.deepEqual(statefulSetWrites(observation(statefulSet({ partition: 32767, image: 'web:v1', updateRevision: V1 })), [{ type: 'hold' }]), []);
  });

  it('writes nothing when the cluster already matches the plan', () => {
    const moving = observation(statefulSet({ partition: 4, record: '4' }), undefined, pods(V1, V1, V1, V1, V2));
    assert.deepEqual(statefulSetWrites(moving, [{ type: 'distribute', target: V2, distribution: { [V2]: 1, [V1]: 4 }, strategy: null, final: false }]), []);
    const done = observation(statefulSet({ partition: 32767, currentRevision: V2, updateRevision: V2 }), undefined, pods(V2, V2, V2, V2, V2));
    assert.deepEqual(statefulSetWrites(done, [{ type: 'hold' }]), []);
  });

  it('starts a batch: partition = N − pods of the target, recorded so the lowered partition still counts as held', () => {
    const obs = observation(statefulSet(), undefined, pods(V1, V1, V1, V1, V1));
    const writes = statefulSetWrites(obs, [{ type: 'distribute', target: V2, distribution: { [V2]: 3, [V1]: 2 }, strategy: null, final: false }]);
    assert.deepEqual(writes, [{
      verb: 'patch', ref: STS_REF, patchType: 'merge', resourceVersion: '100',
      patch: partitionPatch(2, '2'), reason: `partition 2: pods from ordinal 2 up move to ${V2}`,
    }]);
  });

  it('goes to partition 0 for a batch of every pod', () => {
    const [w] = statefulSetWrites(observation(statefulSet({ partition: 2, record: '2' })), [{ type: 'distribute', target: V2, distribution: { [V2]: 5 }, strategy: null, final: false }]) as [any];
    assert.deepEqual(w.patch, partitionPatch(0, '0'));
  });

  it('moves nothing for a target that is not the controller\'s update revision', () => {
    const obs = observation(statefulSet({ updateRevision: V2 }), [revision(V1, 1), revision(V2, 2), revision(V3, 3)]);
    assert.deepEqual(statefulSetWrites(obs, [{ type: 'distribute', target: V3, distribution: { [V3]: 1, [V1]: 4 }, strategy: null, final: false }]), []);
  });

  it('lowers no partition before the controller has observed the latest template (it would roll that one)', () => {
    const obs = observation(statefulSet({ image: 'web:v3', generation: 4, observedGeneration: 3 }));
    assert.deepEqual(statefulSetWrites(obs, [{ type: 'distribute', target: V2, distribution: { [V2]: 1, [V1]: 4 }, strategy: null, final: false }]), []);
  });

  it('re-holds and re-applies the batch in one patch when someone lowered the partition mid-release', () => {
    const [w, ...rest] = statefulSetWrites(observation(statefulSet({ partition: 0, record: '4' })), [
      { type: 'hold' }, { type: 'distribute', target: V2, distribution: { [V2]: 1, [V1]: 4 }, strategy: null, final: false },
    ]) as [any];
    assert.deepEqual(rest, []);
    assert.deepEqual(w.patch, partitionPatch(4));
  });

  it('restores the template of a revision with a merge diff (abort / undo); the controller then reuses that revision', () => {
    const writes = statefulSetWrites(observation(statefulSet({ partition: 2, record: '2' })), [{ type: 'restore-template', revision: V1, strategy: null }]);
    assert.deepEqual(writes, [{
      verb: 'patch', ref: STS_REF, patchType: 'merge', resourceVersion: '100',
      patch: { spec: { template: { spec: { containers: [{ name: 'app', image: 'web:v1', resources: {}, imagePullPolicy: 'IfNotPresent' }] } } } },
      reason: 'restore pod template',
    }]);
  });

  it('hands back the user\'s recorded partition exactly, dropping both records, in one patch', () => {
    const recorded = (original: string) => ({ ...statefulSet({ partition: 32767 }), metadata: { ...statefulSet().metadata, annotations: { [ORIGINAL_PARTITION]: original } } });
    const [w] = statefulSetWrites(observation(recorded('3')), [{ type: 'release-hold' }]) as [any];
    assert.deepEqual(w.patch, partitionPatch(3, undefined, null));
    assert.equal(w.reason, 'hand back to its controller (partition 3, the user\'s)');
    const [unset] = statefulSetWrites(observation(recorded('null')), [{ type: 'release-hold' }]) as [any];
    assert.deepEqual(unset.patch, partitionPatch(null, undefined, null), 'an unset partition is unset again');
  });

  it('hands back at partition 0 without any record (held by an older version; delete, or finalize before the controller reported completion)', () => {
    const [held] = statefulSetWrites(observation(statefulSet({ partition: 32767 })), [{ type: 'release-hold' }]) as [any];
    assert.deepEqual(held.patch, partitionPatch(0));
    assert.equal(held.reason, 'hand back to its controller (partition 0, the default)');
    const [finished] = statefulSetWrites(observation(statefulSet({ partition: 0, record: '0' })), [{ type: 'release-hold' }]) as [any];
    assert.deepEqual(finished.patch, { metadata: { annotations: { [BATCH_PARTITION]: null } } });
  });

  it('completes a release by holding again at 32767 and dropping the batch record', () => {
    const done = observation(statefulSet({ partition: 0, record: '0', currentRevision: V2 }), undefined, pods(V2, V2, V2, V2, V2));
    const [w] = statefulSetWrites(done, [{ type: 'hold' }]) as [any];
    assert.deepEqual(w.patch, partitionPatch(32767, null));
  });

  it('raises the partition before a requested template change lands, even with a batch planned in the same pass', () => {
    const writes = statefulSetWrites(observation(statefulSet({ partition: 2, record: '2' })), [
      { type: 'set-template', change: { type: 'images', images: { app: 'web:v3' } } },
      { type: 'distribute', target: V2, distribution: { [V2]: 3, [V1]: 2 }, strategy: null, final: false },
    ]) as any[];
    assert.deepEqual(writes.map((w) => [w.verb, w.patchType]), [['patch', 'merge'], ['patch', 'strategic']]);
    assert.deepEqual(writes[0].patch, partitionPatch(32767, null));
    assert.equal(writes[0].resourceVersion, '100');
    assert.deepEqual(writes[1].patch, { spec: { template: { spec: { containers: [{ name: 'app', image: 'web:v3' }] } } } });
    assert.equal(writes[1].resourceVersion, undefined);
  });

  describe('a release restarted on a newer revision', () => {
    // v1 → v2 reached 3 pods, then v3 arrived: step 1 of v3 wants {v3: 1, v1: 4}.
    const restarted = (podList = [pod(0, V1), pod(1, V1), pod(2, V2), pod(3, V2), pod(4, V3)]) =>
      observation(statefulSet({ partition: 4, record: '4', image: 'web:v3', currentRevision: V1, updateRevision: V3 }), [revision(V1, 1), revision(V2, 2), revision(V3, 3)], podList);
    const step1 = { type: 'distribute' as const, target: V3, distribution: { [V3]: 1, [V1]: 4 }, strategy: null, final: false };

    it('deletes the interrupted revision\'s pods below the partition, highest first, one within maxUnavailable 1', () => {
      const writes = statefulSetWrites(restarted(), [step1]);
      assert.deepEqual(writes, [{
        verb: 'delete', ref: { apiVersion: 'v1', kind: 'Pod', namespace: 'ns', name: 'web-3' }, resourceVersion: 'rv-pod-3',
        reason: `delete web-3 (revision ${V2}, below partition 4) so it comes back at ${V1}`,
      }]);
    });

    it('deletes a stray below the partition even when the release calls another revision stable (a release restarted during a rollback waited forever)', () => {
      // The set's current revision is V2 (a finished release), a rollback to V1 had moved web-2 back, then V3 arrived: the plan says {V3: 1, V1: 4}.
      const obs = observation(statefulSet({ partition: 4, record: '4', image: 'web:v3', currentRevision: V2, updateRevision: V3 }), [revision(V1, 1), revision(V2, 2), revision(V3, 3)],
        [pod(0, V2), pod(1, V2), pod(2, V1), pod(3, V2), pod(4, V3)]);
      const writes = statefulSetWrites(obs, [step1]) as { verb: string; ref: { name: string } }[];
      assert.deepEqual(writes.map((w) => [w.verb, w.ref.name]), [['delete', 'web-2']]);
    });

    it('waits for a recreated stray to be Available under minReadySeconds before deleting the next (soak: two pods down at once with maxUnavailable 1)', () => {
      const now = new Date('2026-12-01T10:00:00Z');
      const justReady = (p: KubeObject, secondsAgo: number): KubeObject => ({ ...p, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date(now.getTime() - secondsAgo * 1000).toISOString() }] } });
      const withMinReady = (podList: KubeObject[]) => {
        const obs = restarted(podList);
        return { ...obs, now, workload: { ...obs.workload!, spec: { ...obs.workload!.spec, minReadySeconds: 5 } } };
      };
      // web-3 (a stray) was deleted by the last pass and is back on V1, Ready for 1 s of the set's 5.
      const recreated = [pod(0, V1), pod(1, V1), pod(2, V2), justReady(pod(3, V1), 1), justReady(pod(4, V3), 60)];
      assert.deepEqual(statefulSetWrites(withMinReady(recreated), [step1]), []);
      const available = [pod(0, V1), pod(1, V1), pod(2, V2), justReady(pod(3, V1), 6), justReady(pod(4, V3), 60)];
      assert.deepEqual((statefulSetWrites(withMinReady(available), [step1]) as { ref: { name: string } }[]).map((w) => w.ref.name), ['web-2']);
    });

    it('deletes nothing while a pod is unavailable or the controller still has pods to update above the partition', () => {
      assert.deepEqual(statefulSetWrites(restarted([pod(0, V1), pod(1, V1, { ready: false }), pod(2, V2), pod(3, V2), pod(4, V3)]), [step1]), []);
      assert.deepEqual(statefulSetWrites(restarted([pod(0, V1), pod(1, V1), pod(2, V2), pod(3, V2), pod(4, V2)]), [step1]), []);
      assert.deepEqual(statefulSetWrites(restarted([pod(0, V1), pod(1, V1), pod(2, V2), pod(3, V2, { terminating: true }), pod(4, V3)]), [step1]), []);
    });
  });

  it('after a scale-up mid-batch, sends a batch pod left below the new partition back to stable', () => {
    // 5 → 6 replicas at batch {v2: 1}: the controller made web-5 at v2 (partition was 4), web-4 is surplus.
    const obs = observation(statefulSet({ replicas: 6, partition: 5, record: '5' }), undefined, [...pods(V1, V1, V1, V1, V2), pod(5, V2)]);
    const writes = statefulSetWrites(obs, [{ type: 'distribute', target: V2, distribution: { [V2]: 1, [V1]: 5 }, strategy: null, final: false }]) as any[];
    assert.deepEqual(writes.map((w) => [w.verb, w.ref.name]), [['delete', 'web-4']]);
  });

  describe('an OnDelete StatefulSet (the user\'s strategy)', () => {
    const onDelete = (podList: ReturnType<typeof pods>, o: Parameters<typeof statefulSet>[0] = {}) => observation(statefulSet({ strategyType: 'OnDelete', ...o }), undefined, podList);
    const batch = (n: number, onDeletePolicy?: 'Automatic' | 'Manual') =>
      ({ type: 'distribute' as const, target: V2, distribution: { [V2]: n, [V1]: 5 - n }, strategy: null, final: false, ...(onDeletePolicy ? { onDeletePolicy } : {}) });
    const deleted = (writes: unknown[]) => (writes as { verb: string; ref: { name: string } }[]).map((w) => `${w.verb} ${w.ref.name}`);

    it('has nothing to hold or hand back', () => {
      assert.deepEqual(statefulSetWrites(onDelete(pods(V1, V1, V1, V1, V1)), [{ type: 'hold' }, { type: 'release-hold' }]), []);
    });

    it('deletes old pods highest ordinal first, one at a time (maxUnavailable 1), guarded by their resourceVersion', () => {
      assert.deepEqual(statefulSetWrites(onDelete(pods(V1, V1, V1, V1, V1)), [batch(3)]), [{
        verb: 'delete', ref: { apiVersion: 'v1', kind: 'Pod', namespace: 'ns', name: 'web-4' }, resourceVersion: 'rv-pod-4',
        reason: `delete web-4 (revision ${V1}; OnDelete) so the StatefulSet recreates it at ${V2}`,
      }]);
      assert.deepEqual(deleted(statefulSetWrites(onDelete(pods(V1, V1, V1, V1, V2)), [batch(3)])), ['delete web-3']);
    });

    it('waits while a deleted pod is missing or on its way out, and stops at the batch', () => {
      assert.deepEqual(statefulSetWrites(onDelete(pods(V1, V1, V1, V1)), [batch(3)]), [], 'web-4 is being recreated: the budget is spent');
      assert.deepEqual(statefulSetWrites(onDelete([...pods(V1, V1, V1, V1), pod(4, V1, { terminating: true })]), [batch(3)]), []);
      assert.deepEqual(statefulSetWrites(onDelete(pods(V1, V1, V2, V2, V2)), [batch(3)]), []);
    });

    it('replaces an old pod that is not Available first: it costs no availability', () => {
      assert.deepEqual(deleted(statefulSetWrites(onDelete([pod(0, V1), pod(1, V1, { ready: false }), pod(2, V1), pod(3, V1), pod(4, V1)]), [batch(3)])), ['delete web-1']);
    });

    it('deletes nothing with onDeletePolicy Manual, nor before the controller observed the template, nor for another target', () => {
      assert.deepEqual(statefulSetWrites(onDelete(pods(V1, V1, V1, V1, V1)), [batch(3, 'Manual')]), []);
      assert.deepEqual(statefulSetWrites(onDelete(pods(V1, V1, V1, V1, V1), { generation: 4, observedGeneration: 3 }), [batch(3)]), []);
      assert.deepEqual(statefulSetWrites(onDelete(pods(V1, V1, V1, V1, V1), { updateRevision: V3 }), [batch(3)]), []);
    });
  });

  it('writes nothing for a StatefulSet that does not exist', () => {
    assert.deepEqual(statefulSetWrites(observation(null, []), [{ type: 'hold' }]), []);
  });
});
