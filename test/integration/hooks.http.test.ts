// http hooks against a real HTTP server on 127.0.0.1 (the user's hook endpoint), on the real
// control plane: a Deployment (Partition strategy) whose first preUpdate answers 500 three times is retried with backoff
// and then goes on (the ReplicaSet controller is steered to the cleared pods with
// pod-deletion-cost); a Deployment whose postUpdate answers 403 fails the release, and the
// automatic rollback's postUpdate reaches the server for the pod it recreates (issue 21); a
// StatefulSet whose preUpdate answers 403 fails the release with the body in the reason, and the
// automatic rollback returns the pods to stable.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AdapterCallRunner } from '../../shared/adapters/checks/runner.ts';
import type { CallBody } from '../../shared/adapters/checks/callBody.ts';
import { Engine } from '../../bench/testbed/engine.ts';
import { bindHooksRole } from '../support/hooksRbac.ts';

const V1 = 'registry.invalid/web:v1';
const V2 = 'registry.invalid/web:v2';

interface Received { body: CallBody; key: string | undefined }

/** The hook endpoint: records every call, answers with `decide`. */
async function hookServer(decide: (r: Received, seen: Received[]) => { status: number; body: string }): Promise<{ url: string; seen: Received[]; server: Server }> {
  const seen: Received[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const r = { body: JSON.parse(raw) as CallBody, key: req.headers['idempotency-key'] as string | undefined };
      seen.push(r);
      const answer = decide(r, seen);
      res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, seen, server };
}

