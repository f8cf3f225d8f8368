// One release of a Deployment driven by the watch loop, measured end to end: from the template
// change to the release's completion (the "Release Completed" transition), with what the servers
// received meanwhile. Shared by the release-overhead and reaction-latency areas.
import { randomBytes } from 'node:crypto';
import type { ReconcileResult } from '../../shared/reconcile/reconcile.ts';
import type { RolloutEvent } from '../../shared/rollout/types.ts';
import type { Engine, Scenario } from '../testbed/engine.ts';
import { DeploymentWatch, rolledOutTo } from './deploymentWatch.ts';
import type { WatchLoop } from './watchLoop.ts';

/** Namespaces are named before the control plane starts: its audit rules list them. */
export function benchNamespace(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString('hex')}`;
}

/**
 * Until the loop holds the Deployment (paused) at rest: Healthy once adopted, or Completed after a
 * release (the phase a finished release leaves until the next one: shared/rollout/plan.ts), which
 * the peers area's repeated releases of one Deployment wait on.
 */
export async function waitUntilHeld(s: Scenario, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const x = await s.snapshot();
    if (x.deployment.spec?.paused === true && (x.state.phase === 'Healthy' || x.state.phase === 'Completed')) return;
    if (Date.now() > deadline) throw new Error(`the watch loop did not hold ${s.namespace}/web within ${timeoutMs} ms (phase ${x.state.phase})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface ReleaseRun {
  /** Date.now() just before the template change was sent. */
  startedAt: number;
  /**
   * When the benchmark saw the "Release Completed" event published (polled every 20 ms): after the
   * completing pass's writes and its STATE persist, so the audit window ending here holds them all.
   */
  completedAt: number;
  /** When the completing pass decided so (the event's own time, before that pass's writes). */
  decidedAt: number;
  /** When the Deployment first showed every replica on the new template and available (bench watch). */
  podsDoneAt: number;
  events: RolloutEvent[];
  reconciles: { reason: string; wallMs: number; result: ReconcileResult }[];
  notices: number;
}

/** Changes the image and waits for the watch loop to finish the release. */
export async function releaseOnce(engine: Engine, s: Scenario, loop: WatchLoop, image: string, replicas: number, timeoutMs: number): Promise<ReleaseRun> {
  const watch = await DeploymentWatch.start(engine.cluster.admin, s.namespace, 'web');
  try {
    const podsDone = watch.when(rolledOutTo(image, replicas), timeoutMs, `${image} on every replica`);
    const firstRecord = loop.records.length;
    const firstNotice = loop.notices.count;
    const firstEvent = engine.events.events.length;
    const startedAt = Date.now();
    await s.setImage(image);
    const completed = await waitForEvent(engine, s.namespace, firstEvent, 'Release Completed', timeoutMs);
    const completedAt = Date.now();
    const podsDoneAt = await podsDone;
    return {
      startedAt,
      completedAt,
      decidedAt: Date.parse(completed.at),
      podsDoneAt,
      events: engine.events.events.slice(firstEvent).filter((e) => e.rollout.namespace === s.namespace),
      reconciles: loop.records.slice(firstRecord).map(({ reason, wallMs, result }) => ({ reason, wallMs, result })),
      notices: loop.notices.count - firstNotice,
    };
  } finally {
    watch.stop();
  }
}

async function waitForEvent(engine: Engine, namespace: string, from: number, type: string, timeoutMs: number): Promise<RolloutEvent> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = engine.events.events.slice(from).find((e) => e.rollout.namespace === namespace && e.type === type);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no "${type}" event for ${namespace} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
