// `rollouts serve` (what `npm start` runs) as a child process, driven as a user would: its output
// (one timestamped line each), its data directory, Ctrl-C, and kill -9. Plus what a user would
// check afterwards: which of our processes still run, found both from the process records the
// sandbox keeps and by scanning /proc for the control plane's binaries (argv[0] under the test
// plane's bin directory) and our supervisors, among the processes naming this data directory.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { locateAssets } from '../../shared/adapters/local/controlplane/assets.ts';
import { SUPERVISOR_NAME } from '../../shared/adapters/local/controlplane/daemon.ts';
import { readProcessRecords } from '../../shared/adapters/local/controlplane/processRecords.ts';
import { REPO_ROOT, ROLLOUTS_BIN, runRollouts, type CliRun } from './cliProcess.ts';
import { waitFor } from './wait.ts';

export interface ServeLine {
  at: number;
  line: string;
}

export class ServeProcess {
  readonly lines: ServeLine[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private partial = '';

  private constructor(readonly home: string, readonly child: ChildProcess) {
    const take = (d: Buffer): void => {
      this.partial += d.toString();
      const parts = this.partial.split('\n');
      this.partial = parts.pop() ?? '';
      const at = Date.now();
      for (const line of parts) this.lines.push({ at, line });
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Starts `rollouts serve <args>` with ROLLOUTS_HOME=home and waits until its API is up (default: up to 3 min). */
  static async start(home: string, args: string[], env: NodeJS.ProcessEnv, opts: { timeoutMs?: number } = {}): Promise<ServeProcess> {
    const endpoint = path.join(home, 'endpoint');
    rmSync(endpoint, { force: true }); // left by a killed run
    const child = spawn(process.execPath, [ROLLOUTS_BIN, 'serve', ...args], { cwd: REPO_ROOT, env: { ...env, ROLLOUTS_HOME: home } });
    const serve = new ServeProcess(home, child);
    await waitFor(() => existsSync(endpoint) || child.exitCode !== null, { message: 'local mode to write its endpoint', timeoutMs: opts.timeoutMs ?? 180_000, intervalMs: 100 });
    if (!existsSync(endpoint)) throw new Error(`serve exited early:\n${serve.output()}`);
    return serve;
  }

  get pid(): number {
    return this.child.pid as number;
  }

  output(): string {
    return this.lines.map((l) => l.line).join('\n');
  }

  /** Lines printed since index `from` that match. */
  since(from: number, pattern: RegExp): ServeLine[] {
    return this.lines.slice(from).filter((l) => pattern.test(l.line));
  }

  async waitForLine(pattern: RegExp, opts: { from?: number; timeoutMs?: number; message?: string } = {}): Promise<ServeLine> {
    return waitFor(() => this.since(opts.from ?? 0, pattern)[0], { message: opts.message ?? `serve to print ${pattern}`, timeoutMs: opts.timeoutMs ?? 60_000, intervalMs: 50 });
  }

  /** Ctrl-C, and the exit it leads to. */
  async interrupt(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGINT');
    return this.exited;
  }

  /** kill -9: no handler, no exit hook runs. */
  async kill9(): Promise<void> {
    this.child.kill('SIGKILL');
    await this.exited;
  }
}

/** `rollouts <args>` against the local mode of `home`. */
export function rolloutsAt(home: string, env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliRun> {
  return runRollouts(args, { ...env, ROLLOUTS_HOME: home });
}

/** An environment for the CLI and serve: no endpoint or kubeconfig of the developer's leaks in. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, NO_COLOR: '1', ROLLOUTS_ENDPOINT: '', ROLLOUTS_CLUSTER: '', KUBECONFIG: '', ...extra };
}

export interface OurProcess {
  pid: number;
  how: 'recorded' | 'binary' | 'supervisor';
  cmdline: string;
}

/** Where local mode's control planes live: the one sandbox, and each cluster of `serve --clusters N`. */
export function sandboxDirs(home: string): string[] {
  const fleet = path.join(home, 'fleet');
  const clusters = existsSync(fleet) ? readdirSync(fleet).filter((e) => /^c\d+$/.test(e)).map((e) => path.join(fleet, e)) : [];
  return [path.join(home, 'sandbox', 'kube'), ...clusters];
}

/**
 * Processes of ours for the data directory `home` that still run: any member of a process group
 * the sandbox recorded, any process whose executable lies in the control plane's bin directory,
 * and any supervisor, among those whose command line names `home`. Zombies do not count.
 */
export function ourProcesses(home: string): OurProcess[] {
  const binDir = `${locateAssets().binDir.replace(/\/+$/, '')}/`;
  const groups = new Set(sandboxDirs(home).flatMap((dir) => readProcessRecords(dir)).map((r) => r.pgid));
  const found: OurProcess[] = [];
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue;
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
      const cmdline = argv.join(' ');
      if (!cmdline.includes(home)) continue;
      const how = groups.has(Number(fields[2])) ? 'recorded' : argv[0]?.startsWith(binDir) ? 'binary' : argv.includes(SUPERVISOR_NAME) ? 'supervisor' : null;
      if (how) found.push({ pid: Number(entry), how, cmdline: cmdline.slice(0, 160) });
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}
