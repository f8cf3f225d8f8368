// Per-request middleware for client-node's typed APIs: counts the request into the meter and keeps
// the response body exactly as the apiserver sent it.
//
// Why keep the raw body: the typed APIs deserialize into model classes, which turns every
// date-time into a JS Date (and back as "…00.000Z", never the apiserver's "…00Z"), truncates
// MicroTime to milliseconds and silently drops fields the generated models do not know. Drivers
// must see wire-format JSON, so we parse the captured text ourselves and ignore the models.
import {
  Observable,
  ResponseContext,
  setHeaderOptions,
  type ConfigurationOptions,
  type ObservableMiddleware,
  type RequestContext,
} from '@kubernetes/client-node';
import type { Meter } from '../../reconcile/meter.ts';

export interface Exchange {
  /** Options to pass as the second argument of a typed API call. */
  readonly options: ConfigurationOptions;
  /** The raw response body of the call, once it has completed (success or failure). */
  body(): string | undefined;
  /** The response's Retry-After header, if it had one. */
  retryAfter(): string | undefined;
}

/**
 * One exchange per API call (never shared: the captured body belongs to that call).
 * `contentType` overrides the generated code's choice; client-node defaults PATCH to
 * application/json-patch+json whatever the body is (ecosystem.md §a).
 */
export function exchange(
  meter: Meter,
  kind: 'k8s.read' | 'k8s.write',
  opts: { contentType?: string; connection?: ObservableMiddleware; timeoutMs?: number } = {},
): Exchange {
  let raw: string | undefined;
  let retryAfter: string | undefined;
  const capture: ObservableMiddleware = {
    pre(ctx: RequestContext) {
      meter.add(kind);
      // A hung apiserver (or a proxy in front of it) must not hold the pass, and with it the key's
      // place in the queue, forever: the request is abandoned after its deadline (body included).
      if (opts.timeoutMs !== undefined) ctx.setSignal(AbortSignal.timeout(opts.timeoutMs));
      return new Observable(Promise.resolve(ctx));
    },
    post(rsp: ResponseContext) {
      retryAfter = rsp.headers['retry-after'];
      return new Observable(
        rsp.body.text().then((text) => {
          raw = text;
          return new ResponseContext(rsp.httpStatusCode, rsp.headers, textBody(text));
        }),
      );
    },
  };
  const middleware = opts.connection ? [opts.connection, capture] : [capture];
  const base: ConfigurationOptions = { middleware, middlewareMergeStrategy: 'append' };
  return {
    options: opts.contentType ? setHeaderOptions('Content-Type', opts.contentType, base) : base,
    body: () => raw,
    retryAfter: () => retryAfter,
  };
}

type Dispatcher = ReturnType<RequestContext['getDispatcher']>;

/**
 * Makes the requests of one client share one connection pool. client-node 2.0.1 builds a new
 * undici Agent for every request (KubeConfig.applySecurityAuthentication → createDispatcher, no
 * cache), so each request pays a new TCP + TLS handshake and leaves an idle socket behind: 20 GETs
 * left 20 sockets open against the test apiserver. Only TLS settings live in the Agent (the token
 * is a header), and a client's cluster entry never changes, so reusing its first Agent is safe.
 */
export function sharedConnection(): ObservableMiddleware {
  let shared: Dispatcher;
  return {
    pre(ctx: RequestContext) {
      const own = ctx.getDispatcher();
      if (shared === undefined) shared = own;
      else if (own !== undefined) ctx.setDispatcher(shared);
      return new Observable(Promise.resolve(ctx));
    },
    post(rsp: ResponseContext) {
      return new Observable(Promise.resolve(rsp));
    },
  };
}

function textBody(text: string): ResponseContext['body'] {
  return {
    text: async () => text,
    binary: async () => Buffer.from(text),
    stream: () => null,
  };
}
