// A Lambda Context as the runtime passes it, for invoking handlers in tests. The remaining time
// counts down from `timeoutMs` in real time, as in Lambda (middy and the watch-proxy read it).
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

export function lambdaContext(functionName: string, opts: { timeoutMs?: number; region?: string } = {}): Context {
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  const region = opts.region ?? 'us-east-1';
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:123456789012:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `2030/01/01/[$LATEST]${randomUUID().replaceAll('-', '')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
