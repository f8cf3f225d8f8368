// http hooks and gates: one POST of the call's JSON body (callBody.ts). A hook succeeds on 2xx; a
// 4xx is the target's "no" (408 and 429 excepted) and is not retried; 5xx, 408, 429 and failures to
// connect are retried. A gate passes on 2xx, fails on 4xx with the body as its value, and a 5xx or
// an unreachable target is an error (retried at the next interval, counted against its
// consecutiveErrorLimit). Argo's web metric and Flagger's webhooks answer the same way.
import type { GateMeasurement, HookOutcome, HttpTarget } from '../../rollout/checkTypes.ts';
import { errorText, excerpt, type CallBody } from './callBody.ts';

export type Fetch = typeof fetch;

interface Answer { status: number; body: string }

async function post(target: HttpTarget, body: CallBody, timeoutSeconds: number, fetchImpl: Fetch): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...target.headers };
  if (body.idempotencyKey) headers['idempotency-key'] = body.idempotencyKey;
  const res = await fetchImpl(target.url, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutSeconds * 1000), redirect: 'error' });
  return { status: res.status, body: await res.text() };
}

function said(a: Answer): string {
  return a.body.trim() === '' ? `HTTP ${a.status}` : `HTTP ${a.status}: ${excerpt(a.body)}`;
}

const RETRYABLE_4XX = new Set([408, 429]);

export async function httpHook(target: HttpTarget, body: CallBody, timeoutSeconds: number, fetchImpl: Fetch = fetch): Promise<HookOutcome> {
  try {
    const a = await post(target, body, timeoutSeconds, fetchImpl);
    if (a.status >= 200 && a.status < 300) return { result: 'succeeded', output: said(a) };
    return { result: 'failed', retryable: !(a.status >= 400 && a.status < 500) || RETRYABLE_4XX.has(a.status), output: said(a) };
  } catch (err) {
    return { result: 'failed', retryable: true, output: `POST ${target.url}: ${errorText(err)}` };
  }
}

export async function httpGate(target: HttpTarget, body: CallBody, timeoutSeconds: number, fetchImpl: Fetch = fetch): Promise<GateMeasurement> {
  try {
    const a = await post(target, body, timeoutSeconds, fetchImpl);
    if (a.status >= 200 && a.status < 300) return { result: 'pass', value: said(a) };
    if (a.status >= 400 && a.status < 500 && !RETRYABLE_4XX.has(a.status)) return { result: 'fail', value: said(a) };
    return { result: 'error', value: said(a) };
  } catch (err) {
    return { result: 'error', value: `POST ${target.url}: ${errorText(err)}` };
  }
}
