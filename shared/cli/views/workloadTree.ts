// The revision → ReplicaSet → pods tree of `rollouts get`, in kubectl-argo-rollouts' layout:
//   NAME                          KIND        STATUS         AGE  INFO
//   ↻ web                         Rollout     ◌ Progressing
//   ├──# revision:2
//   │  └──◫ web-7b5c9d8f6c        ReplicaSet  ◌ Progressing  8s   canary
//   │     └──□ web-7b5c9d8f6c-4x  Pod         ✔ Running      7s   ready:1/1
// (Argo's ⟳ and ⧉ are not in common monospace fonts: shared/client/symbols.ts.)
import type { WorkloadPod, WorkloadResponse, WorkloadRevision } from '../../api/workloadRoutes.ts';
import { formatTable } from '../table.ts';
import { ICON, TREE_ICON, formatAge } from '../../client/symbols.ts';

export interface TreeInput {
  name: string;
  status: string;
  workload: WorkloadResponse;
  /** Revision id → tag (stable, canary). */
  tags: Record<string, string>;
  /** Seconds to add to every age (time since the workload was fetched, in --watch). */
  elapsedSeconds: number;
}

export function replicaSetStatus(r: WorkloadRevision): string {
  if (r.desired === 0 && r.current === 0) return `${ICON.neutral} ScaledDown`;
  if (r.current === r.desired && r.ready >= r.desired && r.available >= r.desired) return `${ICON.ok} Healthy`;
  return `${ICON.progressing} Progressing`;
}

export function podStatus(p: WorkloadPod): string {
  if (p.reason === 'Terminating') return `${ICON.progressing} Terminating`;
  if (p.phase === 'Running' && p.ready) return `${ICON.ok} Running`;
  if (p.phase === 'Running') return `${ICON.warning} not ready`;
  if (p.phase === 'Pending') {
    const reason = p.reason ?? 'Pending';
    return /BackOff|Err|Invalid/.test(reason) ? `${ICON.warning} ${reason}` : `${ICON.progressing} ${reason}`;
  }
  if (p.phase === 'Succeeded') return `${ICON.neutral} Completed`;
  if (p.phase === 'Failed') return `${ICON.bad} ${p.reason ?? 'Failed'}`;
  return `${ICON.unknown} ${p.reason ?? p.phase}`;
}

export function renderTree(t: TreeInput): string {
  const rows: string[][] = [['NAME', 'KIND', 'STATUS', 'AGE', 'INFO'], [`${TREE_ICON.rollout} ${t.name}`, 'Rollout', t.status, '', '']];
  const age = (s: number): string => formatAge(s + t.elapsedSeconds);
  const holder = t.workload.holderKind;
  t.workload.revisions.forEach((r, i) => {
    const lastRevision = i === t.workload.revisions.length - 1;
    const branch = lastRevision ? '└──' : '├──';
    const under = lastRevision ? '   ' : '│  ';
    rows.push([`${branch}# revision:${r.number}`, '', '', '', '']);
    rows.push([`${under}└──${TREE_ICON.replicaSet} ${r.holder}`, holder, replicaSetStatus(r), age(r.ageSeconds), t.tags[r.id] ?? '']);
    r.pods.forEach((p, j) => {
      const pod = j === r.pods.length - 1 ? '└──' : '├──';
      const info = [`ready:${p.readyContainers}/${p.containers}`, ...(p.restarts > 0 ? [`restarts:${p.restarts}`] : [])].join(',');
      rows.push([`${under}   ${pod}${TREE_ICON.pod} ${p.name}`, 'Pod', podStatus(p), age(p.ageSeconds), info]);
    });
  });
  return formatTable(rows).split('\n').map((l) => l.trimEnd()).join('\n');
}
