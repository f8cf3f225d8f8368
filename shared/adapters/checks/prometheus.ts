// prometheus gates: an instant query through the Prometheus HTTP API (GET <url>/api/v1/query),
// signed with SigV4 for service "aps" when the gate asks (Amazon Managed Prometheus), with the same
// signer the CLI uses (@smithy/signature-v4). The gate compares the value itself
// (the instant query's vector or scalar result): every sample must satisfy the condition; an empty result or
// a NaN (0/0: no traffic) is "no data" and inconclusive, never a pass.
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import type { ComparisonOp, GateMeasurement, GateProvider } from '../../rollout/checkTypes.ts';
import { errorText, excerpt } from './callBody.ts';
import type { Fetch } from './http.ts';

type PrometheusGate = Extract<GateProvider, { kind: 'prometheus' }>;
type Credentials = ConstructorParameters<typeof SignatureV4>[0]['credentials'];

export interface PrometheusOptions {
  fetch?: Fetch;
  /** For SigV4 (AMP); the SDK's provider chain by default. */
  credentials?: () => Credentials;
}

interface QueryResponse {
  status?: string;
  error?: string;
  data?: { resultType?: string; result?: unknown };
}

export async function prometheusGate(gate: PrometheusGate, timeoutSeconds: number, opts: PrometheusOptions = {}): Promise<GateMeasurement> {
  const url = new URL(`${gate.url.replace(/\/+$/, '')}/api/v1/query`);
  url.searchParams.set('query', gate.query);
  let res: Response;
  try {
    const headers = gate.sigv4 ? await sign(url, gate.sigv4.region, opts) : {};
    res = await (opts.fetch ?? fetch)(url, { headers, signal: AbortSignal.timeout(timeoutSeconds * 1000) });
  } catch (err) {
    return { result: 'error', value: `GET ${url.origin}${url.pathname}: ${errorText(err)}` };
  }
  const text = await res.text();
  let body: QueryResponse;
  try {
    body = JSON.parse(text) as QueryResponse;
  } catch {
    return { result: 'error', value: `HTTP ${res.status}: ${excerpt(text)}` };
  }
  if (res.status !== 200 || body.status !== 'success') return { result: 'error', value: `HTTP ${res.status}: ${excerpt(body.error ?? text)}` };
  const samples = samplesOf(body.data);
  if (samples === null) return { result: 'error', value: `unexpected result type ${String(body.data?.resultType)}` };
  const numbers = samples.filter((s) => !Number.isNaN(s.value));
  if (numbers.length === 0) return { result: 'inconclusive', value: samples.length === 0 ? 'no data: the query returned no samples' : 'no data: NaN' };
  const value = numbers.map((s) => (s.labels ? `${s.labels} ${formatNumber(s.value)}` : formatNumber(s.value))).join(', ');
  const ok = numbers.every((s) => compare(s.value, gate.condition.op, gate.condition.value));
  return { result: ok ? 'pass' : 'fail', value: excerpt(value) };
}

function samplesOf(data: QueryResponse['data']): { labels: string; value: number }[] | null {
  if (data?.resultType === 'scalar' && Array.isArray(data.result)) return [{ labels: '', value: Number(data.result[1]) }];
  if (data?.resultType !== 'vector' || !Array.isArray(data.result)) return null;
  return data.result.map((r: { metric?: Record<string, string>; value?: [number, string] }) => {
    // The series' labels tell the samples apart; its name is the query's and only adds length.
    const labels = Object.entries(r.metric ?? {}).filter(([k]) => k !== '__name__');
    return { labels: labels.length === 0 ? '' : `{${labels.map(([k, v]) => `${k}="${v}"`).join(',')}}`, value: Number(r.value?.[1]) };
  });
}

export function compare(value: number, op: ComparisonOp, threshold: number): boolean {
  switch (op) {
    case '<': return value < threshold;
    case '<=': return value <= threshold;
    case '>': return value > threshold;
    case '>=': return value >= threshold;
    case '==': return value === threshold;
    case '!=': return value !== threshold;
  }
}

function formatNumber(v: number): string {
  return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(6)));
}

async function sign(url: URL, region: string, opts: PrometheusOptions): Promise<Record<string, string>> {
  const credentials = opts.credentials ? opts.credentials() : (await import('@aws-sdk/credential-providers')).fromNodeProviderChain();
  const signer = new SignatureV4({ credentials, region, service: 'aps', sha256: Sha256 });
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = v;
  const signed = await signer.sign({
    method: 'GET', protocol: url.protocol, hostname: url.hostname, ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname, query, headers: { host: url.host },
  });
  // fetch sets Host itself (and refuses to be told).
  return Object.fromEntries(Object.entries(signed.headers).filter(([k]) => k.toLowerCase() !== 'host'));
}
