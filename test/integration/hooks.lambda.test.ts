// lambda hooks and a lambda gate on a real Lambda runtime: the AWS Lambda Runtime Interface
// Emulator (built from Go modules) running the function on Node 22 with the runtime interface
// client from npm, invoked through @aws-sdk/client-lambda as the deployed reconcile does. The
// function records every call it gets; a StatefulSet release runs preUpdate and postUpdate on each
// pod through it and asks it as a gate; a function that throws fails the release with its error.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { AdapterCallRunner } from '../../shared/adapters/checks/runner.ts';
import { startLambdaRuntime, type LambdaRuntime } from '../support/aws/lambdaRuntime.ts';
import { TEST_CREDENTIALS, TEST_REGION } from '../support/aws/testAccount.ts';
import { Engine } from '../../bench/testbed/engine.ts';

const V2 = 'registry.invalid/web:v2';

// The user's function: appends each call to CALLS_FILE; refuses pods named in REFUSE (throws).
const FUNCTION = `
import { appendFileSync } from 'node:fs';
export const handler = async (event) => {
  appendFileSync(process.env.CALLS_FILE, JSON.stringify(event) + '\\n');
  if (event.type === 'gate') return { result: 'pass', value: 0.01, message: 'replication lag 0.01s' };
  if ((process.env.REFUSE ?? '').split(',').includes(event.pod)) throw new Error('replica ' + event.pod + ' is lagging: 42s behind the primary');
  return { readOnly: event.phase === 'preUpdate' };
};
`;

describe('lambda hooks and gates on the Lambda Runtime Interface Emulator', () => {
  let engine: Engine;
  let runtime: LambdaRuntime;
  let lambda: LambdaClient;
  let dir: string;
  const callsFile = () => path.join(dir, 'calls.jsonl');
  const calls = (): Record<string, unknown>[] => (fs.existsSync(callsFile()) ? fs.readFileSync(callsFile(), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) : []);

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rollouts-hook-fn-'));
    fs.writeFileSync(path.join(dir, 'index.mjs'), FUNCTION);
    runtime = await startLambdaRuntime({ dir, env: { CALLS_FILE: path.join(dir, 'calls.jsonl'), REFUSE: 'web-0' } });
    lambda = new LambdaClient({ endpoint: runtime.endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS });
    engine = await Engine.start();
    engine.calls = new AdapterCallRunner({ clock: engine.clock, lambda: () => lambda });
  });
  after(async () => {
    lambda?.destroy();
    await engine?.stop();
    await runtime?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs the function around each pod\'s update and as the step\'s gate, then fails the release when it throws', async () => {
    const hook = { lambda: { functionName: 'function' }, retries: 1, backoff: '1s' };
    const s = await engine.statefulSetScenario('hooks-lambda', {
      replicas: 3,
      steps: [{ replicas: 2, pause: { duration: 0 }, gates: [{ name: 'replication', interval: '1s', lambda: { functionName: 'function' } }] }, { replicas: '100%' }],
      spec: { lifecycle: { preUpdate: hook, postUpdate: hook } },
    });
    await s.reconcileUntilSet((x) => x.state.phase === 'Healthy' && x.state.stableRevision !== null, 'the StatefulSet to be held');
    await s.setImage(V2);
    const failed = await s.reconcileUntilSet((x) => x.state.phase === 'Failed', 'web-0\'s preUpdate to fail the release', 120_000);

    const seen = calls().map((c) => (c.type === 'gate' ? `gate ${String(c.gate)}` : `${String(c.phase)} ${String(c.pod)} #${String(c.attempt)}`));
    assert.deepEqual(seen, [
      'preUpdate web-2 #1', 'postUpdate web-2 #1', 'preUpdate web-1 #1', 'postUpdate web-1 #1',
      'gate replication',
      'preUpdate web-0 #1', 'preUpdate web-0 #2',
    ]);
    assert.equal(failed.state.message, 'failed: preUpdate hook on pod web-0 failed after 2 attempts: function error: Error: replica web-0 is lagging: 42s behind the primary');
    assert.deepEqual(failed.byName['web-0']?.image, 'registry.invalid/web:v1', 'web-0 was never replaced');
    const first = calls()[0] as { rollout: { name: string }; releaseId: string; idempotencyKey: string; podRevision: string; revision: string };
    assert.equal(first.rollout.name, 'web');
    assert.equal(first.idempotencyKey, 'r1/web-2/preUpdate/1');
    assert.notEqual(first.podRevision, first.revision, 'preUpdate names the revision the pod runs and the one it goes to');
    const history = await engine.store.listHistory(s.key);
    assert.ok(history.some((h) => h.type === 'Gate Passed' && h.message.includes('0.01 replication lag 0.01s')));
  });
});
