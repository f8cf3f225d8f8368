// `rollouts dashboard`: a web UI on 127.0.0.1, served the way Argo Rollouts serves its own. The
// browser talks only to this process; this process talks to the rollouts API through the CLI's
// client: plain HTTP to local mode, or SigV4-signed calls to a deployed stack with the user's AWS
// credentials (shared/cli/sigv4.ts). Nothing is deployed for it and no browser holds a key.
//
// Its own JSON routes (what the page polls):
//   GET  /api/config                          mode, endpoint, poll interval
//   GET  /api/rollouts                        every rollout the API lists, across clusters
//   GET  /api/rollouts/:cluster/:ns/:name     the rollout, its live workload (or why not) and history
//   POST /api/rollouts/:cluster/:ns/:name/:verb   approve, pause, resume, abort, retry, undo
// A page of another site open in the same browser must not drive it: requests must name this host
// (DNS rebinding), and a POST must carry the dashboard's header (a cross-site page cannot send one
// without a CORS preflight, which is never allowed) and come from this origin if it says one.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from '../api/body.ts';
import type { CommandVerb } from '../api/commandBodies.ts';
import { ApiError, ApiUnreachableError, type ApiClient } from '../client/client.ts';
import { SYSTEM_CLOCK } from '../clock.ts';
import { type Clock } from '../ports.ts';
import { ConfigError, RolloutsError } from '../errors.ts';
import type { RolloutKey } from '../rollout/types.ts';
import type { DashboardAssets } from './assets.ts';
import { DASHBOARD_HEADER, DASHBOARD_VERBS, type DashboardConfig, type RolloutDetail } from './types.ts';

export interface DashboardOptions {
  /** The API's client, or a function giving the one to use now (local mode, whose port changes at each start). */
  client: ApiClient | (() => Promise<ApiClient>);
  assets: DashboardAssets;
  /** 0: any free port. */
  port: number;
  /** How often the page polls (local mode 1 s, deployed 2 s, like `get --watch`). */
  pollMs: number;
  /** Only rollouts of this cluster (--cluster), else every cluster. */
  cluster?: string;
  clock?: Clock;
  onError?: (err: unknown) => void;
}

