// Container entry of the watch-proxy (in-cluster or ECS): the same loop as the Lambda, with no end.
// SIGTERM/SIGINT stop it cleanly: watches closed, pending changes sent, then exit 0.
import { lambdaDeps } from '../../shared/app/lambdaDeps.ts';
import { createObservability } from '../../shared/app/observability.ts';
import { runWatchProxy } from '../../shared/watch/watchProxy.ts';
import { watchProxyOptions } from './createHandler.ts';

const obs = createObservability('rollouts-watch-proxy');
const stopping = new AbortController();
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    obs.logger.info('stopping', { signal });
    stopping.abort();
  });
}

try {
  const stats = await runWatchProxy({ ...watchProxyOptions(lambdaDeps(), obs), until: null, signal: stopping.signal });
  obs.logger.info('watch-proxy stopped', { ...stats });
} catch (err) {
  obs.logger.error('watch-proxy failed', err instanceof Error ? err : String(err));
  process.exitCode = 1;
}
