// Batch-to-batch reaction of any release controller that moves a Deployment's pods through a new
// ReplicaSet (ours in either strategy, Argo Rollouts, Kruise Rollout), read from the apiserver's
// audit log alone, so every contender is measured the same way:
//   new ReplicaSet  the ReplicaSet created in the release's window whose replicas grew the most
//                   (with Argo's workloadRef the Deployment, scaled to 0, also gets one that stays at 0);
//   ready           for a batch of b pods, the Ready lastTransitionTime (kwok's pods/status request
//                   body) of the b-th pod of that ReplicaSet to turn Ready;
//   next write      the first write (create, update, patch; replicasets or replicasets/scale) that
//                   asks that ReplicaSet for more than b replicas: the next batch starting, whoever
//                   sends it (ours or the peer; in our MinReadySeconds strategy the deployment
//                   controller, after our Deployment patch);
//   status          the replicaset-controller's first status write of that ReplicaSet after ready
//                   (what a watch sees): Kubernetes' share.
// Needs audit rules at level Request for ReplicaSet writes and pods/status in the namespace.
import type { AuditEvent } from '../../shared/adapters/local/controlPlane.ts';
import { auditMs, component, KUBE_WRITES, receivedMs } from './audit.ts';

export interface BatchReaction {
  /** Pods of the batch that completed, and the replicas the next write asked for. */
  batch: number;
  nextReplicas: number;
  /** last pod of the batch Ready → the next write, ms */
  totalMs: number;
  /** last pod Ready → the ReplicaSet controller's status write, ms (NaN when none came before the next write) */
  kubeMs: number;
  /** who sent the next write (lib/audit.ts component names) */
  writer: string;
}

interface Condition { type?: string; status?: string; lastTransitionTime?: string }
interface ReplicaSetWrite { at: number; verb: string; name: string; replicas: number; writer: string }

const WRITES = new Set(['create', 'update', 'patch']);

export interface BatchTimeline {
  reactions: BatchReaction[];
  /** When the new ReplicaSet was first asked for a pod (the first batch starting), ms since the epoch. */
  firstBatchAt?: number;
  /** When its `replicas`-th pod turned Ready (the last batch's pods all Ready), ms since the epoch. */
  lastReadyAt?: number;
  problems: string[];
}

/**
 * `batches`: the pod counts after each batch but the last (e.g. [1, 5] for 10 replicas and steps
 * [10%, 50%, 100%]); `replicas`: the release's size; `events`: the namespace's audit events of one
 * release's window.
 */
export function batchReactions(events: readonly AuditEvent[], batches: readonly number[], replicas = 0): BatchTimeline {
  const writes = replicaSetWrites(events);
  const created = new Set(writes.filter((w) => w.verb === 'create' && w.writer !== 'bench').map((w) => w.name));
  const target = [...created]
    .map((name) => ({ name, max: Math.max(...writes.filter((w) => w.name === name).map((w) => w.replicas)) }))
    .sort((a, b) => b.max - a.max)[0]?.name;
  if (target === undefined) return { reactions: [], problems: ['no ReplicaSet created in the window'] };
  const scaleUps = writes.filter((w) => w.name === target).sort((a, b) => a.at - b.at);
  const readyAt = firstReadyPerPod(events, target);
  const statusWrites = events
    .filter((e) => component(e) === 'replicaset-controller' && e.objectRef?.resource === 'replicasets' && e.objectRef.subresource === 'status' && e.objectRef.name === target)
    .map(receivedMs)
    .sort((a, b) => a - b);
  const reactions: BatchReaction[] = [];
  const problems: string[] = [];
  for (const b of batches) {
    const ready = readyAt[b - 1];
    const next = scaleUps.find((w) => w.replicas > b);
    if (ready === undefined || next === undefined) {
      problems.push(`batch of ${b}: ${ready === undefined ? `fewer than ${b} pods of ${target} turned Ready` : `no write asked ${target} for more than ${b}`}`);
      continue;
    }
    if (next.at < ready) {
      problems.push(`batch of ${b}: ${target} was asked for ${next.replicas} before its ${b}th pod was Ready (no batch boundary there)`);
      continue;
    }
    const status = statusWrites.find((t) => t >= ready && t <= next.at) ?? NaN;
    reactions.push({ batch: b, nextReplicas: next.replicas, totalMs: next.at - ready, kubeMs: status - ready, writer: next.writer });
  }
  const firstBatchAt = scaleUps.find((w) => w.replicas > 0)?.at;
  const lastReadyAt = replicas > 0 ? readyAt[replicas - 1] : undefined;
  return { reactions, problems, ...(firstBatchAt === undefined ? {} : { firstBatchAt }), ...(lastReadyAt === undefined ? {} : { lastReadyAt }) };
}

