// Batch-to-batch reaction times, read from the apiserver's audit log alone (so any driver — the
// watch loop built here or local mode itself — is measured the same way):
//   ready    the Ready condition's lastTransitionTime in kwok's pods/status patch (request body,
//            nanoseconds, kwok's clock = this machine's) of the pod that completed batch i: the
//            k-th pod of the new ReplicaSet to turn Ready, k = the replicas batch i asked for;
//   status   the replicaset-controller's first ReplicaSet status write after that (what the watch sees);
//   start    our patch raising the new ReplicaSet's replicas for batch i+1 (request body), at the
//            apiserver's requestReceivedTimestamp.
// Needs audit rules at level Request for our ReplicaSet writes and for pods/status in the namespace,
// and Metadata for everyone in it.
import type { AuditEvent } from '../../shared/adapters/local/controlPlane.ts';
import { ROLLOUTS_USER } from '../../shared/adapters/local/controlPlane.ts';
import { auditMs, component, receivedMs } from './audit.ts';

export interface Reaction {
  /** Replicas of the new ReplicaSet before and after the patch that started the next batch. */
  from: number;
  to: number;
  /** last pod Ready → our ReplicaSet patch, ms */
  totalMs: number;
  /** last pod Ready → the ReplicaSet controller's status write (Kubernetes' share), ms */
  kubeMs: number;
  /** that status write → our patch (watch delivery, coalescing window, queue, reconcile), ms */
  oursMs: number;
}

interface Condition { type?: string; status?: string; lastTransitionTime?: string }

/** Reactions of one release: `events` are the namespace's audit events of that release's window. */
export function reactions(events: readonly AuditEvent[]): { reactions: Reaction[]; problems: string[] } {
  const problems: string[] = [];
  const ours = events.filter((e) => e.user.username === ROLLOUTS_USER && e.objectRef?.resource === 'replicasets' && !e.objectRef.subresource);
  const created = ours.find((e) => e.verb === 'create' && (e.responseStatus?.code ?? 500) < 300);
  if (!created) return { reactions: [], problems: ['no ReplicaSet created by serverless-rollouts in the window'] };
  const target = created.objectRef?.name ?? (created.requestObject as { metadata?: { name?: string } } | undefined)?.metadata?.name ?? '';
  const scaleUps: { at: number; replicas: number }[] = [{ at: receivedMs(created), replicas: replicasIn(created) ?? 0 }];
  for (const e of ours) {
    if (e === created || e.objectRef?.name !== target || (e.responseStatus?.code ?? 500) >= 300) continue;
    const replicas = replicasIn(e);
    const last = scaleUps[scaleUps.length - 1] as { replicas: number };
    if (replicas !== undefined && replicas > last.replicas) scaleUps.push({ at: receivedMs(e), replicas });
  }
  const readyAt = events
    .filter((e) => component(e) === 'kwok' && e.objectRef?.subresource === 'status' && e.objectRef.resource === 'pods' && podOwner(e.objectRef.name ?? '') === target)
    .map((e) => readyTransition(e))
    .filter((t): t is number => t !== null)
    .sort((a, b) => a - b);
  const statusWrites = events
    .filter((e) => component(e) === 'replicaset-controller' && e.objectRef?.resource === 'replicasets' && e.objectRef.subresource === 'status' && e.objectRef.name === target)
    .map(receivedMs)
    .sort((a, b) => a - b);

  const out: Reaction[] = [];
  for (let j = 1; j < scaleUps.length; j += 1) {
    const prev = scaleUps[j - 1] as { at: number; replicas: number };
    const next = scaleUps[j] as { at: number; replicas: number };
    const ready = readyAt[prev.replicas - 1];
    if (ready === undefined || ready > next.at) {
      problems.push(`batch of ${prev.replicas} pods: its last pod's Ready is ${ready === undefined ? 'not in the log' : 'after the next patch'}`);
      continue;
    }
    const status = statusWrites.find((t) => t >= ready && t <= next.at) ?? NaN;
    out.push({ from: prev.replicas, to: next.replicas, totalMs: next.at - ready, kubeMs: status - ready, oursMs: next.at - status });
  }
  return { reactions: out, problems };
}

function replicasIn(e: AuditEvent): number | undefined {
  const replicas = (e.requestObject as { spec?: { replicas?: unknown } } | undefined)?.spec?.replicas;
  return typeof replicas === 'number' ? replicas : undefined;
}

/** A ReplicaSet's pods are named `<replicaset>-<5 characters>`. */
function podOwner(pod: string): string {
  return pod.slice(0, pod.lastIndexOf('-'));
}

/** The Ready=True transition time kwok wrote (full precision in the request body), or null. */
function readyTransition(e: AuditEvent): number | null {
  const conditions = (e.requestObject as { status?: { conditions?: Condition[] } } | undefined)?.status?.conditions ?? [];
  const ready = conditions.find((c) => c.type === 'Ready' && c.status === 'True');
  return ready?.lastTransitionTime ? auditMs(ready.lastTransitionTime) : null;
}
