// Batch-to-batch reaction times of a partition-style workload (StatefulSet, CloneSet), read from the
// apiserver's audit log alone, as bench/lib/reactions.ts does for Deployments:
//   ready    the latest Ready lastTransitionTime in kwok's pods/status patches of the namespace
//            (request body, nanoseconds) before our next batch patch: with steps that never pause,
//            the pod whose Ready completes a batch is the last one to turn Ready before it;
//   status   the first write of the workload's status by its controller after that (what the watch sees);
//   start    our patch that starts the next batch: a merge patch of the workload carrying the
//            batch-partition record (rollouts.serverless-rollouts.io/partition), at requestReceivedTimestamp.
// The first batch of each release is started by the template change, not by a pod: not a reaction.
import type { AuditEvent } from '../../shared/adapters/local/controlPlane.ts';
import { ROLLOUTS_USER } from '../../shared/adapters/local/controlPlane.ts';
import { BATCH_PARTITION } from '../../shared/workloads/common/partition.ts';
import { auditMs, component, receivedMs } from './audit.ts';
import type { Reaction } from './reactions.ts';

interface Condition { type?: string; status?: string; lastTransitionTime?: string }

export function partitionReactions(events: readonly AuditEvent[], resource: string): { reactions: Reaction[]; problems: string[] } {
  const batches = events
    .filter((e) => e.user.username === ROLLOUTS_USER && e.verb === 'patch' && e.objectRef?.resource === resource && !e.objectRef.subresource && (e.responseStatus?.code ?? 500) < 300)
    .filter((e) => typeof batchRecord(e) === 'string')
    .map(receivedMs)
    .sort((a, b) => a - b);
  const readyAt = events
    .filter((e) => component(e) === 'kwok' && e.objectRef?.resource === 'pods' && e.objectRef.subresource === 'status')
    .map(readyTransition)
    .filter((t): t is number => t !== null)
    .sort((a, b) => a - b);
  const statusWrites = events
    .filter((e) => e.objectRef?.resource === resource && e.objectRef.subresource === 'status' && !['serverless-rollouts', 'bench'].includes(component(e)))
    .map(receivedMs)
    .sort((a, b) => a - b);
  const out: Reaction[] = [];
  const problems: string[] = [];
  for (let i = 1; i < batches.length; i += 1) {
    const prev = batches[i - 1] as number;
    const next = batches[i] as number;
    const ready = [...readyAt].reverse().find((t) => t > prev && t <= next);
    if (ready === undefined) {
      problems.push(`batch ${i + 1}: no pod turned Ready between our patches`);
      continue;
    }
    const status = statusWrites.find((t) => t >= ready && t <= next) ?? NaN;
    out.push({ from: i, to: i + 1, totalMs: next - ready, kubeMs: status - ready, oursMs: next - status });
  }
  return { reactions: out, problems };
}

/** The batch-partition record our patch writes (null when it removes it, undefined when it does not touch it). */
function batchRecord(e: AuditEvent): string | null | undefined {
  const annotations = (e.requestObject as { metadata?: { annotations?: Record<string, string | null> } } | undefined)?.metadata?.annotations;
  return annotations?.[BATCH_PARTITION];
}

function readyTransition(e: AuditEvent): number | null {
  const conditions = (e.requestObject as { status?: { conditions?: Condition[] } } | undefined)?.status?.conditions ?? [];
  const ready = conditions.find((c) => c.type === 'Ready' && c.status === 'True');
  return ready?.lastTransitionTime ? auditMs(ready.lastTransitionTime) : null;
}
