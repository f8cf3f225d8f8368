import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  DEFAULT_BATCH_DEADLINE_SECONDS,
  DEFAULT_NAMESPACE, KRUISE_API_VERSION, ROLLOUTS_API_VERSION, parseRollout, stepPauseLabel,
} from '../../../shared/rollout/spec.ts';
import type { StepPause } from '../../../shared/rollout/types.ts';
import { edited, kruiseDoc, ourDoc, releaseWindow } from './specFixtures.ts';

const ctx = { cluster: 'prod-eu' };

describe('parseRollout accepts', () => {
  test('a plain Kruise v1beta1 Rollout, with defaults for our extensions', () => {
    assert.deepEqual(parseRollout(kruiseDoc(), ctx), {
      cluster: 'prod-eu',
      namespace: 'default',
      name: 'web',
      apiVersion: KRUISE_API_VERSION,
      workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      paused: false,
      steps: [
        { replicas: 1, pause: { type: 'approval' } },
        { replicas: '50%', pause: { type: 'timed', seconds: 60 } },
        { replicas: '100%', pause: { type: 'none' } },
      ],
      failureThreshold: null,
      progressDeadlineSeconds: null,
      rollbackOnFailure: false,
      windows: [],
      startAt: null,
      deploymentStrategy: 'MinReadySeconds',
      onDeletePolicy: null,
    });
  });

  test('the Deployment strategy: MinReadySeconds by default, Partition by our field or Kruise\'s rolling-style annotation', () => {
    assert.equal(parseRollout(ourDoc(), ctx).deploymentStrategy, 'MinReadySeconds');
    assert.equal(parseRollout(edited(ourDoc, (d) => Object.assign(d.spec, { deploymentStrategy: 'Partition' })), ctx).deploymentStrategy, 'Partition');
    assert.equal(parseRollout(edited(ourDoc, (d) => Object.assign(d.spec, { deploymentStrategy: 'MinReadySeconds' })), ctx).deploymentStrategy, 'MinReadySeconds');
    const styled = edited(kruiseDoc, (d) => (d.metadata.annotations = { 'rollouts.kruise.io/rolling-style': 'Partition' }));
    assert.equal(parseRollout(styled, ctx).deploymentStrategy, 'Partition', 'compared case-insensitively, as Kruise does');
    const statefulSet = edited(kruiseDoc, (d) => (d.spec.workloadRef.kind = 'StatefulSet'));
    assert.equal(parseRollout(statefulSet, ctx).deploymentStrategy, null, 'other kinds have a single strategy');
  });

  test('our apiVersion with every extension', () => {
    const spec = parseRollout(edited(ourDoc, (d) => {
      d.metadata.namespace = 'shop';
      d.spec.strategy.paused = true;
      d.spec.strategy.canary.failureThreshold = '20%';
      d.spec.strategy.canary.enableExtraWorkloadForCanary = false;
      Object.assign(d.spec, {
        progressDeadlineSeconds: 600,
        rollbackOnFailure: true,
        releaseWindows: [releaseWindow({ end: '24:00' })],
        startAt: '2026-03-02T10:00:00+01:00',
      });
    }), ctx);
    assert.equal(spec.apiVersion, ROLLOUTS_API_VERSION);
    assert.equal(spec.namespace, 'shop');
    assert.equal(spec.paused, true);
    assert.equal(spec.failureThreshold, '20%');
    assert.equal(spec.progressDeadlineSeconds, 600);
    assert.equal(spec.rollbackOnFailure, true);
    assert.deepEqual(spec.windows, [{ days: ['Mon', 'Tue'], start: '09:00', end: '24:00', timeZone: 'Europe/Paris' }]);
    assert.equal(spec.startAt, '2026-03-02T09:00:00.000Z', 'startAt is normalised to UTC');
  });

  test('our apiVersion fails a stuck batch after 600 s by default; a Kruise document keeps no deadline', () => {
    assert.equal(parseRollout(ourDoc(), ctx).progressDeadlineSeconds, DEFAULT_BATCH_DEADLINE_SECONDS);
    assert.equal(DEFAULT_BATCH_DEADLINE_SECONDS, 600);
    assert.equal(parseRollout(edited(ourDoc, (d) => Object.assign(d.spec, { progressDeadlineSeconds: 90 })), ctx).progressDeadlineSeconds, 90);
    assert.equal(parseRollout(kruiseDoc(), ctx).progressDeadlineSeconds, null);
  });

  test('namespace comes from the document, else the context, else "default"', () => {
    assert.equal(parseRollout(edited(kruiseDoc, (d) => (d.metadata.namespace = 'a')), { cluster: 'c', namespace: 'b' }).namespace, 'a');
    assert.equal(parseRollout(kruiseDoc(), { cluster: 'c', namespace: 'b' }).namespace, 'b');
    assert.equal(parseRollout(kruiseDoc(), { cluster: 'c' }).namespace, DEFAULT_NAMESPACE);
  });

  const workloads: [string, string, string][] = [
    ['apps/v1', 'Deployment', 'Deployment'],
    ['apps/v1', 'StatefulSet', 'StatefulSet'],
    ['apps/v1', 'DaemonSet', 'DaemonSet'],
    ['apps.kruise.io/v1alpha1', 'CloneSet', 'CloneSet'],
    ['apps.kruise.io/v1beta1', 'StatefulSet', 'AdvancedStatefulSet'],
    ['apps.kruise.io/v1alpha1', 'DaemonSet', 'AdvancedDaemonSet'],
  ];
  for (const [apiVersion, kind, expected] of workloads) {
    test(`workloadRef ${apiVersion} ${kind} as a ${expected}, keeping its apiVersion`, () => {
      const spec = parseRollout(edited(kruiseDoc, (d) => Object.assign(d.spec.workloadRef, { apiVersion, kind })), ctx);
      assert.deepEqual(spec.workloadRef, { apiVersion, kind: expected, name: 'web' });
    });
  }

  test('onDeletePolicy: Automatic by default for kinds that can be OnDelete, null for the others, Manual when asked', () => {
    const withRef = (apiVersion: string, kind: string, policy?: string) => parseRollout(edited(ourDoc, (d) => {
      Object.assign(d.spec.workloadRef, { apiVersion, kind });
      if (policy !== undefined) d.spec.onDeletePolicy = policy;
    }), ctx);
    assert.equal(withRef('apps/v1', 'StatefulSet').onDeletePolicy, 'Automatic');
    assert.equal(withRef('apps/v1', 'DaemonSet', 'Manual').onDeletePolicy, 'Manual');
    assert.equal(withRef('apps.kruise.io/v1beta1', 'StatefulSet', 'Manual').onDeletePolicy, 'Manual');
    assert.equal(withRef('apps.kruise.io/v1alpha1', 'DaemonSet').onDeletePolicy, 'Automatic');
    assert.equal(withRef('apps/v1', 'Deployment').onDeletePolicy, null);
    assert.equal(withRef('apps.kruise.io/v1alpha1', 'CloneSet').onDeletePolicy, null);
  });

  test('steps of different types that would decrease if compared (Kruise compares same-type neighbours only)', () => {
    const spec = parseRollout(edited(kruiseDoc, (d) => {
      d.spec.strategy.canary.steps = [{ replicas: 5 }, { replicas: '10%' }, { replicas: 3 }, { replicas: '5%' }];
    }), ctx);
    assert.deepEqual(spec.steps.map((s) => s.replicas), [5, '10%', 3, '5%']);
  });

  test('failureThreshold at both ends of its range', () => {
    for (const t of [0, 3, '0%', '100%']) {
      assert.equal(parseRollout(edited(kruiseDoc, (d) => (d.spec.strategy.canary.failureThreshold = t)), ctx).failureThreshold, t);
    }
  });

  test('any non-decreasing list of 1..50 valid steps', () => {
    const percents = fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 50 })
      .map((a) => a.sort((x, y) => x - y).map((p) => `${p}%`));
    const ints = fc.array(fc.integer({ min: 1, max: 10_000 }), { minLength: 1, maxLength: 50 }).map((a) => a.sort((x, y) => x - y));
    fc.assert(fc.property(fc.oneof(percents, ints), (replicas: (string | number)[]) => {
      const spec = parseRollout(edited(kruiseDoc, (d) => (d.spec.strategy.canary.steps = replicas.map((r) => ({ replicas: r })))), ctx);
      return spec.steps.length === replicas.length;
    }));
  });
});

