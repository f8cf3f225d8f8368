// SigV4 for the Function URL tests, both sides, with @smithy/signature-v4 (what the SDK signs with):
// `signedFetch` signs a request as a caller would (service "lambda"); `verifySigV4` checks one the
// way IAM auth does, by recomputing the signature over the headers the caller said it signed.
import { createHash, timingSafeEqual } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import type { HttpRequest } from '@smithy/types';

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export const SIGV4_SERVICE = 'lambda';

export interface SignedFetchInit {
  method: string;
  /** Path (already percent-encoded as it goes on the wire) and optional query. */
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: string;
  credentials: Credentials;
  region: string;
}

/** Signs and sends; returns the status, headers and parsed JSON (or text). */
export async function signedFetch(baseUrl: string, init: SignedFetchInit): Promise<{ status: number; headers: Headers; json: Record<string, unknown> | null; text: string }> {
  const url = new URL(baseUrl);
  return send(baseUrl, init, await signedHeaders({ protocol: url.protocol, hostname: url.hostname, port: Number(url.port) }, init));
}

/**
 * Signs for the host of `functionUrl` but connects to `connectTo` (http://host:port), for a server
 * that routes by Host name on an address without DNS: LocalStack's Function URLs,
 * `http://<id>.lambda-url.<region>.127.0.0.1:<port>/` (not even a WHATWG URL: its last label is numeric).
 */
export async function signedRequestVia(connectTo: string, functionUrl: string, init: SignedFetchInit): Promise<{ status: number; json: Record<string, unknown> | null; text: string }> {
  const m = /^(https?:)\/\/([^/:]+)(?::(\d+))?\/?$/.exec(functionUrl);
  if (!m) throw new Error(`not a Function URL: ${functionUrl}`);
  const [, protocol, hostname, port] = m as unknown as [string, string, string, string | undefined];
  const headers = await signedHeaders({ protocol, hostname, port: Number(port ?? 0) }, init);
  const search = new URLSearchParams(init.query ?? {}).toString();
  const target = new URL(connectTo);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: target.hostname, port: target.port, method: init.method, path: `${init.path}${search ? `?${search}` : ''}`, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, json: parseJson(text), text });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

async function signedHeaders(url: { protocol: string; hostname: string; port: number }, init: SignedFetchInit): Promise<Record<string, string>> {
  const host = url.port ? `${url.hostname}:${url.port}` : url.hostname;
  const request: HttpRequest = {
    method: init.method,
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port,
    path: init.path,
    query: init.query ?? {},
    headers: { host, ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
    ...(init.body !== undefined ? { body: init.body } : {}),
  };
  const signer = new SignatureV4({ credentials: init.credentials, region: init.region, service: SIGV4_SERVICE, sha256: Sha256 });
  return (await signer.sign(request)).headers;
}

/** Sends without any signature (what an anonymous caller does). */
export async function unsignedFetch(baseUrl: string, init: Omit<SignedFetchInit, 'credentials' | 'region'>) {
  return send(baseUrl, init, { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers });
}

async function send(baseUrl: string, init: Pick<SignedFetchInit, 'method' | 'path' | 'query' | 'body'>, headers: Record<string, string>) {
  const search = new URLSearchParams(init.query ?? {}).toString();
  const target = `${baseUrl}${init.path}${search ? `?${search}` : ''}`;
  const sendable = Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== 'host'));
  const res = await fetch(target, { method: init.method, headers: sendable, ...(init.body !== undefined ? { body: init.body } : {}) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: parseJson(text), text };
}

function parseJson(text: string): Record<string, unknown> | null {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
}

export interface IncomingSigned {
  method: string;
  hostname: string;
  port: number;
  /** Raw path as received (percent-encoded) and the raw query string without "?". */
  rawPath: string;
  rawQuery: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: Buffer;
}

export type Verification = { ok: true; accessKeyId: string } | { ok: false; message: string };

const AUTH = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;
/** IAM's tolerance for clock skew between caller and AWS. */
const MAX_SKEW_MS = 5 * 60_000;

export async function verifySigV4(req: IncomingSigned, secrets: Record<string, string>, region: string, now: Date): Promise<Verification> {
  const auth = req.headers.authorization;
  if (!auth) return { ok: false, message: 'Forbidden' };
  const m = AUTH.exec(auth);
  if (!m) return { ok: false, message: 'Authorization header is malformed' };
  const [, accessKeyId, , scopeRegion, scopeService, signedHeaders, signature] = m as unknown as string[];
  const secret = secrets[accessKeyId as string];
  if (secret === undefined) return { ok: false, message: 'The security token included in the request is invalid.' };
  if (scopeRegion !== region || scopeService !== SIGV4_SERVICE) return { ok: false, message: `Credential should be scoped to a valid region and service ${SIGV4_SERVICE}` };
  const amzDate = req.headers['x-amz-date'] ?? '';
  const signingDate = parseAmzDate(amzDate);
  if (!signingDate) return { ok: false, message: 'Missing or malformed X-Amz-Date' };
  if (Math.abs(now.getTime() - signingDate.getTime()) > MAX_SKEW_MS) return { ok: false, message: 'Signature expired' };
  const names = (signedHeaders as string).split(';');
  if (!names.includes('host')) return { ok: false, message: 'host must be a signed header' };
  const claimedHash = req.headers['x-amz-content-sha256'];
  // The signer trusts this header when present, so it must match the body actually received.
  if (claimedHash !== undefined && claimedHash !== createHash('sha256').update(req.body).digest('hex')) {
    return { ok: false, message: 'The provided x-amz-content-sha256 header does not match what was computed.' };
  }
  const headers = Object.fromEntries(names.map((n) => [n, req.headers[n] ?? '']));
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(req.rawQuery)) {
    const prev = query[k];
    query[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  const request: HttpRequest = { method: req.method, protocol: 'http:', hostname: req.hostname, port: req.port, path: req.rawPath, query, headers, body: req.body.toString('utf8') };
  const signer = new SignatureV4({ credentials: { accessKeyId: accessKeyId as string, secretAccessKey: secret }, region, service: SIGV4_SERVICE, sha256: Sha256, applyChecksum: claimedHash !== undefined });
  const expected = (await signer.sign(request, { signingDate })).headers.authorization ?? '';
  const expectedSig = /Signature=([0-9a-f]{64})$/.exec(expected)?.[1] ?? '';
  const same = expectedSig.length === 64 && timingSafeEqual(Buffer.from(expectedSig), Buffer.from(signature as string));
  return same ? { ok: true, accessKeyId: accessKeyId as string } : { ok: false, message: 'The request signature we calculated does not match the signature you provided.' };
}

function parseAmzDate(v: string): Date | null {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(v);
  return m ? new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!)) : null;
}
