// The hook and gate adapters' reading of what a target answered (shared/adapters/checks): HTTP
// statuses to outcomes, the Prometheus API's result types to pass/fail/inconclusive/error, SigV4 for
// AMP, a Lambda function's answer or error. Each is given the answer directly (an injected fetch or
// client); the integration tests make the same calls to real servers.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InvokeCommand } from '@aws-sdk/client-lambda';
import type { GateProvider } from '../../../shared/rollout/checkTypes.ts';
import { httpGate, httpHook, type Fetch } from '../../../shared/adapters/checks/http.ts';
import { lambdaGate, lambdaHook } from '../../../shared/adapters/checks/lambda.ts';
import { prometheusGate } from '../../../shared/adapters/checks/prometheus.ts';
import type { CallBody } from '../../../shared/adapters/checks/callBody.ts';

const BODY: CallBody = { type: 'hook', rollout: { cluster: 'c', namespace: 'ns', name: 'web' }, releaseId: 'r1', step: 1, revision: 'v2', pod: 'web-1', phase: 'preUpdate', attempt: 2, idempotencyKey: 'r1/web-1/preUpdate/2' };
const answering = (status: number, body: string, seen: RequestInit[] = []): Fetch => (async (_url: unknown, init?: RequestInit) => {
  seen.push(init ?? {});
  return new Response(body, { status });
}) as Fetch;
const target = { url: 'https://hooks.example.com/x', headers: { 'X-Team': 'web' } };