function replicaSetWrites(events: readonly AuditEvent[]): ReplicaSetWrite[] {
  return events.flatMap((e) => {
    const r = e.objectRef;
    if (!WRITES.has(e.verb) || r?.resource !== 'replicasets' || (r.subresource !== undefined && r.subresource !== 'scale')) return [];
    if ((e.responseStatus?.code ?? 500) >= 300) return [];
    const replicas = (e.requestObject as { spec?: { replicas?: unknown } } | undefined)?.spec?.replicas;
    const name = nameOf(e);
    if (typeof replicas !== 'number' || !name) return [];
    return [{ at: receivedMs(e), verb: r.subresource ? 'scale' : e.verb, name, replicas, writer: component(e) }];
  });
}

function nameOf(e: AuditEvent): string | undefined {
  return e.objectRef?.name ?? (e.requestObject as { metadata?: { name?: string } } | undefined)?.metadata?.name;
}

/** Each pod of the ReplicaSet (named `<replicaset>-<5 characters>`) once, at its first Ready transition, sorted. */
function firstReadyPerPod(events: readonly AuditEvent[], replicaSet: string): number[] {
  const first = new Map<string, number>();
  for (const e of events) {
    const pod = e.objectRef?.name ?? '';
    if (component(e) !== 'kwok' || e.objectRef?.resource !== 'pods' || e.objectRef.subresource !== 'status') continue;
    if (pod.slice(0, pod.lastIndexOf('-')) !== replicaSet) continue;
    const conditions = (e.requestObject as { status?: { conditions?: Condition[] } } | undefined)?.status?.conditions ?? [];
    const ready = conditions.find((c) => c.type === 'Ready' && c.status === 'True');
    if (!ready?.lastTransitionTime) continue;
    const at = auditMs(ready.lastTransitionTime);
    if (!first.has(pod) || at < (first.get(pod) as number)) first.set(pod, at);
  }
  return [...first.values()].sort((a, b) => a - b);
}

/**
 * The writes in [fromMs, toMs] of everyone but kwok, the scheduler and the benchmark, as
 * "+<ms after fromMs> <component> <verb> <resource>[/<subresource>]": the hops between two moments
 * of a release (e.g. the last pod Ready → done), to see whose turn the time was. At most `limit`.
 */
export function writeTrail(events: readonly AuditEvent[], fromMs: number, toMs: number, limit = 30): string[] {
  return events
    .filter((e) => KUBE_WRITES.has(e.verb) && !['kwok', 'kube-scheduler', 'bench'].includes(component(e)))
    .map((e) => ({ e, at: receivedMs(e) }))
    .filter(({ at }) => at >= fromMs && at <= toMs)
    .sort((a, b) => a.at - b.at)
    .slice(0, limit)
    .map(({ e, at }) => `+${(at - fromMs).toFixed(1)} ${component(e)} ${e.verb} ${e.objectRef?.resource ?? '?'}${e.objectRef?.subresource ? `/${e.objectRef.subresource}` : ''}`);
}
