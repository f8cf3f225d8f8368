import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { statefulSetView } from '../../../shared/workloads/statefulset/view.ts';
import { observation, pod, pods, revision, statefulSet, V1, V2, V3 } from './statefulSetFixtures.ts';

describe('StatefulSet view: ControllerRevisions + pods → WorkloadView', () => {
  it('lists the controller\'s revisions newest first, images from their stored template, counts from the pods', () => {
    const podList = [...pods(V1, V1, V1), pod(3, V2, { ready: false }), pod(4, V2), pod(5, V1, { terminating: true })];
    const view = statefulSetView(observation(statefulSet({ partition: 3, record: '3' }), [revision(V1, 1), revision(V2, 2)], podList));
    assert.deepEqual(view.revisions, [
      { id: V2, number: 2, images: { app: 'web:v2' }, desired: 2, current: 2, ready: 1, available: 1 },
      { id: V1, number: 1, images: { app: 'web:v1' }, desired: 3, current: 3, ready: 3, available: 3 },
    ]);
    assert.equal(view.replicas, 5);
    assert.equal(view.templateRevision, V2);
    assert.equal(view.held, true);
    assert.equal(view.maxSurge, 0);
    assert.equal(view.maxUnavailable, 1);
    assert.deepEqual(view.problems, []);
  });

  it('counts pods of a revision whose ControllerRevision is gone under that revision', () => {
    const view = statefulSetView(observation(statefulSet(), [revision(V2, 2)], pods(V1, V2)));
    assert.deepEqual(view.revisions.map((r) => [r.id, r.number, r.current]), [[V2, 2, 1], [V1, 0, 1]]);
    assert.deepEqual(view.revisions[1]!.images, { app: 'web:v1' });
  });

  describe('the template revision', () => {
    it('is status.updateRevision once the controller has observed the latest generation', () => {
      assert.equal(statefulSetView(observation(statefulSet({ image: 'web:v2', updateRevision: V2 }))).templateRevision, V2);
    });

    it('before that, is the stored revision equal to the live template (an abort or undo restores one)', () => {
      const restored = statefulSet({ image: 'web:v1', generation: 4, observedGeneration: 3, updateRevision: V2 });
      const view = statefulSetView(observation(restored));
      assert.equal(view.observed, false);
      assert.equal(view.templateRevision, V1);
    });

    it('before that, for a template no revision stores yet, stays the last reported update revision', () => {
      const changed = statefulSet({ image: 'web:v3', generation: 4, observedGeneration: 3, updateRevision: V2 });
      const view = statefulSetView(observation(changed));
      assert.equal(view.observed, false);
      assert.equal(view.templateRevision, V2, 'the new revision shows up once observed');
      assert.deepEqual(view.problems, []);
    });

    it('is unknown, and the rollout waits Degraded, while the controller has never reported a revision', () => {
      const fresh = statefulSet({ image: 'web:v3', generation: 1, observedGeneration: 0, updateRevision: '', status: { updateRevision: undefined } });
      const view = statefulSetView(observation(fresh, []));
      assert.equal(view.templateRevision, '');
      assert.deepEqual(view.problems, ['the StatefulSet controller has not recorded a revision of the pod template yet']);
    });
  });

  describe('held', () => {
    const heldAt = (o: Parameters<typeof statefulSet>[0]) => statefulSetView(observation(statefulSet(o))).held;

    it('at the hold partition 32767', () => assert.equal(heldAt({ partition: 32767 }), true));
    it('not at the default partition 0 of a StatefulSet nobody holds', () => assert.equal(heldAt({ partition: 0 }), false));
    it('not without a rollingUpdate (partition defaults to 0)', () => assert.equal(heldAt({ partition: null }), false));
    it('at the partition a batch recorded, even 0 for a 100% batch', () => {
      assert.equal(heldAt({ partition: 2, record: '2' }), true);
      assert.equal(heldAt({ partition: 0, record: '0' }), true);
    });
    it('not when someone lowered the partition below the batch\'s', () => assert.equal(heldAt({ partition: 1, record: '2' }), false));
    it('not when the record is not a partition we wrote', () => assert.equal(heldAt({ partition: 2, record: 'two' }), false));
  });

  describe('native completion', () => {
    it('is the controller\'s: currentRevision == updateRevision with every replica updated and ready, even held at 32767', () => {
      const done = statefulSet({ partition: 32767, currentRevision: V2, updateRevision: V2, status: { updatedReplicas: 5 } });
      assert.equal(statefulSetView(observation(done)).nativeComplete, true);
    });

    it('is not while pods still run the old revision', () => {
      const moving = statefulSet({ partition: 0, record: '0', currentRevision: V1, updateRevision: V2, status: { updatedReplicas: 4 } });
      assert.equal(statefulSetView(observation(moving)).nativeComplete, false);
    });

    it('is not when a replica is not ready, nor before the controller observed the latest spec', () => {
      const unready = statefulSet({ currentRevision: V2, updateRevision: V2, status: { updatedReplicas: 5, readyReplicas: 4 } });
      assert.equal(statefulSetView(observation(unready)).nativeComplete, false);
      const unobserved = statefulSet({ currentRevision: V2, updateRevision: V2, generation: 5, observedGeneration: 4, status: { updatedReplicas: 5 } });
      assert.equal(statefulSetView(observation(unobserved)).nativeComplete, false);
    });
  });

  describe('problems (Degraded)', () => {
    it('a selector that selects every pod', () => {
      assert.match(statefulSetView(observation(statefulSet({ selector: {} }))).problems.join(), /selects every pod/);
    });

    it('a StatefulSet being deleted', () => {
      assert.deepEqual(statefulSetView(observation(statefulSet({ deleting: true }))).problems, ['the StatefulSet is being deleted']);
    });

    it('a Rollout stored before Advanced StatefulSets had their kind (a Kruise apiVersion under StatefulSet)', () => {
      const obs = { ...observation(null), ref: { apiVersion: 'apps.kruise.io/v1beta1', kind: 'StatefulSet' as const, name: 'web' } };
      const view = statefulSetView(obs);
      assert.equal(view.exists, true);
      assert.deepEqual(view.problems, ['apps.kruise.io/v1beta1 StatefulSet is an AdvancedStatefulSet now: apply the Rollout again']);
    });
  });

  it('resolves maxUnavailable like the controller: default 1, a percent rounds down, never below 1', () => {
    const budget = (maxUnavailable?: number | string, replicas = 10) => statefulSetView(observation(statefulSet({ replicas, maxUnavailable }))).maxUnavailable;
    assert.equal(budget(), 1);
    assert.equal(budget(3), 3);
    assert.equal(budget('25%'), 2);
    assert.equal(budget('5%'), 1);
  });

  it('reports a missing StatefulSet as not existing', () => {
    const view = statefulSetView(observation(null, []));
    assert.equal(view.exists, false);
    assert.equal(view.kind, 'StatefulSet');
  });

  it('ignores ControllerRevisions and pods another controller owns', () => {
    const foreign = { ...revision(V3, 3), metadata: { ...revision(V3, 3).metadata, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'other', uid: 'other-uid', controller: true }] } };
    const strangerPod = { ...pod(7, V3), metadata: { ...pod(7, V3).metadata, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'other', uid: 'other-uid', controller: true }] } };
    const view = statefulSetView(observation(statefulSet(), [revision(V1, 1), revision(V2, 2), foreign], [...pods(V1), strangerPod]));
    assert.deepEqual(view.revisions.map((r) => r.id), [V2, V1]);
  });
});

