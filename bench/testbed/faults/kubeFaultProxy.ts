// A fault-injecting reverse proxy in front of the real kube-apiserver, for soaks and fault tests:
// TLS-terminating on 127.0.0.1 (with the apiserver's own self-signed serving certificate, which the
// test plane's kubeconfigs already skip verifying), forwarding everything else untouched with
// http-proxy-3 (a maintained rewrite of http-proxy: streaming bodies and long-lived watch
// responses pass through as streams, so a cut or delayed watch is a real one). Per request, a
// seeded FaultPlan decides by verb: answer 409, 429 (Retry-After), 500, 503, the apiserver's 504
// timeout, hang past the client's deadline, delay, forward but lose the answer (the write is
// applied, the client never learns it), or for watches cut the stream or send 410 Gone. Only API
// paths are faulted (/api/…, /apis/…); /version, /healthz and friends pass.
import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createProxyServer, type ServerOptions } from 'http-proxy-3';
import { stringify } from 'yaml';
import { FaultPlan, type FaultTable } from './faultPlan.ts';

export const KUBE_VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] as const;
export type KubeVerb = (typeof KUBE_VERBS)[number];
export const KUBE_FAULTS = ['conflict', 'throttle', 'internal', 'unavailable', 'timeout', 'hang', 'delay', 'dropResponse', 'cutWatch', 'gone'] as const;
export type KubeFault = (typeof KUBE_FAULTS)[number];

export interface KubeFaultProxyOptions {
  /** The apiserver, https://127.0.0.1:<port>. */
  target: string;
  /** The apiserver's --cert-dir (its self-signed apiserver.crt/.key serve the proxy too). */
  certDir: string;
  seed: number;
  table: FaultTable<KubeVerb, KubeFault>;
  /** How long a hung request stays open unanswered (default 30 s, beyond the client's 10 s deadline). */
  hangMs?: number;
}

export interface KubeFaultProxy {
  /** https://127.0.0.1:<port> */
  server: string;
  plan: FaultPlan<KubeVerb, KubeFault>;
  /** Writes a kubeconfig for `token` that goes through the proxy. */
  writeKubeconfig(file: string, token: string): void;
  stop(): Promise<void>;
}

const DROP = Symbol('drop the response');

export async function startKubeFaultProxy(opts: KubeFaultProxyOptions): Promise<KubeFaultProxy> {
  const plan = new FaultPlan<KubeVerb, KubeFault>(opts.seed, opts.table);
  const hangMs = opts.hangMs ?? 30_000;
  const proxy = createProxyServer({ target: opts.target, secure: false });
  const open = new Set<ServerResponse>();
  proxy.on('error', (_err, _req, res) => {
    const out = res as ServerResponse;
    if (typeof out.destroy === 'function') out.destroy();
  });
  proxy.on('proxyRes', (proxyRes, req, res) => {
    if (!(req as unknown as Record<symbol, boolean>)[DROP]) return;
    // Applied upstream; the client gets a reset connection instead of the answer.
    proxyRes.resume();
    res.destroy();
  });

  const server = https.createServer({ cert: readFileSync(path.join(opts.certDir, 'apiserver.crt')), key: readFileSync(path.join(opts.certDir, 'apiserver.key')) }, (req, res) => {
    open.add(res);
    res.once('close', () => open.delete(res));
    const verb = verbOf(req);
    const fault = verb === null ? null : plan.draw(verb);
    const forward = (options: ServerOptions = {}) => proxy.web(req, res, options);
    switch (fault) {
      case null:
        return forward();
      case 'conflict':
        return status(res, 409, 'Conflict', 'Operation cannot be fulfilled: the object has been modified; please apply your changes to the latest version and try again (injected)');
      case 'throttle':
        return status(res, 429, 'TooManyRequests', 'Too many requests, please try again later (injected)', { 'retry-after': '1' });
      case 'internal':
        return status(res, 500, 'InternalError', 'Internal error occurred: etcdserver: request timed out (injected)');
      case 'unavailable':
        return status(res, 503, 'ServiceUnavailable', 'the server is currently unable to handle the request (injected)', plan.random() < 0.5 ? { 'retry-after': '1' } : {});
      case 'timeout':
        return void setTimeout(() => status(res, 504, 'Timeout', 'Timeout: request did not complete within the allotted timeout (injected)'), 500);
      case 'hang': {
        const timer = setTimeout(() => res.destroy(), hangMs);
        res.once('close', () => clearTimeout(timer));
        req.resume();
        return;
      }
      case 'delay':
        return void setTimeout(() => forward(), 100 + Math.floor(plan.random() * 1400));
      case 'dropResponse':
        (req as unknown as Record<symbol, boolean>)[DROP] = true;
        return forward({ selfHandleResponse: true });
      case 'cutWatch': {
        const timer = setTimeout(() => res.destroy(), 200 + Math.floor(plan.random() * 4800));
        res.once('close', () => clearTimeout(timer));
        return forward();
      }
      case 'gone': {
        // What the apiserver sends for a compacted resourceVersion: 200 and one ERROR event.
        const event = { type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version (injected)', reason: 'Expired', code: 410 } };
        res.writeHead(200, { 'content-type': 'application/json' }).end(`${JSON.stringify(event)}\n`);
        return;
      }
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    server: url,
    plan,
    writeKubeconfig(file, token) {
      const name = 'faulted';
      writeFile(file, { apiVersion: 'v1', kind: 'Config', clusters: [{ name, cluster: { server: url, 'insecure-skip-tls-verify': true } }], users: [{ name, user: { token } }], contexts: [{ name, context: { cluster: name, user: name } }], 'current-context': name });
    },
    async stop() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      proxy.close();
    },
  };
}

function writeFile(file: string, config: unknown): void {
  writeFileSync(file, stringify(config), { mode: 0o600 });
}

/** The Kubernetes verb of a request, or null for paths that are not the API's resources. */
export function verbOf(req: IncomingMessage): KubeVerb | null {
  const url = new URL(req.url ?? '/', 'https://x');
  const parts = url.pathname.split('/').filter(Boolean);
  if (parts[0] !== 'api' && parts[0] !== 'apis') return null;
  switch (req.method) {
    case 'GET': {
      if (/^(true|1)$/.test(url.searchParams.get('watch') ?? '')) return 'watch';
      // /api/v1/namespaces/ns/pods/name vs /api/v1/namespaces/ns/pods (and /apis/group/version/…).
      const rest = parts[0] === 'api' ? parts.slice(2) : parts.slice(3);
      const afterNamespace = rest[0] === 'namespaces' && rest.length >= 3 ? rest.slice(2) : rest;
      return afterNamespace.length >= 2 ? 'get' : 'list';
    }
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    default:
      return null;
  }
}

function status(res: ServerResponse, code: number, reason: string, message: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });
  res.writeHead(code, { 'content-type': 'application/json', ...headers }).end(body);
}
