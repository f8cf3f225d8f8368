// Local mode's HTTP transport: node:http on loopback → the transport-independent API core, the same
// handleApiRequest the Lambda Function URL calls. No SigV4 here: the server only listens on
// 127.0.0.1, and every request is attributed to the local OS user.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from '../api/body.ts';
import { handleApiRequest } from '../api/handleApiRequest.ts';
import { json } from '../api/httpError.ts';
import type { ApiDeps, ApiRequest, ApiResponse } from '../api/types.ts';
import { ConfigError } from '../errors.ts';

export interface LocalApiServer {
  /** http://127.0.0.1:<port> */
  url: string;
  /** Stops accepting, ends open connections (keep-alive, `get --watch` pollers) and waits for close. */
  stop(): Promise<void>;
}

export interface LocalApiServerOptions {
  deps: ApiDeps;
  principal: string;
  /** 0 (default): any free port. */
  port?: number;
  host?: string;
}

export async function startLocalApiServer(opts: LocalApiServerOptions): Promise<LocalApiServer> {
  const host = opts.host ?? '127.0.0.1';
  const server: Server = createServer((req, res) => {
    void respond(req, res, opts).catch((err: unknown) => {
      opts.deps.onError?.(err, { method: req.method ?? 'GET', path: req.url ?? '/', query: {}, headers: {}, body: undefined, principal: opts.principal });
      if (!res.headersSent) send(res, json(500, { error: { message: 'internal error' } }));
      else res.destroy();
    });
  });
  // Node's defaults: a request may not take more than 5 minutes; keep-alive sockets close after 5 s idle.
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new ConfigError(`the local API cannot listen on ${host}:${opts.port ?? 0}: ${err.message}`, { cause: err })));
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

async function respond(req: IncomingMessage, res: ServerResponse, opts: LocalApiServerOptions): Promise<void> {
  const limit = opts.deps.maxBodyBytes;
  const body = await readBody(req as AsyncIterable<Buffer>, limit);
  if (body === 'too large') {
    // Answered without reading the rest; the connection is closed so the unread body is dropped.
    res.setHeader('connection', 'close');
    return send(res, json(413, { error: { message: `request body is larger than the limit of ${limit} bytes` } }));
  }
  send(res, await handleApiRequest(toApiRequest(req, body, opts.principal), opts.deps));
}

export function toApiRequest(req: IncomingMessage, body: string | undefined, principal: string): ApiRequest {
  const raw = req.url ?? '/';
  const q = raw.indexOf('?');
  const query: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(q < 0 ? '' : raw.slice(q + 1))) query[k] = k in query ? `${query[k]},${v}` : v;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(',') : v;
  return { method: req.method ?? 'GET', path: q < 0 ? raw : raw.slice(0, q), query, headers, body, principal };
}

function send(res: ServerResponse, r: ApiResponse): void {
  res.writeHead(r.status, { ...r.headers, 'content-length': Buffer.byteLength(r.body) }).end(r.body);
}
