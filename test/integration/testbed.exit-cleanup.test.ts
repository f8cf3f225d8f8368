// A test process that dies without stopping what it started still leaves nothing behind: the
// harnesses' exit hooks kill each server's process group by PID and remove its temp dir.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { waitFor } from '../../bench/testbed/wait.ts';

// Starts Prometheus and a function under the Lambda RIE (with its Node runtime started by one
// invoke), prints what it started, then ends the way a broken test does.
const CRASHING_TEST = (ending: string) => `
import fs from 'node:fs';
import path from 'node:path';
import { startPrometheus } from './test/support/prometheus.ts';
import { startLambdaRuntime } from './test/support/aws/lambdaRuntime.ts';
const ours = /^rollouts-(prometheus|aws-lambda-rie)-/;
const before = new Set(fs.readdirSync(${JSON.stringify(os.tmpdir())}).filter((d) => ours.test(d)));
const fn = fs.mkdtempSync(path.join(${JSON.stringify(os.tmpdir())}, 'rollouts-fn-'));
fs.writeFileSync(path.join(fn, 'index.mjs'), 'export const handler = async () => ({ pid: process.pid });');
const prometheus = await startPrometheus();
const runtime = await startLambdaRuntime({ dir: fn });
const { payload } = await runtime.invoke({});
const dirs = fs.readdirSync(${JSON.stringify(os.tmpdir())}).filter((d) => ours.test(d) && !before.has(d));
const started = { pids: [prometheus.pid, runtime.pid, payload.pid], dirs, functionDir: fn };
console.log(JSON.stringify(started));
${ending}
`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

interface Started {
  pids: number[];
  /** The harnesses' temp dirs. */
  dirs: string[];
  /** The function's code, the crashing test's own (removed here). */
  functionDir: string;
}

async function runAndDie(ending: string): Promise<Started & { code: number | null }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CRASHING_TEST(ending)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const line = stdout.split('\n').find((l) => l.startsWith('{'));
  assert.ok(line, `the crashing test printed what it started; stderr: ${stderr}`);
  const started = JSON.parse(line) as Started;
  fs.rmSync(started.functionDir, { recursive: true, force: true });
  return { ...started, code };
}

describe('test-bed exit hooks', () => {
  for (const [how, ending] of [
    ['process.exit without stop()', 'process.exit(3);'],
    ['an uncaught exception', "setTimeout(() => { throw new Error('test crashed'); }, 0);"],
  ] as const) {
    test(`Prometheus, the RIE and its Node runtime are killed and their temp dirs removed after ${how}`, async () => {
      const { pids, dirs, code } = await runAndDie(ending);
      assert.notEqual(code, 0);
      assert.equal(pids.length, 3);
      assert.equal(dirs.length, 2, `one temp dir each: ${dirs.join(', ')}`);
      await waitFor(() => pids.every((pid) => !alive(pid)), { message: `processes ${pids.join(', ')} gone`, timeoutMs: 5_000 });
      for (const dir of dirs) assert.equal(fs.existsSync(path.join(os.tmpdir(), dir)), false, `${dir} removed`);
    });
  }
});
