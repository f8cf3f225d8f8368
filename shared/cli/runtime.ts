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
  /**
   * Calls `handler` once when the process that started this one is gone (`kill -9` of `npm start`'s
   * npm): the parent PID changes when the orphan is re-parented (to PID 1 or a subreaper). Returns
   * the function that stops watching.
   */
  onParentGone(handler: (parentPid: number) => void): () => void;
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
  onParentGone(handler) {
    // No event tells a process its parent died (Linux's PR_SET_PDEATHSIG is not reachable from
    // Node); process.ppid is read afresh on each access, so a poll sees the re-parenting.
    const parent = process.ppid;
    const timer = setInterval(() => {
      if (process.ppid === parent) return;
      clearInterval(timer);
      handler(parent);
    }, PARENT_POLL_MS);
    timer.unref();
    return () => clearInterval(timer);
  },
};

/** How often serve looks for its parent: a kill -9 of npm is noticed within this. */
const PARENT_POLL_MS = 1000;

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
    onParentGone: given.onParentGone ?? processRuntime.onParentGone,
  };
}
