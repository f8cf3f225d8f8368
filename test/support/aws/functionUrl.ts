// A local Lambda Function URL with IAM auth: a node:http server on loopback that verifies SigV4
// like AWS (unsigned or badly signed → 403 before the function runs), builds the payload-2.0 event
// Lambda would pass (authorizer.iam with the caller's ARN, base64 for non-text bodies) and writes
// the function's result back as the HTTP response.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { Context, LambdaFunctionURLEventWithIAMAuthorizer, LambdaFunctionURLResult } from 'aws-lambda';
import { lambdaContext } from './lambdaContext.ts';
import { verifySigV4, type Credentials } from './sigv4.ts';

export type FunctionUrlHandler = (event: LambdaFunctionURLEventWithIAMAuthorizer, context: Context) => Promise<LambdaFunctionURLResult>;

export interface Caller extends Credentials {
  /** The IAM principal these credentials belong to. */
  userArn: string;
}

export interface FunctionUrlServer {
  url: string;
  /** Requests that reached the function (passed IAM auth). */
  invocations: number;
  stop(): Promise<void>;
}

/** Function URLs refuse larger payloads before invoking. */
const MAX_PAYLOAD_BYTES = 6 * 1024 * 1024;
const ACCOUNT = '123456789012';
const TEXT_TYPES = /^(text\/|application\/(json|[\w.+-]+\+json|xml|javascript|x-www-form-urlencoded|yaml|x-yaml))/i;

export async function startFunctionUrl(handler: FunctionUrlHandler, opts: { callers: Caller[]; region: string; functionName?: string }): Promise<FunctionUrlServer> {
  const secrets = Object.fromEntries(opts.callers.map((c) => [c.accessKeyId, c.secretAccessKey]));
  const urlId = randomUUID().replaceAll('-', '').slice(0, 32);
  const state = { invocations: 0 };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const reply = (status: number, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }): void => {
        res.writeHead(status, headers).end(body);
      };
      try {
        const body = await readBody(req);
        if (body.length > MAX_PAYLOAD_BYTES) return reply(413, JSON.stringify({ Message: 'Request must be smaller than 6291456 bytes for the InvokeFunctionUrl operation' }));
        const url = new URL(req.url ?? '/', 'http://localhost');
        const rawPath = (req.url ?? '/').split('?')[0] as string;
        const rawQuery = (req.url ?? '').includes('?') ? (req.url as string).slice((req.url as string).indexOf('?') + 1) : '';
        const headers = flatHeaders(req);
        const [hostname, port] = (headers.host ?? '').split(':');
        const verdict = await verifySigV4({ method: req.method ?? 'GET', hostname: hostname ?? '', port: Number(port), rawPath, rawQuery, headers, body }, secrets, opts.region, new Date());
        if (!verdict.ok) return reply(403, JSON.stringify({ Message: verdict.message }));
        const caller = opts.callers.find((c) => c.accessKeyId === verdict.accessKeyId) as Caller;
        const text = TEXT_TYPES.test(headers['content-type'] ?? '');
        const query = Object.fromEntries([...new Set(url.searchParams.keys())].map((k) => [k, url.searchParams.getAll(k).join(',')]));
        const event = {
          version: '2.0', routeKey: '$default', rawPath, rawQueryString: rawQuery, headers,
          ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
          requestContext: {
            accountId: ACCOUNT, apiId: urlId, domainName: `${urlId}.lambda-url.${opts.region}.on.aws`, domainPrefix: urlId,
            http: { method: req.method ?? 'GET', path: decodeURIComponent(rawPath), protocol: `HTTP/${req.httpVersion}`, sourceIp: req.socket.remoteAddress ?? '', userAgent: headers['user-agent'] ?? '' },
            requestId: randomUUID(), routeKey: '$default', stage: '$default', time: new Date().toUTCString(), timeEpoch: Date.now(),
            authorizer: { iam: { accessKey: caller.accessKeyId, accountId: ACCOUNT, callerId: 'AIDATESTCALLER', cognitoIdentity: null, principalOrgId: null, userArn: caller.userArn, userId: 'AIDATESTCALLER' } },
          },
          ...(body.length > 0 ? { body: text ? body.toString('utf8') : body.toString('base64') } : {}),
          isBase64Encoded: body.length > 0 && !text,
        } as unknown as LambdaFunctionURLEventWithIAMAuthorizer;
        state.invocations += 1;
        const result = await handler(event, lambdaContext(opts.functionName ?? 'api', { region: opts.region, timeoutMs: 15_000 }));
        writeResult(res, result);
      } catch (err) {
        // What a function error looks like through a Function URL.
        reply(502, JSON.stringify({ Message: `function error: ${err instanceof Error ? err.message : String(err)}` }));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get invocations() {
      return state.invocations;
    },
    stop: () => new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((err) => (err ? reject(err) : resolve()));
    }),
  };
}

function writeResult(res: ServerResponse, result: LambdaFunctionURLResult): void {
  if (typeof result === 'string' || typeof result !== 'object' || result === null || !('statusCode' in result)) {
    // A bare value is returned as a 200 JSON document (Function URL response inference).
    res.writeHead(200, { 'content-type': 'application/json' }).end(typeof result === 'string' ? result : JSON.stringify(result));
    return;
  }
  const headers = Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k, String(v)]));
  const body = result.body === undefined ? '' : result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body;
  res.writeHead(result.statusCode ?? 200, headers).end(body);
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(',') : v;
  return out;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
