// What the API-talking commands need from the process besides CliIO (environment, network, time,
// Ctrl-C). Unit tests pass stand-ins through `io.runtime` (an optional extension of CliIO, so the
// registry in main.ts is unchanged); the executable gets the real process.
import { setTimeout as sleep } from 'node:timers/promises';
import type { CliIO } from './io.ts';
import { SYSTEM_CLOCK } from '../clock.ts';

export interface CliRuntime {
  env: Record<string, string | undefined>;
  cwd: string;
  fetch: typeof fetch;
  now(): Date;
  /** Waits `ms`, or less if `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** stdout is a terminal: `get --watch` redraws in place instead of printing frame after frame. */
  isTTY: boolean;
  /** Calls `handler` on Ctrl-C (SIGINT) or SIGTERM; returns the function that stops listening. */
  onInterrupt(handler: () => void): () => void;
}

export interface RuntimeIO extends CliIO {
  runtime?: Partial<CliRuntime>;
}

const processRuntime: CliRuntime = {
  get env() {
    return process.env;
  },
  get cwd() {
    return process.cwd();
  },
  fetch: (input, init) => fetch(input, init),
  now: () => SYSTEM_CLOCK.now(),
  // An abort ends the wait early; it is not an error.
  sleep: (ms, signal) => sleep(ms, undefined, signal ? { signal } : {}).catch(() => {}),
  get isTTY() {
    return process.stdout.isTTY === true;
  },
  onInterrupt(handler) {
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
    return () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    };
  },
};

export function runtimeOf(io: CliIO): CliRuntime {
  const given = (io as RuntimeIO).runtime ?? {};
  return {
    env: given.env ?? processRuntime.env,
    cwd: given.cwd ?? processRuntime.cwd,
    fetch: given.fetch ?? processRuntime.fetch,
    now: given.now ?? processRuntime.now,
    sleep: given.sleep ?? processRuntime.sleep,
    isTTY: given.isTTY ?? processRuntime.isTTY,
    onInterrupt: given.onInterrupt ?? processRuntime.onInterrupt,
  };
}
