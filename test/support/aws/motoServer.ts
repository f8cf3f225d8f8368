// moto's standalone server (PyPI `moto[server]`) on a free loopback port, for the one behaviour
// LocalStack 2026.3.0 does not have: EventBridge PutEvents to an event bus that does not exist
// (LocalStack answers FailedEntryCount 0 and drops the event; moto refuses the call, as AWS refuses
// the entry). Used by that test only (test/integration/wiring.adapters.test.ts); everything else
// runs against LocalStack. Killed by stop() or, if the test process dies first, by the exit hook.
import { spawn, type ChildProcess } from 'node:child_process';
import { freePorts } from '../../../shared/adapters/local/controlplane/ports.ts';
import { registerExitCleanup } from '../../../shared/adapters/local/controlplane/exitCleanup.ts';

export const MOTO_INSTALL = "pip install --user 'moto[server]'";

export interface MotoServer {
  endpoint: string;
  stop(): Promise<void>;
}

const STOP_GRACE_MS = 5_000;

export async function startMotoServer(): Promise<MotoServer> {
  const python = process.env.ROLLOUTS_PYTHON ?? 'python3';
  const [port] = await freePorts(1);
  const endpoint = `http://127.0.0.1:${port}`;
  let output = '';
  const child = spawn(python, ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  const cancelCleanup = registerExitCleanup(() => {
    if (exited === undefined) child.kill('SIGKILL');
  });
  const stop = async (): Promise<void> => {
    cancelCleanup();
    await terminate(child, () => exited !== undefined);
  };

  // A safety net for a hung start, not a speed assertion: moto imports a lot on a cold 2-core machine.
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited !== undefined || Date.now() > deadline) {
      await stop();
      const missing = /No module named moto/.test(output);
      throw new Error(missing ? `moto is not installed: run ${MOTO_INSTALL}` : `moto server did not start (exit ${exited}): ${output.trim()}`);
    }
    if (await isUp(endpoint)) return { endpoint, stop };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function isUp(endpoint: string): Promise<boolean> {
  try {
    return (await fetch(`${endpoint}/moto-api/`)).ok;
  } catch {
    return false;
  }
}

async function terminate(child: ChildProcess, hasExited: () => boolean): Promise<void> {
  if (hasExited()) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await gone;
  clearTimeout(timer);
}
