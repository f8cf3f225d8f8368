// List-then-watch of a few resource paths for the test watchers (invariants.ts, soak/), as an
// informer does it: the list seeds what exists, the watch follows from the list's resourceVersion,
// and when a watch ends (client-node ends one after 30 s without bytes, the server after its
// timeout, a 410 after compaction) the path is listed and watched again, and objects that vanished
// meanwhile are reported deleted. A watcher that only ever watched once would go blind in a long run.
import https from 'node:https';
import { Watch, type KubeConfig } from '@kubernetes/client-node';

export interface WatchedObject {
  metadata: { name: string; resourceVersion?: string };
}

export type WatchEventSink<K extends string, T extends WatchedObject> = (kind: K, type: string, obj: T) => void;

export interface NamespaceWatch {
  /** How many times a path was listed and watched again after its watch ended. */
  readonly rewatches: number;
  stop(): void;
}

export async function watchPaths<K extends string, T extends WatchedObject>(
  admin: KubeConfig, paths: Record<K, string>, onEvent: WatchEventSink<K, T>, onProblem: (message: string) => void,
): Promise<NamespaceWatch> {
  const watch = new Watch(admin);
  const known = new Map<K, Set<string>>();
  const aborts = new Set<AbortController>();
  let stopped = false;
  let rewatches = 0;
  const sink = (kind: K, type: string, obj: T): void => {
    const names = known.get(kind) ?? new Set<string>();
    known.set(kind, names);
    if (type === 'DELETED') names.delete(obj.metadata.name);
    else if (type !== 'BOOKMARK' && type !== 'ERROR') names.add(obj.metadata.name);
    onEvent(kind, type, obj);
  };
  const follow = async (kind: K, path: string): Promise<void> => {
    const list = await rawGet(admin, path) as { metadata: { resourceVersion: string }; items: T[] };
    const listed = new Set(list.items.map((i) => i.metadata.name));
    for (const name of [...(known.get(kind) ?? [])]) if (!listed.has(name)) sink(kind, 'DELETED', { metadata: { name } } as T);
    for (const item of list.items) sink(kind, 'SEED', item);
    const ctrl = await watch.watch(path, { allowWatchBookmarks: true, resourceVersion: list.metadata.resourceVersion }, (type, obj: T) => sink(kind, type, obj), () => {
      aborts.delete(ctrl);
      if (stopped) return;
      rewatches += 1;
      void follow(kind, path).catch((err: unknown) => onProblem(`re-watching ${path} failed: ${String(err)}`));
    });
    aborts.add(ctrl);
    if (stopped) ctrl.abort();
  };
  for (const [kind, path] of Object.entries(paths) as [K, string][]) await follow(kind, path);
  return {
    get rewatches() {
      return rewatches;
    },
    stop() {
      stopped = true;
      for (const a of aborts) a.abort();
    },
  };
}

/** GET of a raw API path with the kubeconfig's credentials (wire JSON, no model conversion). */
export async function rawGet(kc: KubeConfig, path: string): Promise<unknown> {
  const url = new URL(`${kc.getCurrentCluster()?.server ?? ''}${path}`);
  const opts: https.RequestOptions = { method: 'GET', hostname: url.hostname, port: url.port, path: url.pathname + url.search, headers: {} };
  await kc.applyToHTTPSOptions(opts);
  return new Promise((resolve, reject) => {
    const req = https.request(opts, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(body)) : reject(new Error(`GET ${path}: ${res.statusCode} ${body}`))));
    });
    req.on('error', reject);
    req.end();
  });
}
