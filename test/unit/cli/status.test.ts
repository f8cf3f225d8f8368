// `rollouts status`: the CI gate. Exit code 0 only when the release Completed; the wait ignores a
// phase left over from an earlier release while a command is pending.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { StatusResponse } from '../../../shared/api/types.ts';
import { statusVerdict } from '../../../shared/cli/commands/status.ts';
import { initialState } from '../../../shared/rollout/state.ts';
import type { ReleaseState } from '../../../shared/rollout/types.ts';
import { awaitingApproval, release } from '../api/apiFixtures.ts';
import { LOCAL_KEY, harness, type Harness } from './cliHarness.ts';

function status(over: Partial<StatusResponse>): StatusResponse {
  return {
    rollout: LOCAL_KEY, phase: 'Healthy', message: '', cause: null, step: null, release: null, lastRelease: null, releaseId: null,
    revisions: { stable: 'rev-a', target: null }, paused: { user: false, spec: false }, pendingCommands: [], removing: false,
    nextWakeAt: null, specVersion: 1, version: 3, settled: true, ...over,
  };
}

const completed = (): ReleaseState => ({ ...initialState(), phase: 'Completed', message: 'release r1 completed: stable at revision rev-b', stableRevision: 'rev-b', lastRelease: release({ id: 'r1' }) });
const aborted = (): ReleaseState => ({ ...initialState(), phase: 'Aborted', message: 'rollback r1 aborted: stable at revision rev-a', stableRevision: 'rev-a', lastRelease: release({ id: 'r1', kind: 'rollback', endPhase: 'Aborted' }) });

/** Stores `states` one after the other, one per poll of the CLI. */
function progressThrough(h: Harness, states: ReleaseState[]): void {
  h.onSleep = async () => {
    const next = states.shift();
    if (!next) return;
    const current = await h.api.store.load(LOCAL_KEY);
    await h.api.store.saveState(LOCAL_KEY, { state: next, outbox: { history: [], events: [] } }, current.state.version);
  };
}

describe('statusVerdict (when the wait ends, and how)', () => {
  test('a settled Completed rollout passes; Aborted, Failed and Degraded fail', () => {
    assert.equal(statusVerdict(status({ phase: 'Completed' })), 'completed');
    for (const phase of ['Aborted', 'Failed', 'Degraded'] as const) assert.equal(statusVerdict(status({ phase })), 'failed', phase);
  });

  test('a pending command means the phase shown is stale: keep waiting', () => {
    assert.equal(statusVerdict(status({ phase: 'Completed', settled: false, pendingCommands: [{ id: 'c1', type: 'release' }] })), null);
    assert.equal(statusVerdict(status({ phase: 'Failed', settled: false, pendingCommands: [{ id: 'c1', type: 'abort' }] })), null);
  });

  test('Healthy (no release yet) and a release in flight keep waiting; a failed batch ends it', () => {
    assert.equal(statusVerdict(status({ phase: 'Healthy' })), null);
    assert.equal(statusVerdict(status({ phase: 'Progressing', settled: false })), null);
    assert.equal(statusVerdict(status({ phase: 'Failed', settled: false })), 'failed');
  });
});

describe('rollouts status', () => {
  test('prints each new status and exits 0 once the release completes', async () => {
    const h = harness();
    await h.seed(awaitingApproval());
    progressThrough(h, [awaitingApproval(), { ...awaitingApproval(), message: 'step 2/2: moving pods', release: release({ stepIndex: 1, stepState: 'Upgrading' }) }, completed()]);
    const r = await h.cli('status', 'web');
    assert.deepEqual(r, {
      code: 0,
      err: '',
      out: [
        '‖ Paused: step 1/3: awaiting approval',
        '◌ Progressing: step 2/2: moving pods',
        '✔ Completed: release r1 completed: stable at revision rev-b',
        '',
      ].join('\n'),
    });
  });

  test('exits 1 when the release was aborted', async () => {
    const h = harness();
    await h.seed(aborted());
    const r = await h.cli('status', 'web');
    assert.equal(r.code, 1);
    assert.equal(r.err, 'error: release of web ended Aborted\n');
  });

  test('exits 1 at the timeout, naming the phase it was still in', async () => {
    const h = harness();
    await h.seed(awaitingApproval());
    const r = await h.cli('status', 'web', '--timeout', '5s');
    assert.equal(r.code, 1);
    assert.equal(r.err, 'error: timed out after 5s waiting for web (still Progressing)\n');
  });

  test('-o json: progress on stderr, the final status on stdout', async () => {
    const h = harness();
    await h.seed(completed());
    const r = await h.cli('status', 'web', '-o', 'json');
    assert.equal(r.code, 0);
    assert.equal(r.err, '✔ Completed: release r1 completed: stable at revision rev-b\n');
    assert.equal((JSON.parse(r.out) as StatusResponse).phase, 'Completed');
  });
});
