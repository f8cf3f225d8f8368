// The port to one cluster's watch API, SDK-free: what the watch-proxy (shared/watch) consumes and
// the Kubernetes adapter (shared/adapters/kubernetes/watcher.ts) implements over Node's https.
import type { KubeObject } from './types.ts';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface WatchQuery {
  /** Start after this version; omit to get synthetic ADDED events for everything that exists. */
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  labelSelector?: string;
  fieldSelector?: string;
  /** Server-side end of the watch; the server then closes it normally (onDone(null)). */
  timeoutSeconds?: number;
}

export type WatchEventHandler = (type: WatchEventType, object: KubeObject) => void;
/**
 * Called exactly once per opened watch (not when opening itself rejects). null: the watch ended
 * normally (server close, inactivity, stop()): re-watch from the last resourceVersion seen.
 */
export type WatchDoneHandler = (err: Error | null) => void;

export interface WatchHandle {
  stop(): void;
}

/** One cluster's watch API (KubeClusterClient.watch has this shape). */
export interface WatchSource {
  watch(path: string, query: WatchQuery, onEvent: WatchEventHandler, onDone: WatchDoneHandler): Promise<WatchHandle>;
  /** The collection's current resourceVersion (a one-item list), to watch from now without a replay. */
  listVersion?(path: string): Promise<string>;
}
