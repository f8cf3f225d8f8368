// When a request to the apiserver is sent again, as client-go does it (rest/request.go, with
// retry/with_retry.go): a response carrying Retry-After (429 from API Priority and Fairness or the
// max-in-flight filter, a 5xx during a restart) is retried after the wait the server asked for,
// whatever the verb, because the server says it did not act; a read that got no response at all (a
// timeout, a reset connection) is retried once; a write that got none is not (it may have been
// applied: the next pass observes and decides again). No backoff of our own: the server names the
// wait, and a pass that still fails leaves the rest to its requeue (shared/reconcile/reconcile.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import { KubeApiError } from './kubeErrors.ts';

/** One request's deadline: a Lambda pass must never hang on a stuck apiserver. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
/** client-go retries up to 10 times; a pass is short, so three attempts, then the pass requeues. */
const MAX_ATTEMPTS = 3;
/** A longer Retry-After than this is not waited for inside the pass: it becomes the pass's requeue. */
const DEFAULT_MAX_WAIT_MS = 5_000;

export interface RetryOptions {
  maxWaitMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export async function withApiserverRetries<T>(isRead: boolean, attempt: () => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const wait = opts.sleep ?? ((ms: number) => sleep(ms));
  const maxWaitMs = opts.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  let readRetried = false;
  for (let n = 1; ; n += 1) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof KubeApiError) || n >= MAX_ATTEMPTS) throw err;
      const waitMs = err.retryAfterSeconds === null ? null : err.retryAfterSeconds * 1000;
      if (waitMs !== null && waitMs <= maxWaitMs) {
        await wait(waitMs);
        continue;
      }
      if (waitMs === null && err.status === 0 && isRead && !readRetried) {
        readRetried = true;
        continue;
      }
      throw err;
    }
  }
}
