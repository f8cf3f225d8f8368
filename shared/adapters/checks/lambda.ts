// lambda hooks and gates: a synchronous Invoke (RequestResponse) with the call's JSON body. A hook
// succeeds unless the function errs (FunctionError, or the error object Lambda returns as the
// payload); then it is retried. A gate's function answers {"result": "pass" | "fail" |
// "inconclusive", "value"?, "message"?} or a boolean; a function error is an error of the check.
// Clients are made per region (a function named by its full ARN may live in another one) and the
// SDK reads AWS_ENDPOINT_URL_LAMBDA itself (the tests' Runtime Interface Emulator).
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { GateMeasurement, HookOutcome, LambdaTarget } from '../../rollout/checkTypes.ts';
import { regionalClients } from '../aws/regionalClients.ts';
import { AWS_CONNECTION_TIMEOUT_MS } from '../aws/retryConfig.ts';
import { errorText, excerpt, type CallBody } from './callBody.ts';

export type LambdaClientFor = (region: string | null) => Pick<LambdaClient, 'send'>;

export function lambdaClients(): LambdaClientFor {
  // One attempt: a hook is retried by its own policy (with its idempotency key), and the call's
  // deadline is its timeout, not the 5 s per request of our DynamoDB and SQS clients.
  return regionalClients((region) => new LambdaClient({ maxAttempts: 1, requestHandler: { connectionTimeout: AWS_CONNECTION_TIMEOUT_MS }, ...(region ? { region } : {}) }));
}

interface Answer { payload: unknown; text: string; error: string | null }

async function invoke(target: LambdaTarget, body: CallBody, timeoutSeconds: number, clientFor: LambdaClientFor): Promise<Answer> {
  const out = await clientFor(target.region).send(new InvokeCommand({
    FunctionName: target.functionName, ...(target.qualifier ? { Qualifier: target.qualifier } : {}),
    InvocationType: 'RequestResponse', Payload: new TextEncoder().encode(JSON.stringify(body)),
  }), { abortSignal: AbortSignal.timeout(timeoutSeconds * 1000) });
  const text = out.Payload ? new TextDecoder().decode(out.Payload) : '';
  let payload: unknown = text;
  try {
    payload = text === '' ? null : JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  // Lambda marks a function error with FunctionError; the Runtime Interface Emulator only returns the error object.
  const errorObject = typeof payload === 'object' && payload !== null && 'errorMessage' in payload && 'errorType' in payload;
  const error = out.FunctionError !== undefined || errorObject
    ? excerpt(errorObject ? `${String((payload as { errorType: unknown }).errorType)}: ${String((payload as { errorMessage: unknown }).errorMessage)}` : text)
    : null;
  return { payload, text, error };
}

export async function lambdaHook(target: LambdaTarget, body: CallBody, timeoutSeconds: number, clientFor: LambdaClientFor): Promise<HookOutcome> {
  try {
    const a = await invoke(target, body, timeoutSeconds, clientFor);
    if (a.error !== null) return { result: 'failed', retryable: true, output: `function error: ${a.error}` };
    return { result: 'succeeded', output: excerpt(a.text) };
  } catch (err) {
    return { result: 'failed', retryable: !isRefusal(err), output: `Invoke ${target.functionName}: ${errorText(err)}` };
  }
}

export async function lambdaGate(target: LambdaTarget, body: CallBody, timeoutSeconds: number, clientFor: LambdaClientFor): Promise<GateMeasurement> {
  try {
    const a = await invoke(target, body, timeoutSeconds, clientFor);
    if (a.error !== null) return { result: 'error', value: `function error: ${a.error}` };
    return verdict(a.payload, a.text);
  } catch (err) {
    return { result: 'error', value: `Invoke ${target.functionName}: ${errorText(err)}` };
  }
}

function verdict(payload: unknown, text: string): GateMeasurement {
  if (payload === true) return { result: 'pass', value: 'true' };
  if (payload === false) return { result: 'fail', value: 'false' };
  if (typeof payload === 'object' && payload !== null) {
    const p = payload as { result?: unknown; value?: unknown; message?: unknown };
    const value = excerpt([p.value === undefined ? '' : JSON.stringify(p.value), typeof p.message === 'string' ? p.message : ''].filter(Boolean).join(' ') || text);
    if (p.result === 'pass' || p.result === 'fail' || p.result === 'inconclusive') return { result: p.result, value };
  }
  return { result: 'error', value: `the function must answer {"result": "pass" | "fail" | "inconclusive"} or a boolean, not ${excerpt(text, 100)}` };
}

/** The service refused the call itself (no such function, no permission): retrying changes nothing. */
function isRefusal(err: unknown): boolean {
  const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return status !== undefined && status >= 400 && status < 500 && status !== 429;
}
