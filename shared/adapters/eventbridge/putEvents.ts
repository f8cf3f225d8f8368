// PutEvents in chunks of 10 (the API limit). A PutEvents call can succeed as a whole while some
// entries fail (FailedEntryCount > 0, e.g. throttling or an internal failure): those entries, and
// only those, are sent again with backoff; entries that can never succeed fail at once.
import { PutEventsCommand, type EventBridgeClient, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { RolloutsError } from '../../errors.ts';
import type { Meter } from '../../reconcile/meter.ts';

/** Some events could not be put on the bus after every retry. */
export class EventPublishError extends RolloutsError {
  readonly failures: { detailType: string; errorCode: string; errorMessage: string }[];
  constructor(message: string, failures: EventPublishError['failures'], options?: ErrorOptions) {
    super(message, options);
    this.failures = failures;
  }
}

const CHUNK = 10;
const ATTEMPTS = 4;
/** Failures that retrying cannot fix (malformed entry, bus missing, not allowed). */
const PERMANENT = new Set(['MalformedDetail', 'InvalidArgument', 'ValidationException', 'ResourceNotFoundException', 'AccessDeniedException', 'NotAuthorizedForSourceException']);

export interface PutEventsOptions {
  meter: Meter;
  /** Backoff before retry n (1-based); tests pass 0. */
  backoffMs?: (attempt: number) => number;
}

export async function putEventsReliably(client: EventBridgeClient, entries: PutEventsRequestEntry[], opts: PutEventsOptions): Promise<void> {
  const backoff = opts.backoffMs ?? ((n: number) => 50 * 2 ** n);
  for (let i = 0; i < entries.length; i += CHUNK) {
    let pending = entries.slice(i, i + CHUNK);
    for (let attempt = 1; ; attempt++) {
      opts.meter.add('events.put');
      const out = await client.send(new PutEventsCommand({ Entries: pending }));
      if (!out.FailedEntryCount) break;
      // Result entries are in request order; a failed one carries ErrorCode.
      const failed = (out.Entries ?? []).flatMap((r, j) => (r.ErrorCode ? [{ entry: pending[j] as PutEventsRequestEntry, code: r.ErrorCode, message: r.ErrorMessage ?? '' }] : []));
      const permanent = failed.filter((f) => PERMANENT.has(f.code));
      if (failed.length === 0 || permanent.length > 0 || attempt >= ATTEMPTS) {
        const failures = failed.map((f) => ({ detailType: f.entry.DetailType ?? '', errorCode: f.code, errorMessage: f.message }));
        throw new EventPublishError(`${out.FailedEntryCount} of ${pending.length} events not accepted by EventBridge after ${attempt} attempt(s): ${failures.map((f) => `${f.detailType}: ${f.errorCode} ${f.errorMessage}`).join('; ')}`, failures);
      }
      pending = failed.map((f) => f.entry);
      await new Promise((resolve) => setTimeout(resolve, backoff(attempt)));
    }
  }
}