export interface Dashboard {
  url: string;
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';
const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

export async function startDashboard(opts: DashboardOptions): Promise<Dashboard> {
  let port = opts.port;
  const server = createServer((req, res) => {
    void handle(req, res, opts, port).catch((err: unknown) => {
      opts.onError?.(err);
      if (!res.headersSent) send(res, 500, 'application/json', JSON.stringify({ error: { message: 'internal error' } }));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new ConfigError(`the dashboard cannot listen on ${HOST}:${opts.port}: ${err.message}`, { cause: err })));
    server.listen(opts.port, HOST, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://${HOST}:${port}/`,
    stop: () => new Promise<void>((resolve, reject) => {
      server.close((err) => (err ? reject(err) : resolve()));
      server.closeAllConnections();
    }),
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, opts: DashboardOptions, port: number): Promise<void> {
  const host = req.headers.host ?? '';
  if (host !== `${HOST}:${port}` && host !== `localhost:${port}`) return sendJson(res, 421, { error: { message: `this dashboard answers on ${HOST}:${port} only` } });
  const url = new URL(req.url ?? '/', `http://${host}`);
  const method = req.method ?? 'GET';
  if (method === 'GET' && (url.pathname === '/' || url.pathname === '/index.html')) return send(res, 200, 'text/html; charset=utf-8', opts.assets.html);
  if (method === 'GET' && url.pathname === '/app.js') return send(res, 200, 'text/javascript; charset=utf-8', opts.assets.js);
  if (method === 'GET' && url.pathname === '/app.css') return send(res, 200, 'text/css; charset=utf-8', opts.assets.css);
  if (!url.pathname.startsWith('/api/')) return sendJson(res, 404, { error: { message: `no such page: ${url.pathname}` } });
  try {
    return sendJson(res, 200, await apiRoute(req, url, method, opts, port));
  } catch (err) {
    if (err instanceof ApiError) return sendJson(res, err.status, { error: { message: err.message, issues: err.issues } });
    if (err instanceof ApiUnreachableError) return sendJson(res, 502, { error: { message: err.message } });
    if (err instanceof DashboardRequestError) return sendJson(res, err.status, { error: { message: err.message } });
    throw err;
  }
}

/** A request this server refuses itself (unknown route, a command not from its page, a bad body), with its status. */
class DashboardRequestError extends RolloutsError {
  readonly status: number;
  constructor(status: number, message: string, options?: ErrorOptions) {
    super(message, options);
    this.status = status;
  }
}

async function apiRoute(req: IncomingMessage, url: URL, method: string, opts: DashboardOptions, port: number): Promise<unknown> {
  const parts = url.pathname.split('/').slice(2).map((p) => decodeURIComponent(p));
  const client = typeof opts.client === 'function' ? await opts.client() : opts.client;
  if (method === 'GET' && parts.length === 1 && parts[0] === 'config') {
    const config: DashboardConfig = { mode: client.target.mode, endpoint: client.target.endpoint, pollMs: opts.pollMs, cluster: opts.cluster ?? null };
    return config;
  }
  if (parts[0] !== 'rollouts') throw new DashboardRequestError(404, `no such route: ${method} ${url.pathname}`);
  if (method === 'GET' && parts.length === 1) return client.list(opts.cluster ? { cluster: opts.cluster } : {});
  const key: RolloutKey = { cluster: parts[1] ?? '', namespace: parts[2] ?? '', name: parts[3] ?? '' };
  if (method === 'GET' && parts.length === 4) return detail(client, key, opts.clock ?? SYSTEM_CLOCK);
  if (method === 'POST' && parts.length === 5) {
    checkCommandRequest(req, port);
    const verb = parts[4] as CommandVerb;
    if (!(DASHBOARD_VERBS as readonly string[]).includes(verb)) throw new DashboardRequestError(404, `the dashboard sends ${DASHBOARD_VERBS.join(', ')}, not ${verb}`);
    const body = await readJson(req);
    return client.command(key, verb, body);
  }
  throw new DashboardRequestError(404, `no such route: ${method} ${url.pathname}`);
}

async function detail(client: ApiClient, key: RolloutKey, clock: Clock): Promise<RolloutDetail> {
  const [rollout, history, workload] = await Promise.all([
    client.get(key),
    client.history(key),
    client.workload(key).then(
      (w) => ({ w, error: null }),
      // The tree is a bonus: an API without cluster access (503) or a cluster error still shows the rest.
      (err: unknown) => {
        if (err instanceof ApiError) return { w: null, error: err.message };
        throw err;
      },
    ),
  ]);
  return { rollout, workload: workload.w, workloadError: workload.error, history: history.history, fetchedAt: clock.now().toISOString() };
}

function checkCommandRequest(req: IncomingMessage, port: number): void {
  if (req.headers[DASHBOARD_HEADER] !== '1') throw new DashboardRequestError(403, `commands must come from the dashboard page (header ${DASHBOARD_HEADER})`);
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://${HOST}:${port}` && origin !== `http://localhost:${port}`) {
    throw new DashboardRequestError(403, `commands from ${origin} are refused`);
  }
}

const MAX_BODY_BYTES = 16 * 1024;

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const text = await readBody(req as AsyncIterable<Buffer>, MAX_BODY_BYTES);
  if (text === 'too large') throw new DashboardRequestError(413, `request body larger than ${MAX_BODY_BYTES} bytes`);
  if (text === undefined || text.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // Answered below.
  }
  throw new DashboardRequestError(400, 'the body must be a JSON object');
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(body));
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type, 'content-length': Buffer.byteLength(body) }).end(body);
}
