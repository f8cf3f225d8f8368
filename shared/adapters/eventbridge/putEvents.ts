// PutEvents in chunks of 10 (the API limit), on the SDK's own retries. The client's retry strategy
// (standard mode, shared/adapters/aws/retryConfig.ts) retries a request that fails as a whole
// (throttled, 5xx, timed out) inside send(). A request can also succeed while some of its entries
// fail (FailedEntryCount > 0: throttling or an internal failure per entry); the SDK does not retry
// those, so they, and only they, are sent again on a retry token of that same strategy: its attempts,
// its backoff and its retry quota, not a schedule of ours. Entries that can never succeed fail at once.
import { setTimeout as sleep } from 'node:timers/promises';
import { PutEventsCommand, type EventBridgeClient, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { RolloutsError, TerminalError } from '../../errors.ts';
import type { Meter } from '../../meter.ts';

/** Some events could not be put on the bus after every retry. */
export class EventPublishError extends RolloutsError {
  readonly failures: { detailType: string; errorCode: string; errorMessage: string }[];
  constructor(message: string, failures: EventPublishError['failures'], options?: ErrorOptions) {
    super(message, options);
    this.failures = failures;
  }
}

const CHUNK = 10;
/** Failures that retrying cannot fix (malformed entry, bus missing, not allowed). */
const PERMANENT = new Set(['MalformedDetail', 'InvalidArgument', 'ValidationException', 'ResourceNotFoundException', 'AccessDeniedException', 'NotAuthorizedForSourceException']);
const THROTTLED = new Set(['ThrottlingException', 'LimitExceededException']);

/** The client's send and its configured retry strategy: what a PutEvents needs of an EventBridgeClient. */
export type EventBridgeSender = Pick<EventBridgeClient, 'send'> & { config: Pick<EventBridgeClient['config'], 'retryStrategy'> };
/** The SDK's retry strategy (RetryStrategyV2), as the client's configuration resolves it in standard mode. */
type RetryStrategy = Extract<Awaited<ReturnType<EventBridgeClient['config']['retryStrategy']>>, { acquireInitialRetryToken: unknown }>;
type RetryErrorType = Parameters<RetryStrategy['refreshRetryTokenForRetry']>[1]['errorType'];

export async function putEventsReliably(client: EventBridgeSender, entries: PutEventsRequestEntry[], opts: { meter: Meter }): Promise<void> {
  const strategy = await retryStrategyOf(client);
  for (let i = 0; i < entries.length; i += CHUNK) {
    let pending = entries.slice(i, i + CHUNK);
    let token = await strategy.acquireInitialRetryToken('EventBridge.PutEvents');
    for (let attempt = 1; ; attempt++) {
      opts.meter.add('events.put');
      const out = await client.send(new PutEventsCommand({ Entries: pending }));
      if (!out.FailedEntryCount) {
        strategy.recordSuccess(token);
        break;
      }
      // Result entries are in request order; a failed one carries ErrorCode.
      const failed = (out.Entries ?? []).flatMap((r, j) => (r.ErrorCode ? [{ entry: pending[j] as PutEventsRequestEntry, code: r.ErrorCode, message: r.ErrorMessage ?? '' }] : []));
      const failures = failed.map((f) => ({ detailType: f.entry.DetailType ?? '', errorCode: f.code, errorMessage: f.message }));
      const refused = (cause?: unknown) => new EventPublishError(
        `${out.FailedEntryCount} of ${pending.length} events not accepted by EventBridge after ${attempt} attempt(s): ${failures.map((f) => `${f.detailType}: ${f.errorCode} ${f.errorMessage}`).join('; ')}`,
        failures, cause === undefined ? undefined : { cause },
      );
      if (failed.length === 0 || failed.some((f) => PERMANENT.has(f.code))) throw refused();
      const errorType: RetryErrorType = failed.some((f) => THROTTLED.has(f.code)) ? 'THROTTLING' : 'TRANSIENT';
      try {
        token = await strategy.refreshRetryTokenForRetry(token, { errorType });
      } catch (err) {
        throw refused(err); // out of attempts, or out of retry quota
      }
      await sleep(token.getRetryDelay());
      pending = failed.map((f) => f.entry);
    }
  }
}

async function retryStrategyOf(client: EventBridgeSender): Promise<RetryStrategy> {
  const strategy = await client.config.retryStrategy();
  if ('acquireInitialRetryToken' in strategy) return strategy;
  throw new TerminalError('the EventBridge client has a legacy retry strategy; configure it with retryMode "standard" (shared/adapters/aws/retryConfig.ts)');
}
