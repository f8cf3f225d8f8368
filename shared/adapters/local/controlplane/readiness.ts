// Polling a component until it is ready, failing fast (with its log tail) if it dies meanwhile.
import { text } from 'node:stream/consumers';
import { setTimeout as sleep } from 'node:timers/promises';
import http from 'node:http';
import https from 'node:https';
import { ControlPlaneError } from '../../../errors.ts';
import type { Daemon } from './daemon.ts';

export interface HttpResult {
  status: number;
  body: string;
}

// The components serve self-signed certificates on loopback.
const insecureAgent = new https.Agent({ rejectUnauthorized: false, keepAlive: false });

/** GET with a short timeout; network errors reject. */
export function httpGet(url: string, token?: string, timeoutMs = 2000): Promise<HttpResult> {
  const target = new URL(url);
  const transport = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = transport.get(
      target,
      {
        agent: target.protocol === 'https:' ? insecureAgent : undefined,
        headers: token ? { authorization: `Bearer ${token}` } : {},
        timeout: timeoutMs,
      },
      (response) => {
        text(response).then((body) => resolve({ status: response.statusCode ?? 0, body }), reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`GET ${url} timed out after ${timeoutMs} ms`)));
    request.on('error', reject);
  });
}

export interface ReadinessOptions {
  /** What is awaited, for the error message (e.g. "GET /readyz"). */
  what: string;
  timeoutMs: number;
  intervalMs?: number;
  /** The process whose death ends the wait early and whose log tail goes into the error. */
  daemon: Daemon;
}

/**
 * Calls `probe` until it returns a value other than undefined. A probe that throws or returns
 * undefined is retried; its last complaint is reported on timeout.
 */
export async function waitUntilReady<T>(probe: () => Promise<T | undefined>, options: ReadinessOptions): Promise<T> {
  const deadline = performance.now() + options.timeoutMs;
  const intervalMs = options.intervalMs ?? 100;
  let lastProblem: string;
  for (;;) {
    const exit = options.daemon.exit;
    if (exit) {
      const how = exit.error ? exit.error.message : exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
      throw failure(options, `exited (${how}) while waiting for ${options.what}`);
    }
    try {
      const value = await probe();
      if (value !== undefined) return value;
      lastProblem = 'not ready';
    } catch (error) {
      lastProblem = (error as Error).message;
    }
    if (performance.now() >= deadline) {
      throw failure(options, `not ready after ${options.timeoutMs} ms waiting for ${options.what} (last: ${lastProblem})`);
    }
    await sleep(intervalMs);
  }
}

function failure(options: ReadinessOptions, message: string): ControlPlaneError {
  const { daemon } = options;
  return new ControlPlaneError(daemon.name, `${message}\n--- last lines of ${daemon.logPath} ---\n${daemon.logTail()}`);
}

/** A probe that succeeds when GET `url` answers 200 (and `accept(body)` if given). */
export function httpProbe(url: string, token?: string, accept?: (body: string) => boolean): () => Promise<true | undefined> {
  return async () => {
    const { status, body } = await httpGet(url, token);
    if (status === 200 && (accept === undefined || accept(body))) return true;
    throw new Error(`GET ${url} → ${status} ${body.slice(0, 300)}`);
  };
}
