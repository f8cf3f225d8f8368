// Polling for tests against real components, which converge asynchronously. Timeouts here are
// safety nets for a hung test, never assertions about speed.
import { AssertionError } from 'node:assert/strict';
import { inspect } from 'node:util';

export interface WaitOptions {
  /** Give up after this long. Default 30 s. */
  timeoutMs?: number;
  /** Pause between attempts. Default 100 ms. */
  intervalMs?: number;
  /** What was awaited, e.g. "deployment web to have 5 available replicas". */
  message: string;
}

/**
 * Calls `fn` until it returns a truthy value, and returns that value. A falsy result or a thrown
 * error means "not yet"; the last one is quoted in the timeout error so a failure says what the
 * world looked like.
 */
export async function waitFor<T>(fn: () => T | Promise<T>, options: WaitOptions): Promise<NonNullable<T>> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const intervalMs = options.intervalMs ?? 100;
  const deadline = Date.now() + timeoutMs;
  let attempts = 0;
  let last: string;
  for (;;) {
    attempts += 1;
    try {
      const value = await fn();
      if (value) return value as NonNullable<T>;
      last = `returned ${inspect(value, { depth: 4, breakLength: Infinity })}`;
    } catch (error) {
      last = `threw ${error instanceof Error ? `${error.name}: ${error.message}` : inspect(error)}`;
    }
    if (Date.now() >= deadline) {
      // An AssertionError: in a test, a condition that never came true is a failed expectation.
      throw new AssertionError({ message: `timed out after ${timeoutMs} ms (${attempts} attempts) waiting for ${options.message}; last attempt ${last}` });
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Checks that `fn` keeps returning true for `forMs` (polling every `intervalMs`), for "nothing
 * happens" assertions. Throws as soon as it returns false, quoting `message`.
 */
export async function staysTrue(fn: () => boolean | Promise<boolean>, options: { forMs: number; intervalMs?: number; message: string }): Promise<void> {
  const until = Date.now() + options.forMs;
  const intervalMs = options.intervalMs ?? 200;
  for (;;) {
    if (!(await fn())) {
      throw new AssertionError({ message: `expected ${options.message} to hold for ${options.forMs} ms, but it stopped holding` });
    }
    if (Date.now() >= until) return;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
