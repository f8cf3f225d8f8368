// One HTTP exchange with an apiserver. @kubernetes/client-node's KubeConfig supplies what makes the
// request authentic (applyToHTTPSOptions: the bearer token, or one from an exec or OIDC plugin,
// client certificates, the cluster's CA, TLS server name, skip-verify, a proxy agent), and Node's
// https sends it. Why not client-node's generated API classes: their models turn every date-time
// into a Date (and back as "…00.000Z", never the apiserver's "…00Z"), truncate MicroTime and drop
// fields they do not know, so drivers must read the body as the apiserver sent it anyway; and the
// ~60 classes with their ~750 models are ~1.2 MB of a function bundle. Why not client-node's HTTP
// library (undici's fetch, also under its Watch): ~370 KB of every bundle and ~25 ms of a cold
// start; watches are streamed GETs over this transport too (watcher.ts), so no function loads
// undici (infra/bundling.ts, plugin undici-absent).
import { text } from 'node:stream/consumers';
import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { ConfigError, RolloutsError, TransientError } from '../../errors.ts';

export type KubeMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface KubeRequest {
  method: KubeMethod;
  /** Below the cluster's server URL, e.g. "/apis/apps/v1/namespaces/web/deployments/api". */
  path: string;
  query?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  /** Default application/json; patches name their patch type (patchBody.ts). */
  contentType?: string;
  /** The whole exchange, answer body included, must be over within this long. */
  timeoutMs: number;
}

/** A 2xx answer: the body exactly as the apiserver sent it. */
export interface KubeResponse {
  status: number;
  body: string;
}

/**
 * An answer of 400 or more, as it came; kubeErrors.ts maps it to our named errors (its numeric
 * `code`, its Status `body`), which say what running again can do about it.
 */
export class KubeHttpError extends RolloutsError {
  readonly code: number;
  readonly body: string;
  /** The Retry-After header, if the answer had one (429 from API Priority and Fairness, 503 …). */
  readonly retryAfter: string | undefined;
  constructor(what: string, code: number, body: string, retryAfter: string | undefined, options?: ErrorOptions) {
    super(`${what}: HTTP ${code}`, options);
    this.code = code;
    this.body = body;
    this.retryAfter = retryAfter;
  }
}

/** No complete answer within the request's deadline: the exchange was abandoned (no status: kubeErrors.ts maps it to a KubeApiError). */
export class RequestDeadlineError extends TransientError {
  readonly code = 'ETIMEDOUT';
  constructor(what: string, ms: number, options?: ErrorOptions) {
    super(`${what}: no complete answer within ${ms} ms`, options);
  }
}

/**
 * How long an idle pooled connection is kept: undici's default keep-alive timeout, which is what the
 * typed clients had. Short, so that a Lambda container thawed after a pause drops its idle sockets
 * (their timers fire) rather than sending on one the apiserver or a load balancer has closed.
 */
const IDLE_SOCKET_MS = 4_000;
const USER_AGENT = 'serverless-rollouts';

/**
 * Requests to the current cluster of one KubeConfig. The user (token) is read for every request, so
 * a replaced token (kubeConfigs.ts replaceToken) is picked up, and one keep-alive pool serves every
 * request: KubeConfig's own https.Agent does not keep connections alive, so each request would pay a
 * new TCP and TLS handshake.
 */
/** Act as this user and these groups (Kubernetes user impersonation: the caller needs `impersonate` on them). */
export interface Impersonation {
  user: string;
  groups: readonly string[];
}

export class KubeTransport {
  private readonly kc: KubeConfig;
  private readonly impersonate: Impersonation | undefined;
  private agent: http.Agent | undefined;

  constructor(kc: KubeConfig, impersonate?: Impersonation) {
    this.kc = kc;
    this.impersonate = impersonate;
  }

  /**
   * A request with KubeConfig's authentication applied, not sent yet: the caller writes `body` with
   * end() and handles the answer (send() buffers it; watcher.ts streams it).
   */
  async open(req: Omit<KubeRequest, 'timeoutMs'>): Promise<{ request: http.ClientRequest; body: string | undefined; what: string }> {
    const cluster = this.kc.getCurrentCluster();
    if (!cluster) throw new ConfigError('kubeconfig has no current cluster');
    const url = new URL(cluster.server.replace(/\/$/, '') + req.path);
    for (const [name, value] of Object.entries(req.query ?? {})) url.searchParams.set(name, value);
    const body = req.body === undefined ? undefined : JSON.stringify(req.body);
    const options: https.RequestOptions = {
      method: req.method,
      headers: {
        Accept: 'application/json',
        'User-Agent': USER_AGENT,
        ...(body === undefined ? {} : { 'Content-Type': req.contentType ?? 'application/json', 'Content-Length': Buffer.byteLength(body) }),
        ...(this.impersonate ? { 'Impersonate-User': this.impersonate.user, 'Impersonate-Group': [...this.impersonate.groups] } : {}),
      },
    };
    await this.kc.applyToHTTPSOptions(options);
    options.agent = this.pool(options, cluster.proxyUrl !== undefined);
    const request = (url.protocol === 'http:' ? http : https).request(url, options);
    return { request, body, what: `${req.method} ${url.pathname}` };
  }

  /** One buffered exchange: the answer's body as sent, or KubeHttpError for 400 and more. */
  async send(req: KubeRequest): Promise<KubeResponse> {
    const { request, body, what } = await this.open(req);
    return new Promise<KubeResponse>((resolve, reject) => {
      // A hung apiserver (or a proxy in front of it) must not hold the pass, and with it the key's
      // place in the queue: the exchange is abandoned at its deadline, body included.
      const deadline = setTimeout(() => {
        reject(new RequestDeadlineError(what, req.timeoutMs));
        request.destroy();
      }, req.timeoutMs);
      const fail = (err: Error): void => {
        clearTimeout(deadline);
        reject(err);
      };
      request.on('response', (res) => {
        text(res).then((body) => {
          clearTimeout(deadline);
          const status = res.statusCode ?? 0;
          if (status >= 400) reject(new KubeHttpError(what, status, body, retryAfterHeader(res)));
          else resolve({ status, body });
        }, fail);
      });
      request.on('error', fail);
      request.end(body);
    });
  }

  /**
   * A keep-alive pool with the TLS settings KubeConfig chose, made once (a connection's cluster
   * entry never changes; the token is a header). With a proxy, KubeConfig's own proxy agent is kept.
   */
  private pool(options: https.RequestOptions, proxied: boolean): http.Agent | undefined {
    const own = options.agent instanceof http.Agent ? options.agent : undefined;
    if (proxied) return own;
    if (!(own instanceof https.Agent)) {
      this.agent ??= new http.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS });
      return this.agent;
    }
    this.agent ??= new https.Agent({
      keepAlive: true,
      timeout: IDLE_SOCKET_MS,
      ca: options.ca,
      cert: options.cert,
      key: options.key,
      ...(options.rejectUnauthorized === undefined ? {} : { rejectUnauthorized: options.rejectUnauthorized }),
      ...(options.servername === undefined ? {} : { servername: options.servername }),
    });
    return this.agent;
  }
}

/** The Retry-After header of an answer, if it has one. */
export function retryAfterHeader(res: http.IncomingMessage): string | undefined {
  const value = res.headers['retry-after'];
  return Array.isArray(value) ? value[0] : value;
}
