// Runs the `rollouts` executable (bin/rollouts.js) as a child process, as a user or a CI job would,
// collecting its exit code and output.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const ROLLOUTS_BIN = path.join(REPO_ROOT, 'bin/rollouts.js');

export interface CliRun {
  code: number | null;
  out: string;
  err: string;
}

/** `rollouts <args>` with exactly `env` as its environment, from the repository root. */
export function runRollouts(args: string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ROLLOUTS_BIN, ...args], { cwd: REPO_ROOT, env });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, out, err }));
  });
}