describe('StatefulSet view: OnDelete (the user\'s strategy)', () => {
  it('is held by nature, each revision keeping the pods it has, the old ones listed highest ordinal first', () => {
    const view = statefulSetView(observation(statefulSet({ strategyType: 'OnDelete' }), undefined, [pod(0, V1), pod(1, V1), pod(2, V1), pod(3, V2), pod(4, V2)]));
    assert.equal(view.held, true);
    assert.deepEqual(view.problems, []);
    assert.deepEqual(view.revisions.map((r) => [r.id, r.desired, r.current]), [[V2, 2, 2], [V1, 3, 3]]);
    assert.deepEqual(view.toReplace, ['web-2', 'web-1', 'web-0']);
  });

  it('lists an old pod that is not Available first', () => {
    const view = statefulSetView(observation(statefulSet({ strategyType: 'OnDelete' }), undefined, [pod(0, V1, { ready: false }), pod(1, V1), pod(2, V2)]));
    assert.deepEqual(view.toReplace, ['web-0', 'web-1']);
  });

  it('is complete once every replica runs the update revision and is ready (the controller never moves currentRevision there)', () => {
    const done = statefulSet({ strategyType: 'OnDelete', currentRevision: V1, updateRevision: V2, status: { updatedReplicas: 5 } });
    assert.equal(statefulSetView(observation(done)).nativeComplete, true);
  });
});

describe('StatefulSet view: Available pods honour the set\'s minReadySeconds', () => {
  it('counts a pod Available only once Ready for minReadySeconds, and says when the next one turns Available', () => {
    const set = { ...statefulSet({ partition: 4, record: '4' }) };
    set.spec = { ...set.spec, minReadySeconds: 5 };
    const ready = (at: string) => ({ conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at }] });
    const ps = pods(V1, V1, V1, V1, V2).map((p, i) => ({ ...p, status: ready(i === 4 ? '2030-01-01T00:00:03Z' : '2029-12-31T00:00:00Z') }));
    const view = statefulSetView({ ...observation(set, undefined, ps), now: new Date('2030-01-01T00:00:05Z') });
    const v2 = view.revisions.find((r) => r.id === V2);
    assert.deepEqual([v2?.ready, v2?.available], [1, 0]);
    assert.equal(view.nextAvailableAt, '2030-01-01T00:00:08.000Z');
    assert.deepEqual(view.revisions.map((r) => [r.id, r.desired]).sort(), [[V1, 4], [V2, 1]].sort(), 'what the partition asks of each revision');
  });
});
