// `rollouts dashboard` as a child process, as a user starts it: the URL it prints, Ctrl-C to stop.
import { spawn, type ChildProcess } from 'node:child_process';
import { REPO_ROOT, ROLLOUTS_BIN } from '../../bench/testbed/cliProcess.ts';
import { waitFor } from '../../bench/testbed/wait.ts';

export class DashboardProcess {
  private output = '';
  readonly exited: Promise<number | null>;

  private constructor(readonly child: ChildProcess, readonly url: string) {
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /** Starts `rollouts dashboard --port 0 <args>` with `env` and waits for the URL it prints. */
  static async start(args: string[], env: NodeJS.ProcessEnv): Promise<DashboardProcess> {
    const child = spawn(process.execPath, [ROLLOUTS_BIN, 'dashboard', '--port', '0', ...args], { cwd: REPO_ROOT, env });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const url = await waitFor(() => /available at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(output)?.[1] ?? (child.exitCode !== null ? 'exited' : null), {
      message: 'the dashboard to print its URL', timeoutMs: 60_000,
    });
    if (url === 'exited') throw new Error(`rollouts dashboard exited early:\n${output}`);
    const dashboard = new DashboardProcess(child, url);
    dashboard.output = output;
    child.stdout.on('data', (d: Buffer) => (dashboard.output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (dashboard.output += d.toString()));
    return dashboard;
  }

  log(): string {
    return this.output;
  }

  /** Ctrl-C, and its exit code. */
  async stop(): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGINT');
    return this.exited;
  }
}