describe('parseRollout normalises Kruise pauses', () => {
  const cases: [string, unknown[], StepPause[]][] = [
    ['no pause waits for approval', [{ replicas: 1 }, { replicas: 2 }], [{ type: 'approval' }, { type: 'approval' }]],
    ['pause {} and pause null wait for approval', [{ replicas: 1, pause: {} }, { replicas: 2, pause: null }], [{ type: 'approval' }, { type: 'approval' }]],
    ['a duration is a timed pause, 0 is none', [{ replicas: 1, pause: { duration: 30 } }, { replicas: 2, pause: { duration: 0 } }], [{ type: 'timed', seconds: 30 }, { type: 'none' }]],
    ['a last step of literal "100%" never pauses', [{ replicas: 1 }, { replicas: '100%', pause: { duration: 600 } }], [{ type: 'approval' }, { type: 'none' }]],
    ['"100%" before the last step still pauses', [{ replicas: '100%' }, { replicas: '100%' }], [{ type: 'approval' }, { type: 'none' }]],
    ['a last step of int replicas pauses as written', [{ replicas: 1 }, { replicas: 10 }], [{ type: 'approval' }, { type: 'approval' }]],
  ];
  for (const [name, steps, expected] of cases) {
    test(name, () => {
      const spec = parseRollout(edited(kruiseDoc, (d) => (d.spec.strategy.canary.steps = steps as Record<string, unknown>[])), ctx);
      assert.deepEqual(spec.steps.map((s) => s.pause), expected);
    });
  }
});

describe('stepPauseLabel', () => {
  test('names approval, timed and no pause', () => {
    assert.equal(stepPauseLabel({ type: 'approval' }), 'approval');
    assert.equal(stepPauseLabel({ type: 'timed', seconds: 90 }), '90s');
    assert.equal(stepPauseLabel({ type: 'none' }), 'none');
  });
});
