// One HTTP exchange with an apiserver: @kubernetes/client-node's KubeConfig supplies everything that
// makes the request authentic (applyToHTTPSOptions: the bearer token, or a token from an exec or OIDC
// plugin, client certificates, the cluster's CA, TLS server name, skip-verify, a proxy agent), and
// Node's https sends it. Why not client-node's generated API classes: their models turn every
// date-time into a Date (and back as "…00.000Z", never the apiserver's "…00Z"), truncate MicroTime
// and drop fields they do not know, so drivers always read the body as the apiserver sent it; and
// the classes with their models are ~1.1 MB of a function bundle. Why not client-node's own HTTP
// library (undici's fetch): evaluating undici costs a function ~25 ms of cold start
// (scripts/bundle-report.mjs), so only the watch-proxy, whose watches use client-node's Watch,
// loads it (infra/undici-entry.cjs loads it on first use).
import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { ConfigError } from '../../errors.ts';

export type KubeMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface KubeRequest {
  method: KubeMethod;
  /** Below the cluster's server URL, e.g. "/apis/apps/v1/namespaces/web/deployments/api". */
  path: string;
  query?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  /** Default application/json; patches name their patch type. */
  contentType?: string;
}

/** The response of a 2xx exchange: the body exactly as the apiserver sent it. */
export interface KubeResponse {
  status: number;
  body: string;
}

/** An answer of 400 or more; kubeErrors.ts maps it to our named errors (code + raw Status body). */
export class KubeHttpError extends Error {
  readonly code: number;
  readonly body: string;
  constructor(code: number, body: string, what: string) {
    super(`${what}: HTTP ${code}`);
    this.name = 'KubeHttpError';
    this.code = code;
    this.body = body;
  }
}

/** No answer within this long: the request fails (as a connection error), and the reconcile retries. */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * Requests to the current cluster of one KubeConfig. The user (token) is read on every request, so
 * a replaced token (eksAccess.ts replaceToken) is picked up, and one keep-alive connection pool
 * serves every request (KubeConfig's own https.Agent does not keep connections alive: each request
 * would pay a new TCP and TLS handshake).
 */
export class KubeTransport {
  private readonly kc: KubeConfig;
  private agent: http.Agent | undefined;

  constructor(kc: KubeConfig) {
    this.kc = kc;
  }

  async send(req: KubeRequest): Promise<KubeResponse> {
    const cluster = this.kc.getCurrentCluster();
    if (!cluster) throw new ConfigError('kubeconfig has no current cluster');
    const url = new URL(cluster.server.replace(/\/$/, '') + req.path);
    for (const [name, value] of Object.entries(req.query ?? {})) url.searchParams.set(name, value);
    const body = req.body === undefined ? undefined : JSON.stringify(req.body);
    const options: https.RequestOptions = {
      method: req.method,
      headers: { Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': req.contentType ?? 'application/json', 'Content-Length': Buffer.byteLength(body) }) },
      timeout: REQUEST_TIMEOUT_MS,
    };
    await this.kc.applyToHTTPSOptions(options);
    options.agent = this.pool(options, cluster.proxyUrl !== undefined);
    const what = `${req.method} ${url.pathname}`;
    return new Promise<KubeResponse>((resolve, reject) => {
      const request = (url.protocol === 'http:' ? http : https).request(url, options, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status >= 400) reject(new KubeHttpError(status, text, what));
          else resolve({ status, body: text });
        });
      });
      request.on('timeout', () => request.destroy(new Error(`${what}: no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)));
      request.on('error', reject);
      request.end(body);
    });
  }

  /**
   * A keep-alive pool with the TLS settings KubeConfig chose, made once (the cluster entry never
   * changes; the token is a header). With a proxy, KubeConfig's own proxy agent is kept.
   */
  private pool(options: https.RequestOptions, proxied: boolean): http.Agent | undefined {
    const own = options.agent instanceof http.Agent ? options.agent : undefined;
    if (proxied) return own;
    if (!(own instanceof https.Agent)) {
      this.agent ??= new http.Agent({ keepAlive: true });
      return this.agent;
    }
    this.agent ??= new https.Agent({
      keepAlive: true,
      ca: options.ca,
      cert: options.cert,
      key: options.key,
      ...(options.rejectUnauthorized === undefined ? {} : { rejectUnauthorized: options.rejectUnauthorized }),
      ...(options.servername === undefined ? {} : { servername: options.servername }),
    });
    return this.agent;
  }
}
