// A FleetRollout is validated field by field with the path and the reason, and its per-cluster policy
// exactly as the Rollout its members will be; what it leaves out gets the defaults docs/fleet.md states.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '../../../shared/errors.ts';
import { parseFleetRollout } from '../../../shared/fleet/parse.ts';
import { parseRollout } from '../../../shared/rollout/spec.ts';
import { WORKLOAD_KINDS, WORKLOAD_TYPES } from '../../../shared/rollout/workloadKinds.ts';
import { fleetDocument } from '../../support/sim/fleetSim.ts';

function issues(doc: unknown): { path: string; reason: string }[] {
  try {
    parseFleetRollout(doc);
  } catch (err) {
    if (err instanceof ValidationError) return err.issues;
    throw err;
  }
  assert.fail('the document was accepted');
}

function withSpec(spec: Record<string, unknown>): Record<string, unknown> {
  const doc = fleetDocument();
  return { ...doc, spec: { ...(doc.spec as object), ...spec } };
}

describe('parseFleetRollout: defaults', () => {
  it('normalises a minimal FleetRollout with the defaults an SRE expects', () => {
    const spec = parseFleetRollout(fleetDocument());
    assert.equal(spec.name, 'web');
    assert.deepEqual(spec.workload, { namespace: 'default', kind: 'Deployment', apiVersion: 'apps/v1', name: 'web' });
    assert.deepEqual(spec.clusterSelector, { matchLabels: { env: 'prod' }, matchExpressions: [] });
    assert.equal(spec.maxFailures, 0, 'no member may fail');
    assert.equal(spec.rollbackOnFailure, false);
    assert.equal(spec.unreachableDeadlineSeconds, 600);
    assert.deepEqual(spec.waves.map((w) => [w.name, w.pick.type, w.maxConcurrency, w.sortingLabelKey, w.after]), [
      ['canary', 'selector', 1, null, { bakeSeconds: 0, approval: true, gates: [] }],
      ['rest', 'rest', 1, null, { bakeSeconds: 0, approval: false, gates: [] }],
    ]);
  });

  it('gives each member exactly the spec parseRollout gives a Rollout with the same policy', () => {
    const template = { deploymentStrategy: 'Partition', progressDeadlineSeconds: 120, strategy: { canary: { steps: [{ replicas: 1 }, { replicas: '100%' }] } } };
    const fleet = parseFleetRollout(fleetDocument('web', { template }));
    const rollout = parseRollout({ apiVersion: 'rollouts.serverless-rollouts.io/v1alpha1', kind: 'Rollout', metadata: { name: 'web' }, spec: { ...template, workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' } } }, { cluster: 'x' });
    const { cluster: _c, namespace: _n, name: _m, windows: _w, ...policy } = rollout;
    assert.deepEqual(fleet.member, policy);
  });

  it('reads windows without a time zone in each member cluster\'s own zone, and keeps a zone that is written', () => {
    const spec = parseFleetRollout(fleetDocument('web', { template: { releaseWindows: [{ days: ['Mon'], start: '09:00', end: '16:00' }, { days: ['Tue'], start: '09:00', end: '16:00', timeZone: 'Asia/Tokyo' }] } }));
    assert.deepEqual(spec.windows.map((w) => w.timeZone), [null, 'Asia/Tokyo']);
  });

  it('takes every kind of the registry\'s table by its name, or as a Kubernetes kind with its apiVersion', () => {
    const template = { spec: { strategy: { canary: { steps: [{ replicas: '100%' }] } } } };
    for (const kind of WORKLOAD_KINDS) {
      const t = WORKLOAD_TYPES[kind];
      const byName = parseFleetRollout(withSpec({ workload: { namespace: 'default', kind, name: 'w' }, template }));
      const byApi = parseFleetRollout(withSpec({ workload: { namespace: 'default', kind: t.kind, apiVersion: t.apiVersion, name: 'w' }, template }));
      assert.equal(byName.workload.kind, kind);
      assert.equal(byApi.workload.kind, kind);
      assert.equal(byName.member.workloadRef.kind, kind);
    }
  });

  it('reads waves by count, by percent (25 or "25%") and the int-or-percent fields', () => {
    const spec = parseFleetRollout(withSpec({
      waves: [{ name: 'one', count: 1 }, { name: 'quarter', percent: '25%', maxConcurrency: '50%' }, { name: 'half', percent: 50 }, { name: 'rest', sortingLabelKey: 'example.com/order', after: { bake: '30m', gates: [{ name: 'ok', http: { url: 'http://127.0.0.1:1/ok' } }] } }],
      maxFailures: '10%', rollbackOnFailure: true, unreachableDeadline: '2m',
    }));
    assert.deepEqual(spec.waves.map((w) => w.pick), [{ type: 'count', count: 1 }, { type: 'percent', percent: 25 }, { type: 'percent', percent: 50 }, { type: 'rest' }]);
    assert.equal(spec.waves[1]?.maxConcurrency, '50%');
    assert.equal(spec.waves[3]?.after.bakeSeconds, 1800);
    assert.equal(spec.waves[3]?.after.gates[0]?.name, 'ok');
    assert.equal(spec.waves[3]?.sortingLabelKey, 'example.com/order');
    assert.deepEqual([spec.maxFailures, spec.rollbackOnFailure, spec.unreachableDeadlineSeconds], ['10%', true, 120]);
  });
});

describe('parseFleetRollout: bad input names the field and the reason', () => {
  it('reports a member policy problem at its place under spec.template, as the Rollout parser words it', () => {
    const found = issues(fleetDocument('web', { template: { strategy: { canary: { steps: [{ replicas: '0%' }] } }, progressDeadlineSeconds: 0 } }));
    assert.deepEqual(found, [
      { path: 'spec.template.spec.progressDeadlineSeconds', reason: 'must be > 0 seconds' },
      { path: 'spec.template.spec.strategy.canary.steps[0].replicas', reason: 'must be > 0%' },
    ]);
  });

  it('refuses a workloadRef in the member policy: the fleet sets it', () => {
    assert.deepEqual(issues(fleetDocument('web', { template: { workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'x' } } })), [
      { path: 'spec.template.spec.workloadRef', reason: 'is set by spec.workload (the same workload in every member cluster); remove it' },
    ]);
  });

  it('names the supported kinds for an unknown one, and does not add kind-specific noise', () => {
    const found = issues(withSpec({ workload: { namespace: 'default', kind: 'Job', name: 'w' }, template: { spec: { onDeletePolicy: 'Manual', strategy: { canary: { steps: [{ replicas: 1 }] } } } } }));
    assert.deepEqual(found.map((i) => i.path), ['spec.workload.kind']);
    assert.match(found[0]?.reason ?? '', /unsupported workload kind Job; supported: Deployment, StatefulSet, DaemonSet, CloneSet, AdvancedStatefulSet, AdvancedDaemonSet/);
  });

  it('lists every problem of the document at once, sorted by path', () => {
    const found = issues({ apiVersion: 'v1', kind: 'FleetRollout', metadata: { name: 'Web' }, spec: { workload: { namespace: 'default', kind: 'Deployment', name: 'web' }, clusterSelector: {}, template: { spec: { strategy: { canary: { steps: [{ replicas: 1 }] } } } }, waves: [], extra: 1 } });
    assert.deepEqual(found.map((i) => i.path), ['apiVersion', 'metadata.name', 'spec.extra', 'spec.waves']);
  });

  it('refuses another kind of document with one clear error', () => {
    assert.deepEqual(issues({ ...fleetDocument(), kind: 'Rollout' }), [{ path: 'kind', reason: 'must be "FleetRollout" (this document is a Rollout)' }]);
  });
});
