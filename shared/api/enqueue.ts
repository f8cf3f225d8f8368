// Asking for a reconcile after the API stored something. The store write is the commitment; the
// message only makes it happen now instead of at the next sweep/watch event, so a failure here is
// reported (503) with the fact that repeating the request is safe: an unchanged apply or a
// duplicate command id writes nothing and enqueues again.
import type { QueueKey } from '../fleet/key.ts';
import { HttpError } from './httpError.ts';
import type { ApiDeps } from './types.ts';

export async function requestReconcile(deps: ApiDeps, key: QueueKey): Promise<void> {
  try {
    await deps.queue.enqueue(key, { reason: 'api' });
  } catch (err) {
    throw new HttpError(503, `stored, but the reconcile could not be queued (${err instanceof Error ? err.message : String(err)}); repeating the request is safe`, { cause: err });
  }
}
