// How our AWS clients retry, in the SDK's own terms (no retry loop of ours): the standard retry
// mode (exponential backoff with full jitter from 100 ms, capped at 20 s, 5 attempts, and the retry
// quota that stops retry storms: a token bucket each retry draws from and each success refills),
// and per-request deadlines so that a request that never answers is retried too (the SDK treats
// TimeoutError as transient). Throttling (ProvisionedThroughputExceededException,
// ThrottlingException) and 5xx (InternalServerError) are retried by the SDK's own classification.
// What still fails after that reaches the state store as a TransientError (transientStoreError in
// shared/adapters/dynamodb/metered.ts), and the reconcile pass asks to run again. EventBridge's
// entries refused within a successful PutEvents are retried on the same strategy (putEvents.ts).

/** The SDK's standard mode; not "adaptive", whose client-side rate limiter would also slow every other rollout of the container after one throttle. */
export const AWS_RETRY_MODE = 'standard';
export const AWS_MAX_ATTEMPTS = 5;
/** One attempt's deadline. DynamoDB and SQS answer in milliseconds; a request still open after this is presumed lost. */
export const AWS_REQUEST_TIMEOUT_MS = 5_000;
export const AWS_CONNECTION_TIMEOUT_MS = 2_000;

/** Client configuration for DynamoDB, SQS and EventBridge (spread into the client constructor). */
export function awsRetryConfig(): { maxAttempts: number; retryMode: string; requestHandler: { requestTimeout: number; connectionTimeout: number } } {
  return {
    maxAttempts: AWS_MAX_ATTEMPTS,
    retryMode: AWS_RETRY_MODE,
    requestHandler: { requestTimeout: AWS_REQUEST_TIMEOUT_MS, connectionTimeout: AWS_CONNECTION_TIMEOUT_MS },
  };
}
