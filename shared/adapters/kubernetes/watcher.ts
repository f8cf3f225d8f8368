// A thin wrapper over client-node's Watch for the watch-proxy: one watch request, events as
// wire-format JSON, and one `onDone` whose error is a named class. A 410 Gone (our resourceVersion
// was compacted away) becomes GoneError, so the caller knows to relist instead of re-watching.
import { Watch, type KubeConfig } from '@kubernetes/client-node';
import type { KubeObject } from '../../kube/types.ts';
import type { WatchDoneHandler, WatchEventHandler, WatchEventType, WatchHandle, WatchQuery } from '../../kube/watch.ts';
import { NO_METER, type Meter } from '../../reconcile/meter.ts';
import { toKubeError } from './kubeErrors.ts';

export type { WatchDoneHandler, WatchEventHandler, WatchEventType, WatchHandle, WatchQuery } from '../../kube/watch.ts';

/**
 * Opens one watch on `path` (e.g. "/apis/apps/v1/namespaces/web/deployments").
 * Note client-node aborts a watch that receives no bytes for 30 s; that surfaces as a normal end.
 */
export async function watchPath(
  kc: KubeConfig,
  path: string,
  query: WatchQuery,
  onEvent: WatchEventHandler,
  onDone: WatchDoneHandler,
  meter: Meter = NO_METER,
): Promise<WatchHandle> {
  let finished = false;
  // Filled in once watch() resolves; events and errors can arrive before that.
  const connection: { controller?: AbortController } = {};
  const finish = (err: Error | null): void => {
    if (finished) return;
    finished = true;
    connection.controller?.abort();
    onDone(err);
  };
  const what = `watch ${path}`;

  meter.add('k8s.read');
  const controller = await new Watch(kc).watch(
    path,
    { ...query },
    (type: string, object: unknown) => {
      if (finished) return;
      // The apiserver reports a too-old resourceVersion as HTTP 200 + an ERROR event carrying a
      // Status (code 410); other failures mid-stream arrive the same way.
      if (type === 'ERROR') finish(toKubeError(object, what));
      else onEvent(type as WatchEventType, object as KubeObject);
    },
    (err: unknown) => finish(isNormalEnd(err) ? null : toKubeError(err, what)),
  );
  connection.controller = controller;
  // The request may have failed before watch() returned (e.g. HTTP 410/403 on connect).
  if (finished) controller.abort();
  return {
    stop: () => finish(null),
  };
}

/** Our own stop(), a server close and client-node's inactivity timeout all mean "re-watch". */
function isNormalEnd(err: unknown): boolean {
  if (err === null || err === undefined) return true;
  const name = (err as { name?: unknown }).name;
  return name === 'AbortError' || name === 'TimeoutError';
}