describe('http hooks and gates', () => {
  it('POSTs the body with the idempotency key and the configured headers', async () => {
    const seen: RequestInit[] = [];
    await httpHook(target, BODY, 5, answering(200, 'ok', seen));
    const headers = seen[0]?.headers as Record<string, string>;
    assert.equal(seen[0]?.method, 'POST');
    assert.equal(headers['idempotency-key'], 'r1/web-1/preUpdate/2');
    assert.equal(headers['X-Team'], 'web');
    assert.deepEqual(JSON.parse(String(seen[0]?.body)), BODY);
  });

  for (const [status, hook, gate] of [
    [201, 'succeeded', 'pass'], [403, 'failed for good', 'fail'], [404, 'failed for good', 'fail'], [429, 'retried', 'error'], [408, 'retried', 'error'], [500, 'retried', 'error'], [503, 'retried', 'error'],
  ] as const) {
    it(`reads HTTP ${status} as a hook that ${hook} and a gate check that is ${gate}`, async () => {
      const h = await httpHook(target, BODY, 5, answering(status, 'the body'));
      assert.equal(h.result === 'succeeded' ? 'succeeded' : h.retryable ? 'retried' : 'failed for good', hook);
      assert.equal(h.output, `HTTP ${status}: the body`);
      assert.equal((await httpGate(target, BODY, 5, answering(status, 'the body'))).result, gate);
    });
  }

  it('retries a target it cannot reach, saying why', async () => {
    const refused = (async () => { throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') }); }) as Fetch;
    assert.deepEqual(await httpHook(target, BODY, 5, refused), { result: 'failed', retryable: true, output: 'POST https://hooks.example.com/x: fetch failed: connect ECONNREFUSED 127.0.0.1:9' });
  });
});

const PROM: Extract<GateProvider, { kind: 'prometheus' }> = { kind: 'prometheus', url: 'http://prom:9090/', query: 'app_errors_ratio', condition: { op: '<', value: 0.05 }, sigv4: null };
const api = (data: unknown, status = 200) => answering(status, JSON.stringify(status === 200 ? { status: 'success', data } : { status: 'error', error: data }));
const vector = (...values: [Record<string, string>, string][]) => ({ resultType: 'vector', result: values.map(([metric, v]) => ({ metric, value: [1700000000, v] })) });

describe('prometheus gates', () => {
  it('passes when every sample satisfies the condition, and names the samples', async () => {
    assert.deepEqual(await prometheusGate(PROM, 5, { fetch: api(vector([{ __name__: 'app_errors_ratio', app: 'web' }, '0.01'], [{ app: 'api' }, '0.02'])) }), { result: 'pass', value: '{app="web"} 0.01, {app="api"} 0.02' });
  });

  it('fails when one sample does not', async () => {
    assert.equal((await prometheusGate(PROM, 5, { fetch: api(vector([{ app: 'web' }, '0.01'], [{ app: 'api' }, '0.07'])) })).result, 'fail');
  });

  it('reads a scalar result', async () => {
    assert.deepEqual(await prometheusGate(PROM, 5, { fetch: api({ resultType: 'scalar', result: [1700000000, '0.5'] }) }), { result: 'fail', value: '0.5' });
  });

  it('calls an empty result and a NaN "no data": inconclusive, never a pass', async () => {
    assert.deepEqual(await prometheusGate(PROM, 5, { fetch: api(vector()) }), { result: 'inconclusive', value: 'no data: the query returned no samples' });
    assert.deepEqual(await prometheusGate(PROM, 5, { fetch: api(vector([{}, 'NaN'])) }), { result: 'inconclusive', value: 'no data: NaN' });
  });

  it('calls a query Prometheus refuses an error of the check, with its message', async () => {
    assert.deepEqual(await prometheusGate(PROM, 5, { fetch: api('parse error: unexpected end of input', 400) }), { result: 'error', value: 'HTTP 400: parse error: unexpected end of input' });
  });

  it('signs an Amazon Managed Prometheus query with SigV4 for service aps', async () => {
    const seen: RequestInit[] = [];
    let url = '';
    const fetchImpl = (async (u: URL, init?: RequestInit) => {
      url = String(u);
      seen.push(init ?? {});
      return new Response(JSON.stringify({ status: 'success', data: vector([{}, '0.01']) }));
    }) as unknown as Fetch;
    const amp = { ...PROM, url: 'https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-1', sigv4: { region: 'eu-west-1' } };
    const m = await prometheusGate(amp, 5, { fetch: fetchImpl, credentials: () => ({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' }) });
    assert.equal(m.result, 'pass');
    assert.equal(url, 'https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-1/api/v1/query?query=app_errors_ratio');
    const headers = seen[0]?.headers as Record<string, string>;
    assert.match(headers.authorization ?? '', /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/aps\/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=[0-9a-f]{64}$/);
  });
});

/** A Lambda client answering `payload` (or a function error). */
const lambdaAnswering = (payload: unknown, functionError?: string) => () => ({
  send: async (cmd: unknown) => {
    assert.ok(cmd instanceof InvokeCommand);
    return { StatusCode: 200, Payload: new TextEncoder().encode(JSON.stringify(payload)), ...(functionError ? { FunctionError: functionError } : {}) };
  },
}) as never;
const FN = { functionName: 'canary-verdict', qualifier: null, region: null };

describe('lambda hooks and gates', () => {
  it('succeeds a hook unless the function errs, with Lambda\'s FunctionError or the error object alone (the emulator)', async () => {
    assert.deepEqual(await lambdaHook(FN, BODY, 5, lambdaAnswering({ done: true })), { result: 'succeeded', output: '{"done":true}' });
    const error = { errorType: 'Error', errorMessage: 'replica lagging' };
    assert.deepEqual(await lambdaHook(FN, BODY, 5, lambdaAnswering(error, 'Unhandled')), { result: 'failed', retryable: true, output: 'function error: Error: replica lagging' });
    assert.deepEqual(await lambdaHook(FN, BODY, 5, lambdaAnswering(error)), { result: 'failed', retryable: true, output: 'function error: Error: replica lagging' });
  });

  it('reads a gate function\'s verdict, or says what it must answer', async () => {
    assert.deepEqual(await lambdaGate(FN, BODY, 5, lambdaAnswering({ result: 'fail', value: 0.2, message: 'p99 too high' })), { result: 'fail', value: '0.2 p99 too high' });
    assert.deepEqual(await lambdaGate(FN, BODY, 5, lambdaAnswering(true)), { result: 'pass', value: 'true' });
    assert.deepEqual(await lambdaGate(FN, BODY, 5, lambdaAnswering({ result: 'inconclusive' })), { result: 'inconclusive', value: '{"result":"inconclusive"}' });
    assert.match((await lambdaGate(FN, BODY, 5, lambdaAnswering({ ok: 1 }))).value, /^the function must answer \{"result": "pass" \| "fail" \| "inconclusive"\} or a boolean/);
  });
});
