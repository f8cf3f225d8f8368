// One test-bed server process (Prometheus, the Lambda RIE, LocalStack...) in a temp dir of its own:
// started as a Daemon (its own process group, log file, SIGKILLed by an exit hook if the test process
// dies first), awaited until ready, and stopped by PID with SIGTERM then SIGKILL. The temp dir goes
// with it. scripts/testplane-leftovers.mjs fails the run if one outlives its test file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Daemon, type DaemonOptions } from '../../shared/adapters/local/controlplane/daemon.ts';
import { registerExitCleanup } from '../../shared/adapters/local/controlplane/exitCleanup.ts';
import { waitUntilReady } from '../../shared/adapters/local/controlplane/readiness.ts';

export interface TestbedDaemonSpec {
  name: string;
  binary: string;
  /** Given the temp dir (for data, config files...). */
  args: (dir: string) => string[];
  env?: (dir: string) => Record<string, string>;
  cwd?: string;
  /** Resolves (not undefined) once the server answers; throwing means "not yet". */
  ready: () => Promise<true | undefined>;
  /** What `ready` waits for, for the error message. */
  what: string;
  /** Safety net for a hung start on a loaded machine, not a speed assertion. Default 60 s. */
  timeoutMs?: number;
  /** SIGTERM → SIGKILL grace on stop. Default 5 s. */
  stopGraceMs?: number;
  /** Written into the temp dir before the process starts (file name → contents). */
  files?: (dir: string) => Record<string, string>;
}

export interface TestbedDaemon {
  daemon: Daemon;
  /** The temp dir; removed by stop(). Logs are in <dir>/logs/<name>.log. */
  dir: string;
  stop(): Promise<void>;
}

export async function startTestbedDaemon(spec: TestbedDaemonSpec): Promise<TestbedDaemon> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `rollouts-${spec.name}-`));
  const removeDir = (): void => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  // Registered before the daemon's own hook, so on a crash it runs after the kill (hooks run LIFO).
  const cancelDirCleanup = registerExitCleanup(removeDir);
  const logDir = path.join(dir, 'logs');
  fs.mkdirSync(logDir);
  for (const [file, contents] of Object.entries(spec.files?.(dir) ?? {})) fs.writeFileSync(path.join(dir, file), contents);
  const options: DaemonOptions = { env: spec.env?.(dir), cwd: spec.cwd };
  const daemon = Daemon.start(spec.name, spec.binary, spec.args(dir), logDir, options);
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= daemon.stop(spec.stopGraceMs ?? 5_000).then(() => {
      removeDir();
      cancelDirCleanup();
    });
    return stopping;
  };
  try {
    await waitUntilReady(spec.ready, { what: spec.what, timeoutMs: spec.timeoutMs ?? 60_000, daemon, intervalMs: 100 });
  } catch (error) {
    await stop();
    throw error;
  }
  return { daemon, dir, stop };
}
