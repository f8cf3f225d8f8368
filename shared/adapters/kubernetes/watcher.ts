// One watch request for the watch-proxy, over the same transport as every other request
// (transport.ts): a GET with watch=true whose answer is one JSON event per line, delivered as wire
// JSON, and one `onDone` whose error is a named class. A 410 Gone (our resourceVersion was
// compacted away) becomes GoneError, so the caller knows to relist instead of re-watching.
// It behaves as client-node's Watch did (which needs undici, ~370 KB of a bundle): a watch that
// receives no bytes for 30 s, or no answer within 30 s, is ended normally, to be re-watched.
import { text } from 'node:stream/consumers';
import { createInterface } from 'node:readline';
import type { KubeObject } from '../../kube/types.ts';
import type { WatchDoneHandler, WatchEventHandler, WatchEventType, WatchHandle, WatchQuery } from '../../ports.ts';
import { NO_METER, type Meter } from '../../meter.ts';
import { toKubeError } from './kubeErrors.ts';
import { KubeHttpError, retryAfterHeader, type KubeTransport } from './transport.ts';

export type { WatchDoneHandler, WatchEventHandler, WatchEventType, WatchHandle, WatchQuery } from '../../ports.ts';

/** No byte for this long (the apiserver sends bookmarks about once a minute, events when they happen): end and re-watch. */
const INACTIVITY_MS = 30_000;

/**
 * Opens one watch on `path` (e.g. "/apis/apps/v1/namespaces/web/deployments"). Rejects only when
 * the request cannot be made (no cluster in the kubeconfig, an auth plugin failing); every failure
 * of the request itself, an HTTP error status included, arrives through `onDone`.
 */
export async function watchPath(
  transport: KubeTransport,
  path: string,
  query: WatchQuery,
  onEvent: WatchEventHandler,
  onDone: WatchDoneHandler,
  meter: Meter = NO_METER,
): Promise<WatchHandle> {
  const what = `watch ${path}`;
  const params: Record<string, string> = { watch: 'true' };
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params[name] = String(value);
  meter.add('k8s.read');
  const { request } = await transport.open({ method: 'GET', path, query: params });
  let finished = false;
  let idle: NodeJS.Timeout | undefined;
  const finish = (err: Error | null): void => {
    if (finished) return;
    finished = true;
    clearTimeout(idle);
    request.destroy();
    onDone(err);
  };
  const stillAlive = (): void => {
    clearTimeout(idle);
    idle = setTimeout(() => finish(null), INACTIVITY_MS);
  };

  request.on('response', (res) => {
    const status = res.statusCode ?? 0;
    if (status !== 200) {
      text(res).then(
        (body) => finish(toKubeError(new KubeHttpError(what, status, body, retryAfterHeader(res)), what)),
        (err: unknown) => finish(toKubeError(err, what)),
      );
      return;
    }
    stillAlive();
    res.on('data', stillAlive);
    res.on('error', (err) => finish(toKubeError(err, what)));
    const lines = createInterface({ input: res, crlfDelay: Infinity });
    lines.on('line', (line) => {
      if (finished || line.trim() === '') return;
      let event: { type?: string; object?: unknown };
      try {
        event = JSON.parse(line) as typeof event;
      } catch {
        return finish(toKubeError(new Error(`not a watch event: ${line.slice(0, 200)}`), what));
      }
      // The apiserver reports a too-old resourceVersion as HTTP 200 + an ERROR event carrying a
      // Status (code 410); other failures mid-stream arrive the same way.
      if (event.type === 'ERROR') finish(toKubeError(event.object, what));
      else onEvent(event.type as WatchEventType, event.object as KubeObject);
    });
    lines.on('error', (err) => finish(toKubeError(err, what)));
    // The server closed the watch (its timeoutSeconds, a restart): a normal end.
    lines.on('close', () => finish(null));
  });
  request.on('error', (err) => finish(toKubeError(err, what)));
  stillAlive();
  request.end();
  return { stop: () => finish(null) };
}
