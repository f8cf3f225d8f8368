// The whole `rollouts get` screen: a header (kubectl-argo-rollouts' fields), the steps with the
// current one marked, then the revision tree of the live workload. Pure: a snapshot and a time in,
// text out, so --watch re-renders the same way and tests compare exact text.
import type { GetResponse } from '../../api/types.ts';
import type { WorkloadResponse, WorkloadRevision } from '../../api/workloadRoutes.ts';
import { stepTarget } from '../../rollout/arithmetic.ts';
import { revisionTags } from '../../client/progress.ts';
import { renderSteps } from './stepList.ts';
import { factsOfState, rolloutStatus } from '../../client/status.ts';
import { renderTree } from './workloadTree.ts';

export interface RolloutSnapshot {
  rollout: GetResponse;
  workload: WorkloadResponse | null;
  /** Why there is no workload: a deployed API without cluster access (503), a cluster error. */
  workloadError: string | null;
  fetchedAt: Date;
}

const LABEL_WIDTH = 17;

function field(label: string, value: string, indent = ''): string {
  return `${`${indent}${label}:`.padEnd(LABEL_WIDTH)}${value}`;
}

function percent(part: number, total: number): string {
  return total === 0 ? '0%' : `${Math.round((part / total) * 100)}%`;
}

function imagesText(r: WorkloadRevision): string {
  return Object.entries(r.images).map(([c, img]) => (Object.keys(r.images).length > 1 ? `${c}=${img}` : img)).join(', ');
}

function header(s: RolloutSnapshot): string[] {
  const { rollout: key, spec, state } = s.rollout;
  const rel = state.release;
  const w = s.workload;
  const lines = [
    field('Name', key.name),
    field('Namespace', key.namespace),
    field('Cluster', key.cluster),
    field('Status', rolloutStatus(factsOfState(state, spec)).text),
    field('Message', state.message || '-'),
    field('Workload', `${spec.workloadRef.kind} ${spec.workloadRef.name}`),
    field('Strategy', 'Canary (batches)'),
  ];
  // The replicas the current batch was computed for, as the history counts them: after a scale the
  // batch restarts against the new count (shared/rollout/progression.ts), and until then the live
  // count is not what the batch asks.
  const total = rel?.observedReplicas ?? w?.replicas ?? null;
  if (rel?.kind === 'release') {
    lines.push(field('Step', `${rel.stepIndex + 1}/${spec.steps.length}`, '  '));
    if (total !== null && spec.steps[rel.stepIndex]) {
      const want = rel.finalizing ? total : stepTarget(spec, rel.stepIndex, total);
      lines.push(field('SetWeight', `${percent(want, total)} (${want}/${total} pods)`, '  '));
    }
  } else if (state.phase === 'Completed' && state.lastRelease?.kind === 'release') {
    lines.push(field('Step', `${spec.steps.length}/${spec.steps.length}`, '  '));
  }
  const byId = new Map((w?.revisions ?? []).map((r) => [r.id, r]));
  const target = rel ? byId.get(rel.targetRevision) : undefined;
  // Available pods of the new revision, what the history's "N of M pods on the new revision and available" counts.
  if (rel?.kind === 'release' && w && target && total !== null) lines.push(field('ActualWeight', `${percent(target.available, total)} (${target.available}/${total} pods available)`, '  '));
  const tags = revisionTags(state);
  const tagged = Object.entries(tags).flatMap(([id, tag]) => (byId.has(id) ? [`${imagesText(byId.get(id) as WorkloadRevision)} (${tag})`] : []));
  tagged.forEach((t, i) => lines.push(i === 0 ? field('Images', t) : `${''.padEnd(LABEL_WIDTH)}${t}`));
  // A revision as the user can find it: its number and its ReplicaSet (or the holder kind's own
  // revision object), never the bare hash, which names no object kubectl shows.
  const revision = (id: string | null | undefined): string => {
    const r = id ? byId.get(id) : undefined;
    if (!id) return '-';
    if (r !== undefined) return `${r.number} (${r.holder})`;
    // The release's revision before its ReplicaSet exists (the Partition strategy creates it with the first batch).
    return w ? `${id} (no ${w.holderKind} yet)` : id;
  };
  if (rel) {
    lines.push('Revisions:', field(rel.kind === 'release' ? 'Stable' : 'From', revision(rel.stableRevision), '  '), field('Target', revision(rel.targetRevision), '  '));
  } else {
    lines.push(field('Revision', revision(state.stableRevision)));
  }
  if (w) {
    const sum = (f: (r: WorkloadRevision) => number): number => w.revisions.reduce((n, r) => n + f(r), 0);
    const updated = target ?? w.revisions.find((r) => r.id === state.stableRevision);
    lines.push(
      'Replicas:',
      field('Desired', String(w.replicas), '  '),
      field('Current', String(sum((r) => r.current)), '  '),
      field('Updated', String(updated?.current ?? 0), '  '),
      field('Ready', String(sum((r) => r.ready)), '  '),
      field('Available', String(sum((r) => r.available)), '  '),
    );
  }
  return lines;
}

export function renderRollout(s: RolloutSnapshot, now: Date): string {
  const { spec, state } = s.rollout;
  const parts = [header(s).join('\n'), renderSteps(spec, state, state.release?.observedReplicas ?? s.workload?.replicas ?? null, now)];
  if (s.workload) {
    const elapsedSeconds = Math.max(0, Math.floor((now.getTime() - s.fetchedAt.getTime()) / 1000));
    parts.push(renderTree({ name: spec.name, status: rolloutStatus(factsOfState(state, spec)).text, workload: s.workload, tags: revisionTags(state), elapsedSeconds }));
  } else if (s.workloadError) {
    parts.push(`(no revision tree: ${s.workloadError})`);
  }
  return `${parts.join('\n\n')}\n`;
}
