// One long-running control-plane process (etcd, kube-apiserver, ...): spawned in its own process
// group with stdout+stderr appended to a log file, stopped with SIGTERM then SIGKILL, and killed
// synchronously if the Node process exits first.
// A Node process that is SIGKILLed runs no exit hook, and Linux's parent-death signal (prctl
// PR_SET_PDEATHSIG) cannot be set from Node. So each component runs under a small bash supervisor
// (SUPERVISOR below) whose stdin is a pipe only this process holds open: when this process dies,
// however it dies, the kernel closes that pipe, the supervisor reads end-of-file and sends the
// component SIGTERM. No polling. The supervisor is the group leader, so signalling the group
// (stop(), the exit hook) reaches both.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ControlPlaneError } from '../../../errors.ts';
import { registerExitCleanup } from './exitCleanup.ts';

export interface DaemonExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
}

export interface DaemonOptions {
  /** Variables added to the inherited environment. */
  env?: Record<string, string>;
  cwd?: string;
}

const LOG_TAIL_BYTES = 64 * 1024;

/**
 * `bash -c SUPERVISOR rollouts-supervisor <binary> <args...>`: runs the component in the background
 * (stdin /dev/null), forwards SIGTERM/SIGINT to it, waits for it and exits with its status; a
 * second job waits for end-of-file on the inherited stdin (fd 3), the parent's death, and then
 * terminates the component. Background jobs of a non-interactive shell stay in its process group.
 */
export const SUPERVISOR = [
  '"$@" </dev/null &',
  'child=$!',
  '{ IFS= read -r _ <&3; kill -TERM "$child" 2>/dev/null; } 3<&0 </dev/null &',
  'watcher=$!',
  'trap \'kill -TERM "$child" 2>/dev/null\' TERM INT',
  'status=0',
  'while kill -0 "$child" 2>/dev/null; do wait "$child"; status=$?; done',
  'kill "$watcher" 2>/dev/null',
  'exit "$status"',
].join('\n');
export const SUPERVISOR_NAME = 'rollouts-supervisor';

export class Daemon {
  readonly name: string;
  readonly logPath: string;
  readonly pid: number;
  /** Resolves when the process has exited (never rejects). */
  readonly exited: Promise<DaemonExit>;
  #exit: DaemonExit | undefined;
  readonly #cancelExitCleanup: () => void;

  private constructor(name: string, logPath: string, child: ChildProcess) {
    this.name = name;
    this.logPath = logPath;
    // Kill the whole group: the component runs as the group leader (detached), so -pid reaches it
    // and anything it forked.
    this.#cancelExitCleanup = registerExitCleanup(() => this.#signalGroup('SIGKILL'));
    this.exited = new Promise<DaemonExit>((resolve) => {
      const settle = (exit: DaemonExit): void => {
        if (this.#exit) return;
        this.#exit = exit;
        this.#cancelExitCleanup();
        resolve(exit);
      };
      child.once('exit', (code, signal) => settle({ code, signal }));
      // Spawn failures (ENOENT, EACCES) arrive as 'error' without any 'exit'.
      child.once('error', (error) => settle({ code: null, signal: null, error }));
    });
    if (child.pid === undefined) {
      this.#cancelExitCleanup();
      throw new ControlPlaneError(name, `could not be spawned (${child.spawnfile}); see ${logPath}`);
    }
    this.pid = child.pid;
    // Do not keep the event loop alive for a daemon: if the owner forgets stop(), the process can
    // still end, and the exit cleanup kills the daemon.
    child.unref();
  }

  /**
   * Spawns `binary args...` detached, with output appended to `<logDir>/<name>.log`. `options.env`
   * is added to this process's environment (which carries the test run's tag, see
   * scripts/testplane-leftovers.mjs), never replaces it.
   */
  static start(name: string, binary: string, args: string[], logDir: string, options: DaemonOptions = {}): Daemon {
    const logPath = path.join(logDir, `${name}.log`);
    const fd = fs.openSync(logPath, 'a');
    try {
      fs.writeSync(fd, `# ${[binary, ...args].join(' ')}\n`);
      const env = options.env ? { ...process.env, ...options.env } : process.env;
      const child = spawn('bash', ['-c', SUPERVISOR, SUPERVISOR_NAME, binary, ...args], { detached: true, stdio: ['pipe', fd, fd], env, cwd: options.cwd });
      // Never written, and not keeping the event loop alive: it only has to close when we die.
      child.stdin?.on('error', () => undefined);
      (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
      return new Daemon(name, logPath, child);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** How the process ended, or undefined while it runs. */
  get exit(): DaemonExit | undefined {
    return this.#exit;
  }

  /** The last `lines` lines of the component's log, for error messages. */
  logTail(lines = 40): string {
    try {
      const fd = fs.openSync(this.logPath, 'r');
      try {
        const size = fs.fstatSync(fd).size;
        const length = Math.min(size, LOG_TAIL_BYTES);
        const buffer = Buffer.alloc(length);
        fs.readSync(fd, buffer, 0, length, size - length);
        return buffer.toString('utf8').trimEnd().split('\n').slice(-lines).join('\n');
      } finally {
        fs.closeSync(fd);
      }
    } catch (error) {
      return `(no log: ${(error as Error).message})`;
    }
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. */
  async stop(graceMs: number): Promise<void> {
    if (this.#exit) return;
    // The child is unref'd, so hold the event loop open ourselves until it is gone.
    const keepAlive = setInterval(() => undefined, 1000);
    try {
      this.#signalGroup('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), graceMs);
      });
      const outcome = await Promise.race([this.exited, timedOut]);
      clearTimeout(timer);
      if (outcome === 'timeout') {
        this.#signalGroup('SIGKILL');
        await this.exited;
      }
    } finally {
      clearInterval(keepAlive);
    }
  }

  #signalGroup(signal: NodeJS.Signals): void {
    if (this.#exit) return;
    try {
      process.kill(-this.pid, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  }
}

