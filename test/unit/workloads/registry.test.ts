// The registry is the one place kinds are listed: every kind of the pure leaf
// (shared/rollout/workloadKinds.ts) has a driver, and each driver serves exactly its kind.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { WORKLOAD_KINDS, WORKLOAD_TYPES, workloadKindOf } from '../../../shared/rollout/workloadKinds.ts';
import { watchTargets } from '../../../shared/watch/mapping.ts';
import { WORKLOAD_DRIVERS } from '../../../shared/workloads/registry.ts';

describe('the workload registry', () => {
  it('has a driver for every kind a Rollout can name, filed under that kind', () => {
    assert.deepEqual(Object.keys(WORKLOAD_DRIVERS).sort(), [...WORKLOAD_KINDS].sort());
    for (const kind of WORKLOAD_KINDS) assert.equal(WORKLOAD_DRIVERS[kind].kind, kind);
  });

  it('each driver reads and writes exactly the workload its kind names (apiVersion and Kubernetes kind)', () => {
    for (const kind of WORKLOAD_KINDS) {
      const { apiVersion, kind: k8sKind } = WORKLOAD_DRIVERS[kind].workload;
      assert.deepEqual({ apiVersion, kind: k8sKind }, { apiVersion: WORKLOAD_TYPES[kind].apiVersion, kind: WORKLOAD_TYPES[kind].kind }, kind);
      assert.equal(workloadKindOf(apiVersion, k8sKind), kind);
    }
  });

  it('a kind routes traffic exactly when its driver names the revision label the traffic Services select on', () => {
    for (const kind of WORKLOAD_KINDS) {
      assert.equal(WORKLOAD_TYPES[kind].routesTraffic, WORKLOAD_DRIVERS[kind].revisionLabel !== undefined, kind);
    }
    assert.equal(WORKLOAD_TYPES.Deployment.routesTraffic, true);
  });

  it('tells the Kruise StatefulSet and DaemonSet from the native ones by apiVersion alone', () => {
    assert.equal(workloadKindOf('apps/v1', 'StatefulSet'), 'StatefulSet');
    assert.equal(workloadKindOf('apps.kruise.io/v1beta1', 'StatefulSet'), 'AdvancedStatefulSet');
    assert.equal(workloadKindOf('apps/v1', 'DaemonSet'), 'DaemonSet');
    assert.equal(workloadKindOf('apps.kruise.io/v1alpha1', 'DaemonSet'), 'AdvancedDaemonSet');
    assert.equal(workloadKindOf('apps.kruise.io/v1alpha1', 'StatefulSet'), null);
  });

  it('declares for each workload and watched kind the plural resource Kubernetes serves it as', () => {
    for (const kind of WORKLOAD_KINDS) {
      const w = WORKLOAD_DRIVERS[kind].workload;
      assert.equal(kubernetesPlural(w.kind), w.resource, kind);
      for (const watch of WORKLOAD_DRIVERS[kind].watches) assert.equal(kubernetesPlural(watch.kind), watch.resource, `${kind} watches ${watch.kind}`);
    }
  });

  it('each driver watches its own workload resource, so every kind reacts to events', () => {
    for (const target of watchTargets(WORKLOAD_DRIVERS)) assert.ok(target.consumers.length > 0);
    for (const kind of WORKLOAD_KINDS) {
      const d = WORKLOAD_DRIVERS[kind];
      assert.ok(d.watches.some((w) => w.apiVersion === d.workload.apiVersion && w.resource === d.workload.resource), kind);
    }
  });

  it('says in words how each kind is counted, held, moved and restored', () => {
    for (const kind of WORKLOAD_KINDS) {
      const s = WORKLOAD_DRIVERS[kind].summary;
      for (const field of ['counts', 'readiness', 'hold', 'batch', 'restore'] as const) assert.ok(s[field].length > 10, `${kind}.summary.${field}`);
    }
    assert.match(WORKLOAD_DRIVERS.DaemonSet.summary.counts, /desiredNumberScheduled/);
    assert.match(WORKLOAD_DRIVERS.AdvancedDaemonSet.summary.counts, /desiredNumberScheduled/);
  });
});

/**
 * The plural Kubernetes derives from a kind when a CRD does not name one (apimachinery's
 * meta.UnsafeGuessKindToResource): lower case, "s" → "ses", "y" → "ies", else "s". Every kind here follows it.
 */
function kubernetesPlural(kind: string): string {
  const lower = kind.toLowerCase();
  if (lower.endsWith('s')) return `${lower}es`;
  if (lower.endsWith('y')) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}
