// `kill -9` of the `npm start` process itself (npm's own PID, as a user's `kill -9 <pid of npm>` or a
// terminal's crash does): local mode runs on as an orphan unless `rollouts serve` notices that its
// parent is gone. It must then stop as on Ctrl-C: the API, the sandbox's control plane and every
// component process end, and the endpoint file is removed, so the next `npm start` starts cleanly.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../bench/testbed/cliProcess.ts';
import { cleanEnv, ourProcesses } from '../../bench/testbed/localModeProcess.ts';
import { waitFor } from '../../bench/testbed/wait.ts';

const home = mkdtempSync(path.join(tmpdir(), 'rollouts-parentkill-'));
const env = cleanEnv({ ROLLOUTS_HOME: home });
let npm: ChildProcess | undefined;
let output = '';

/** A live (not zombie) process's parent PID, or null when it is gone. */
function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' ? null : Number(fields[1]);
  } catch {
    return null;
  }
}

/** The `rollouts serve` process npm started (npm runs the script through `exec`, so it is npm's child). */
function servePid(npmPid: number): number | undefined {
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    const pid = Number(entry);
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      if (cmdline.includes('bin/rollouts.js serve') && parentOf(pid) === npmPid) return pid;
    } catch {
      // Gone while we looked.
    }
  }
  return undefined;
}

describe('kill -9 of npm start', () => {
  after(() => {
    // Only if the test failed: nothing it started may outlive it.
    for (const p of ourProcesses(home)) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    if (npm?.exitCode === null && npm.signalCode === null) npm.kill('SIGKILL');
    rmSync(home, { recursive: true, force: true });
  });

  test('serve notices its parent is gone and stops itself and the whole sandbox control plane', async () => {
    npm = spawn('npm', ['start', '--', '--sandbox', '--fresh', '--pod-ready-ms', '300'], { cwd: REPO_ROOT, env });
    npm.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    npm.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    const endpoint = path.join(home, 'endpoint');
    await waitFor(() => existsSync(endpoint) || npm?.exitCode !== null, { message: 'local mode to write its endpoint', timeoutMs: 180_000, intervalMs: 100 });
    assert.ok(existsSync(endpoint), `npm start ended early:\n${output}`);
    const npmPid = npm.pid as number;
    const serve = await waitFor(() => servePid(npmPid), { message: 'the serve process under npm', timeoutMs: 10_000, intervalMs: 100 });
    const components = ourProcesses(home);
    assert.ok(components.length >= 4, `the sandbox's control plane runs: ${JSON.stringify(components)}`);

    npm.kill('SIGKILL');

    await waitFor(() => parentOf(serve) === null, { message: `serve (PID ${serve}) to end after npm (PID ${npmPid}) was killed:\n${output}`, timeoutMs: 60_000, intervalMs: 100 });
    await waitFor(() => ourProcesses(home).length === 0, { message: `no component left: ${JSON.stringify(ourProcesses(home))}`, timeoutMs: 30_000, intervalMs: 100 });
    for (const c of components) assert.equal(parentOf(c.pid), null, `component ${c.pid} (${c.cmdline}) ended`);
    assert.equal(existsSync(endpoint), false, 'a clean stop removes the endpoint file');
    assert.match(output, new RegExp(`the process that started serve \\(PID ${npmPid}\\) is gone: stopping`));
    assert.match(output, /stopped in [\d.]+ s/);
  });
});
