// POST /v1/rollouts/{c}/{ns}/{name}/{verb} and DELETE: bodies, idempotency keys, fast 409s.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_PENDING_COMMANDS } from '../../../shared/api/commandRoutes.ts';
import type { Command } from '../../../shared/rollout/types.ts';
import { ALICE, KEY, PATH, api, awaitingApproval, healthy, release, seedRollout, seedState, type Api } from './apiFixtures.ts';

async function withRollout(state = awaitingApproval()): Promise<Api> {
  const a = api();
  await seedRollout(a);
  await seedState(a, state);
  return a;
}

async function pending(a: Api): Promise<Command[]> {
  return (await a.store.load(KEY)).state.state.commands;
}

describe('commands', () => {
  test('approve while a step awaits approval is recorded with the caller and queued (202)', async () => {
    const a = await withRollout();
    const res = await a.call('POST', `${PATH}/approve`, { commandId: 'ci-42', stepIndex: 0 });
    assert.equal(res.status, 202);
    assert.deepEqual(res.json, {
      rollout: KEY, commandId: 'ci-42', duplicate: false,
      command: { type: 'approve', stepIndex: 0, releaseId: 'r1', id: 'ci-42', at: '2030-01-01T00:00:00.000Z', by: ALICE },
    });
    assert.deepEqual((await pending(a)).map((c) => c.id), ['ci-42']);
    assert.deepEqual(a.queue.keys(), ['prod/shop/web']);
  });

  test('the same commandId again is a 200 duplicate and records nothing more', async () => {
    const a = await withRollout();
    await a.call('POST', `${PATH}/approve`, { commandId: 'ci-42' });
    const again = await a.call('POST', `${PATH}/approve`, { commandId: 'ci-42' });
    assert.equal(again.status, 200);
    assert.deepEqual(again.json, { rollout: KEY, commandId: 'ci-42', duplicate: true });
    assert.equal((await pending(a)).length, 1);
  });

  test('a retried command that the planner already consumed is still a duplicate, not a 409', async () => {
    const a = await withRollout(healthy());
    const state = { ...healthy(), appliedCommandIds: ['ci-7'] };
    await seedState(a, state);
    const res = await a.call('POST', `${PATH}/approve`, { commandId: 'ci-7' });
    assert.equal(res.status, 200);
    assert.equal(res.json.duplicate, true);
  });

  test('without a commandId the API generates one', async () => {
    const a = await withRollout();
    const res = await a.call('POST', `${PATH}/pause`);
    assert.equal(res.status, 202);
    assert.equal(res.json.commandId, 'generated-1');
  });

  test('approve when nothing awaits approval is a 409 with the reason, and records nothing', async () => {
    const a = await withRollout(awaitingApproval({ release: release({ stepState: 'Upgrading' }) }));
    const res = await a.call('POST', `${PATH}/approve`);
    assert.equal(res.status, 409);
    assert.equal((res.json.error as { message: string }).message, 'approve prod/shop/web: step 1 is Upgrading, not awaiting approval');
    assert.deepEqual(await pending(a), []);
    assert.deepEqual(a.queue.sent, []);
  });

  test('approving another step than the one waiting is a 409', async () => {
    const a = await withRollout();
    const res = await a.call('POST', `${PATH}/approve`, { stepIndex: 1 });
    assert.equal(res.status, 409);
  });

  test('abort, retry and resume that cannot apply answer 409', async () => {
    const a = await withRollout(healthy());
    for (const [verb, reason] of [['abort', 'no release in progress'], ['retry', 'the release has not failed'], ['resume', 'not paused']] as const) {
      const res = await a.call('POST', `${PATH}/${verb}`);
      assert.equal(res.status, 409, verb);
      assert.match((res.json.error as { message: string }).message, new RegExp(`${reason}$`));
    }
    assert.deepEqual(await pending(a), []);
  });

  test('retry of a failed release is accepted', async () => {
    const a = await withRollout(awaitingApproval({ release: release({ stepState: 'Upgrading', failure: 'deadline exceeded' }) }));
    assert.equal((await a.call('POST', `${PATH}/retry`)).status, 202);
  });

  test('release with images records a template change and a normalised startAt', async () => {
    const a = await withRollout(healthy());
    const res = await a.call('POST', `${PATH}/release`, { images: { app: 'registry.example/app:v2' }, startAt: '2030-01-02T10:00:00+02:00' });
    assert.equal(res.status, 202);
    const [cmd] = await pending(a);
    assert.deepEqual({ change: (cmd as { change: unknown }).change, startAt: (cmd as { startAt: unknown }).startAt }, {
      change: { type: 'images', images: { app: 'registry.example/app:v2' } },
      startAt: '2030-01-02T08:00:00.000Z',
    });
  });

  test('release with a templatePatch records the patch', async () => {
    const a = await withRollout(healthy());
    const patch = { metadata: { annotations: { restartedAt: 'now' } } };
    assert.equal((await a.call('POST', `${PATH}/release`, { templatePatch: patch })).status, 202);
    assert.deepEqual((await pending(a))[0], { type: 'release', change: { type: 'templatePatch', patch }, id: 'generated-1', at: '2030-01-01T00:00:00.000Z', by: ALICE });
  });

  test('bad command bodies are 400s naming the field, and change nothing', async () => {
    const a = await withRollout(healthy());
    const cases: [string, unknown, string][] = [
      ['release', {}, 'images'],
      ['release', { images: { app: 'a:1' }, templatePatch: { x: 1 } }, 'images'],
      ['release', { images: { app: 'has space' } }, 'images.app'],
      ['release', { images: { app: 'a:1' }, startAt: 'tomorrow' }, 'startAt'],
      ['undo', { toRevison: 3 }, 'toRevison'],
      ['undo', { toRevision: 0 }, 'toRevision'],
      ['approve', { stepIndex: 'first' }, 'stepIndex'],
      ['pause', { commandId: '' }, 'commandId'],
      ['pause', [], '(body)'],
    ];
    for (const [verb, body, path] of cases) {
      const res = await a.call('POST', `${PATH}/${verb}`, body);
      assert.equal(res.status, 400, `${verb} ${JSON.stringify(body)}`);
      const issues = (res.json.error as { issues: { path: string; reason: string }[] }).issues;
      assert.equal(issues[0]?.path, path, `${verb} ${JSON.stringify(body)}: ${JSON.stringify(issues)}`);
      assert.ok(issues[0]?.reason);
    }
    assert.deepEqual(await pending(a), []);
    assert.deepEqual(a.queue.sent, []);
  });

  test('a commandId sent again with another command is a 409 naming commandId, not a silent duplicate', async () => {
    const a = await withRollout();
    assert.equal((await a.call('POST', `${PATH}/pause`, { commandId: 'ci-1' })).status, 202);
    const abort = await a.call('POST', `${PATH}/abort`, { commandId: 'ci-1' });
    assert.equal(abort.status, 409);
    assert.deepEqual((abort.json.error as { issues: unknown }).issues, [{ path: 'commandId', reason: '"ci-1" was already used for a pause command (recorded 2030-01-01T00:00:00.000Z); send this one with a new id' }]);
    const release2 = async (image: string) => a.call('POST', `${PATH}/release`, { commandId: 'ci-2', images: { app: image } });
    assert.equal((await release2('registry.example/app:v2')).status, 202);
    assert.equal((await release2('registry.example/app:v2')).status, 200, 'the same command again is the retry it looks like');
    assert.match(((await release2('registry.example/app:v3')).json.error as { message: string }).message, /"ci-2" was already used for another release command/);
    assert.deepEqual((await pending(a)).map((c) => c.id), ['ci-1', 'ci-2']);
  });

  test('a container name that is not DNS-1123 is named with the reason (not zod\'s "Invalid key in record")', async () => {
    const a = await withRollout(healthy());
    const res = await a.call('POST', `${PATH}/release`, { images: { App_1: 'a:1' } });
    assert.deepEqual((res.json.error as { issues: unknown }).issues, [{ path: 'images.App_1', reason: 'container name must be a DNS-1123 label (lowercase letters, digits and "-", at most 63)' }]);
  });

  test('a field of the wrong type says what it must be and what it got', async () => {
    const a = await withRollout();
    const res = await a.call('POST', `${PATH}/approve`, { stepIndex: '1' });
    assert.deepEqual((res.json.error as { issues: unknown }).issues, [{ path: 'stepIndex', reason: 'must be a number, not the string "1"' }]);
  });

  test('a command beyond the pending limit is a 429 with Retry-After and records nothing; a delete is still taken', async () => {
    const a = await withRollout();
    for (let i = 0; i < MAX_PENDING_COMMANDS; i += 1) assert.equal((await a.call('POST', `${PATH}/pause`, { commandId: `p${i}` })).status, 202);
    const more = await a.call('POST', `${PATH}/resume`, { commandId: 'one-more' });
    assert.equal(more.status, 429);
    assert.equal(more.headers['retry-after'], '5');
    assert.match((more.json.error as { message: string }).message, /^resume prod\/shop\/web: 20 commands are already waiting for the reconciler; send this one again once they are applied$/);
    assert.equal((await pending(a)).length, MAX_PENDING_COMMANDS);
    assert.equal((await a.call('DELETE', PATH, { commandId: 'bye' })).status, 202);
  });

  test('a command for an unknown rollout is a 404', async () => {
    const a = api();
    const res = await a.call('POST', `${PATH}/pause`);
    assert.equal(res.status, 404);
    assert.equal((res.json.error as { message: string }).message, 'rollout prod/shop/web not found');
  });

  test('DELETE records a delete command (202); later commands are refused with 409', async () => {
    const a = await withRollout(healthy());
    const res = await a.call('DELETE', PATH);
    assert.equal(res.status, 202);
    assert.deepEqual((await pending(a)).map((c) => c.type), ['delete']);
    const pause = await a.call('POST', `${PATH}/pause`);
    assert.equal(pause.status, 409);
    assert.match((pause.json.error as { message: string }).message, /being deleted/);
  });
});
