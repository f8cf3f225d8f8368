// The on-demand watch-proxy (watchProxyMode "on-demand"): watches run only while some release is
// moving pods, which is when reacting within a second matters. An idle stack runs none.
//  - Demand: every reconcile pass that asks to run again (pods moving, a lost race) records the
//    instant in the watcher lease and makes sure a watcher runs: if none holds the lease, or the
//    holder is about to end (RENEW_BEFORE_MS) or stopped beating (HEARTBEAT_TIMEOUT_MS), it takes
//    the lease over (a conditional write: one launcher wins) and starts a watch-proxy invocation.
//  - The watcher beats every CHECK_EVERY_MS and gives the lease up once nothing was demanded for
//    IDLE_GRACE_MS, only if no demand came in since it looked (a conditional write), so a pass that
//    records demand after the release starts a new watcher, and none that came before is lost.
// Never the only way forward: while pods move every pass also asks for a delayed re-run (5 s,
// shared/rollout/progression.ts), the sweep queues every active release each minute and the
// resync every rollout each period, so a watcher that is late, crashed or never started costs
// reaction time, never a release. See README.md, "Deploying to AWS", for the modes.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock, Log, WatcherLauncher, WatcherLease } from '../ports.ts';

/** A successor starts this long before the holder ends: the watches overlap, no blind gap. */
export const RENEW_BEFORE_MS = 90_000;
export const CHECK_EVERY_MS = 30_000;
/** Three missed beats: the holder is taken to be gone (crashed, or its launch failed). */
export const HEARTBEAT_TIMEOUT_MS = 100_000;
/** No demand for this long: the watcher ends. Longer than the 5 s re-runs of moving pods, shorter than a pause worth saving on. */
export const IDLE_GRACE_MS = 120_000;

export interface WatcherDemandDeps {
  lease: WatcherLease;
  launcher: WatcherLauncher;
  clock: Clock;
  /** How long one watcher invocation runs (ROLLOUTS_WATCHER_SECONDS). */
  watcherMs: number;
}

export type EnsureOutcome = 'running' | 'launched' | 'launched-elsewhere';

export async function ensureWatcher(deps: WatcherDemandDeps): Promise<EnsureOutcome> {
  const now = deps.clock.now();
  const lease = await deps.lease.demand(now);
  const t = now.getTime();
  if (lease.generation > 0 && lease.until - t > RENEW_BEFORE_MS && t - lease.seenAt < HEARTBEAT_TIMEOUT_MS) return 'running';
  const generation = await deps.lease.claim(lease.generation, now, t + deps.watcherMs);
  if (generation === null) return 'launched-elsewhere';
  await deps.launcher.launch(generation);
  return 'launched';
}

export interface TenureDeps {
  lease: WatcherLease;
  clock: Clock;
  log: Log;
  /** Aborted when this watcher should stop (it gave the lease up). */
  stop: AbortController;
  checkEveryMs?: number;
  idleGraceMs?: number;
}

/**
 * The watcher's side: beats while it holds the lease and demand is recent, gives the lease up and
 * aborts `stop` once demand went quiet. A successor's generation makes it stop beating; it then
 * runs until its own end (the overlap). Resolves when stopped or when `stop` aborts otherwise.
 */
export async function holdWatcherLease(generation: number, deps: TenureDeps): Promise<'released' | 'ended'> {
  const every = deps.checkEveryMs ?? CHECK_EVERY_MS;
  const grace = deps.idleGraceMs ?? IDLE_GRACE_MS;
  let superseded = false;
  while (!deps.stop.signal.aborted) {
    await sleep(every, undefined, { signal: deps.stop.signal }).catch(() => {}); // aborted: the loop ends
    if (deps.stop.signal.aborted || superseded) continue;
    try {
      const lease = await deps.lease.read();
      const now = deps.clock.now();
      if (lease.generation !== generation) {
        superseded = true;
        deps.log.info('a newer watcher holds the lease; running until this one ends', { generation, holder: lease.generation });
      } else if (now.getTime() - lease.demandAt > grace) {
        if (await deps.lease.release(generation, lease.demandAt, now)) {
          deps.log.info('no release has moved pods for a while; watcher stopping', { generation, idleMs: now.getTime() - lease.demandAt });
          deps.stop.abort();
          return 'released';
        }
      } else if (!(await deps.lease.heartbeat(generation, now))) {
        superseded = true;
      }
    } catch (err) {
      // A missed beat is survivable (three in a row let a launcher replace this watcher).
      deps.log.warn('watcher lease check failed', { generation, error: String(err) });
    }
  }
  return 'ended';
}
