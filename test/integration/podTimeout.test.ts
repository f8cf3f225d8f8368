// Seed 003's IsUpdateTimedOut on the real control plane: a StatefulSet release whose new pod never
// becomes Ready (kwok's never-ready label) fails once podUpdateTimeout has passed, and the reason
// names the pod, its phase and its last condition, as the kubelet (kwok) reports them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine } from '../../bench/testbed/engine.ts';
import { mergePatch, NEVER_READY_LABEL } from '../../bench/testbed/kube.ts';

describe('per-pod update timeout on the real control plane', () => {
  let engine: Engine;
  before(async () => { engine = await Engine.start(); });
  after(async () => { await engine?.stop(); });

  it('fails the release naming the pod that did not become Ready in time, its phase and its condition', async () => {
    const s = await engine.statefulSetScenario('pod-timeout', { replicas: 3, steps: [{ replicas: 1 }, { replicas: '100%' }], spec: { podUpdateTimeout: '4s' } });
    await s.reconcileUntilSet((x) => x.state.phase === 'Healthy' && x.state.stableRevision !== null, 'the StatefulSet to be held');
    await s.apps.patchNamespacedStatefulSet({
      name: 'web', namespace: s.namespace,
      body: { spec: { template: { metadata: { labels: { app: 'web', [NEVER_READY_LABEL]: 'true' } }, spec: { containers: [{ name: 'app', image: 'registry.invalid/web:v2' }] } } } },
    }, mergePatch);
    const failed = await s.reconcileUntilSet((x) => x.state.phase === 'Failed', 'the release to fail', 60_000);
    assert.match(failed.state.message, /^failed: pod web-2 was not Ready on revision web-[0-9a-f]+ within 4s \(podUpdateTimeout\): phase Running, Ready False/);
    assert.deepEqual(failed.state.cause && [failed.state.cause.kind, failed.state.cause.object], ['PodNotReady', 'pod/web-2']);
    assert.equal(Object.values(failed.byName).filter((p) => p.image === 'registry.invalid/web:v2').length, 1, 'no further pod was replaced');
  });
});
