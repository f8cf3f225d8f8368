// Seed 003's MySQL pair, on the real control plane: a StatefulSet release whose preUpdate exec hook
// runs in each pod before it is replaced and whose postUpdate runs once it is Ready again, through
// the Kubernetes exec API (kwok runs the commands on this host, in its exec directory), as the
// documented least-privilege user with serverless-rollouts-hooks bound in the namespace only.
// Each hook runs exactly once per pod, in order, even with a crash between a hook and the update.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { AdapterCallRunner } from '../../shared/adapters/checks/runner.ts';
import { Engine, type StatefulSetScenario } from '../../bench/testbed/engine.ts';
import { bindHooksRole } from '../support/hooksRbac.ts';

const V2 = 'registry.invalid/web:v2';

/** An exec hook that appends "<phase> <pod> <attempt> <key>" to a file in kwok's exec directory. */
const appendTo = (file: string, phase: string) => ({
  exec: { command: ['/bin/sh', '-c', `echo "${phase} $ROLLOUTS_POD $ROLLOUTS_ATTEMPT $ROLLOUTS_IDEMPOTENCY_KEY" >> ${file}`] },
  timeout: '10s', retries: 2, backoff: '1s',
});

describe('exec hooks on a StatefulSet (seed 003 read-only pair) on the real control plane', () => {
  let engine: Engine;
  before(async () => {
    engine = await Engine.start();
    engine.calls = new AdapterCallRunner({ clock: engine.clock, kubeConfig: async () => engine.cluster.rollouts });
  });
  after(async () => { await engine?.stop(); });

  function lines(file: string): string[] {
    const at = path.join(engine.cluster.execWorkDir, file);
    return existsSync(at) ? readFileSync(at, 'utf8').trim().split('\n').filter(Boolean) : [];
  }

  async function released(s: StatefulSetScenario): Promise<void> {
    await bindHooksRole(engine.cluster.admin, s.namespace);
    await s.reconcileUntilSet((x) => x.state.phase === 'Healthy' && x.state.stableRevision !== null, 'the StatefulSet to be held');
    await s.setImage(V2);
  }

  it('runs preUpdate before and postUpdate after each pod, highest ordinal first, exactly once, across a crash between hook and update', async () => {
    const file = `hooks-${Date.now()}.log`;
    const s = await engine.statefulSetScenario('hooks-exec', {
      replicas: 3, steps: [{ replicas: 1, pause: { duration: 0 } }, { replicas: '100%' }],
      spec: { lifecycle: { preUpdate: appendTo(file, 'read-only-on'), postUpdate: appendTo(file, 'read-only-off') } },
    });
    await released(s);

    // The first pass that records web-2's preUpdate success dies before the partition moves.
    let crashed = false;
    const crashOnce = async (point: string) => {
      if (point === 'calls-recorded' && !crashed) {
        crashed = true;
        throw new Error('crash injected between the hook and the update');
      }
    };
    for (let i = 0; i < 20 && !crashed; i += 1) await s.reconcile({ crashPoint: crashOnce }).catch((err: unknown) => assert.match(String(err), /crash injected/));
    assert.ok(crashed, 'the crash was injected');
    assert.deepEqual(lines(file).map((l) => l.split(' ').slice(0, 2).join(' ')), ['read-only-on web-2'], 'the hook ran, and the pod was not replaced yet');
    assert.equal((await s.setSnapshot()).byName['web-2']?.image, 'registry.invalid/web:v1');

    const done = await s.reconcileUntilSet((x) => x.state.phase === 'Completed', 'the release to complete', 120_000);
    assert.ok(Object.values(done.byName).every((p) => p.image === V2 && p.ready));
    assert.deepEqual(lines(file).map((l) => l.split(' ').slice(0, 3).join(' ')), [
      'read-only-on web-2 1', 'read-only-off web-2 1',
      'read-only-on web-1 1', 'read-only-off web-1 1',
      'read-only-on web-0 1', 'read-only-off web-0 1',
    ]);
    const history = await engine.store.listHistory(s.key);
    assert.equal(history.filter((h) => h.type === 'Hook Succeeded').length, 6, 'every outcome is in the history');
    assert.ok(lines(file).every((l) => /^\S+ web-\d 1 r1\/web-\d\/(preUpdate|postUpdate)\/1$/.test(l)), `each call carried its idempotency key: ${lines(file).join(' | ')}`);
  });

  it('fails the release with the command\'s status when the hook keeps failing, and leaves the pod alone', async () => {
    const s = await engine.statefulSetScenario('hooks-exec-fail', {
      replicas: 2, steps: [{ replicas: 1 }, { replicas: '100%' }],
      spec: { lifecycle: { preUpdate: { exec: { command: ['/bin/sh', '-c', 'echo replica lag too high; exit 3'] }, retries: 1, backoff: '1s' } } },
    });
    await released(s);
    const snap = await s.reconcileUntilSet((x) => x.state.phase === 'Failed', 'the release to fail', 60_000);
    assert.match(snap.state.message, /^failed: preUpdate hook on pod web-1 failed after 2 attempts: exit code 3: replica lag too high$/);
    assert.equal(snap.state.cause?.kind, 'Hook');
    assert.equal(snap.byName['web-1']?.image, 'registry.invalid/web:v1', 'the pod was never replaced');
  });

  it('refuses to exec where serverless-rollouts-hooks is not bound, saying which role to bind, and replaces no pod', async () => {
    const s = await engine.statefulSetScenario('hooks-exec-unbound', {
      replicas: 2, steps: [{ replicas: 1 }, { replicas: '100%' }],
      spec: { lifecycle: { preUpdate: { exec: { command: ['/bin/true'] } } } },
    });
    await s.reconcileUntilSet((x) => x.state.phase === 'Healthy' && x.state.stableRevision !== null, 'the StatefulSet to be held');
    await s.setImage(V2);
    const snap = await s.reconcileUntilSet((x) => x.state.phase === 'Failed', 'the release to fail');
    assert.match(snap.state.message, new RegExp(`^failed: preUpdate hook on pod web-1 failed after 1 attempt: exec forbidden \\(.*403\\): bind the ClusterRole serverless-rollouts-hooks in namespace ${s.namespace}`));
    assert.ok(Object.values(snap.byName).every((p) => p.image === 'registry.invalid/web:v1'));
  });
});