describe('http hooks on the real control plane', () => {
  let engine: Engine;
  const servers: Server[] = [];
  before(async () => {
    engine = await Engine.start();
    engine.calls = new AdapterCallRunner({ clock: engine.clock });
  });
  after(async () => {
    for (const s of servers) s.close();
    await engine?.stop();
  });

  it('retries a preUpdate that answers 500 three times, then replaces exactly the pods it cleared', async () => {
    let failures = 0;
    const hook = await hookServer(() => (failures++ < 3 ? { status: 500, body: 'warming up' } : { status: 200, body: 'read-only' }));
    servers.push(hook.server);
    const s = await engine.scenario('hooks-http', {
      replicas: 3, deploymentStrategy: 'Partition', steps: [{ replicas: 1, pause: { duration: 0 } }, { replicas: '100%' }],
      spec: { lifecycle: { preUpdate: { http: { url: hook.url }, retries: 3, backoff: '1s' } } },
    });
    // A Deployment's cleared pods get pod-deletion-cost: the hooks role, bound in this namespace only.
    await bindHooksRole(engine.cluster.admin, s.namespace);
    await s.reconcileUntil((x) => x.state.phase === 'Healthy' && x.state.stableRevision !== null, 'the Deployment to be held');
    const original = (await s.core.listNamespacedPod({ namespace: s.namespace })).items.map((p) => p.metadata?.name ?? '').sort();
    await s.setImage(V2);
    const done = await s.reconcileUntil((x) => x.state.phase === 'Completed', 'the release to complete', 120_000);
    assert.equal(done.pods[V2]?.ready, 3);
    assert.equal(done.pods[V1], undefined);

    const attempts = hook.seen.map((r) => `${r.body.pod} #${r.body.attempt}`);
    const first = hook.seen[0]?.body.pod;
    assert.deepEqual(attempts.slice(0, 4), [`${first} #1`, `${first} #2`, `${first} #3`, `${first} #4`], 'retried with the same pod, a new attempt each time');
    assert.deepEqual([...new Set(hook.seen.map((r) => r.body.pod))].sort(), original, 'every old pod was asked before it went, and only they');
    assert.equal(hook.seen.length, 6, 'four attempts for the first pod, one for each other');
    assert.ok(hook.seen.every((r) => r.key === r.body.idempotencyKey && r.body.phase === 'preUpdate' && r.body.rollout.name === 'web' && r.body.releaseId === 'r1'));
    const history = await engine.store.listHistory(s.key);
    assert.deepEqual(history.filter((h) => h.type.startsWith('Hook')).map((h) => h.type), [
      'Hook Attempt Failed', 'Hook Attempt Failed', 'Hook Attempt Failed', 'Hook Succeeded', 'Hook Succeeded', 'Hook Succeeded',
    ]);
  });

  it('calls the release\'s postUpdate on its first pod, and the automatic rollback\'s postUpdate on the pod the rollback recreates', async () => {
    // The release's postUpdate is refused (a smoke test that fails): the release fails and rolls back.
    const hook = await hookServer((r) => (r.body.phase === 'postUpdate' && !(r.key ?? '').includes('-rollback/')
      ? { status: 403, body: 'smoke test failed' }
      : { status: 200, body: 'ok' }));
    servers.push(hook.server);
    const s = await engine.scenario('hooks-http-rollback', {
      replicas: 3, deploymentStrategy: 'Partition', steps: [{ replicas: 1, pause: { duration: 0 } }, { replicas: '100%' }],
      spec: { rollbackOnFailure: true, lifecycle: { postUpdate: { http: { url: hook.url } } } },
    });
    await s.reconcileUntil((x) => x.state.phase === 'Healthy' && x.state.stableRevision !== null, 'the Deployment to be held');
    const original = (await s.core.listNamespacedPod({ namespace: s.namespace })).items.map((p) => p.metadata?.name ?? '');
    await s.setImage(V2);
    const snap = await s.reconcileUntil((x) => x.state.phase === 'Failed' && x.state.release === null, 'the release to fail and roll back', 120_000);
    assert.equal(snap.pods[V1]?.ready, 3);
    assert.equal(snap.pods[V2], undefined);
    const released = hook.seen.filter((r) => r.key?.startsWith('r1/'));
    assert.deepEqual(released.map((r) => r.body.phase), ['postUpdate'], 'the step-1 pod got the release\'s postUpdate');
    const rolledBack = hook.seen.filter((r) => r.key?.startsWith('r1-rollback/'));
    assert.equal(rolledBack.length, 1, `the rollback's postUpdate reached the server: ${JSON.stringify(hook.seen.map((r) => r.key))}`);
    const recreated = rolledBack[0]?.body.pod ?? '';
    assert.equal(rolledBack[0]?.key, `r1-rollback/${recreated}/postUpdate/1`);
    const live = (await s.core.listNamespacedPod({ namespace: s.namespace })).items.map((p) => p.metadata?.name ?? '');
    assert.ok(live.includes(recreated) && !original.includes(recreated), `${recreated} is the stable pod the rollback brought (original: ${original.join(', ')})`);
  });

  it('fails the release with the body of a 403 in the reason, and rolls the updated pod back to stable', async () => {
    const hook = await hookServer((r) => (r.body.pod === 'web-2' || r.body.phase === 'postUpdate'
      ? { status: 200, body: 'ok' }
      : { status: 403, body: `${r.body.pod} is the primary: promote a replica first` }));
    servers.push(hook.server);
    const s = await engine.statefulSetScenario('hooks-http-403', {
      replicas: 3, steps: [{ replicas: 1, pause: { duration: 0 } }, { replicas: '100%' }],
      spec: { rollbackOnFailure: true, lifecycle: { preUpdate: { http: { url: hook.url } } } },
    });
    await s.reconcileUntilSet((x) => x.state.phase === 'Healthy' && x.state.stableRevision !== null, 'the StatefulSet to be held');
    await s.setImage(V2);
    const snap = await s.reconcileUntilSet((x) => x.state.phase === 'Failed' && x.state.release === null, 'the release to fail and roll back', 120_000);
    assert.deepEqual(Object.entries(snap.byName).map(([n, p]) => `${n} ${p.image}`).sort(), ['web-0 registry.invalid/web:v1', 'web-1 registry.invalid/web:v1', 'web-2 registry.invalid/web:v1']);
    assert.equal(snap.state.message, `release r1 failed, rolled back to revision ${snap.state.stableRevision}: preUpdate hook on pod web-1 failed after 1 attempt: HTTP 403: web-1 is the primary: promote a replica first`);
    assert.deepEqual(snap.state.cause && [snap.state.cause.kind, snap.state.cause.object], ['Hook', 'pod/web-1']);
    assert.equal(hook.seen.filter((r) => r.body.pod === 'web-1').length, 1, 'a 403 is not retried');
  });
});
