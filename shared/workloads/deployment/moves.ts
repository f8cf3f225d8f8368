// The next increment of pod moves toward a desired distribution, honouring the Deployment's own
// maxSurge/maxUnavailable inside one batch: after an increment the total is never above
// N + maxSurge, and scale-downs never take availability below N − maxUnavailable. Pure; called on
// every reconcile with fresh observations (level-based).

export interface RevisionReplicas {
  id: string;
  /** spec.replicas of the ReplicaSet. */
  desired: number;
  /** status.availableReplicas of the ReplicaSet. */
  available: number;
}

export interface MoveInput {
  total: number;
  maxSurge: number;
  maxUnavailable: number;
  target: string;
  /** The revision that is kept for the rest of the pods (scaled back up after an HPA scale-up). */
  stable: string | null;
  revisions: RevisionReplicas[];
  /** Desired pods per revision; absent = 0. */
  distribution: Record<string, number>;
}

/** New spec.replicas per revision id, for the revisions that change in this increment (a missing target is always included). */
export function nextMoves(input: MoveInput): Map<string, number> {
  const { total, maxSurge, maxUnavailable, target, stable } = input;
  const revisions = input.revisions.some((r) => r.id === target)
    ? input.revisions
    : [...input.revisions, { id: target, desired: 0, available: 0 }];
  const distribution = keepTarget(input.distribution, target, stable, revisions, total + maxSurge, total);
  const want = (id: string) => distribution[id] ?? 0;
  const next = new Map(revisions.map((r) => [r.id, r.desired]));

  // Scale down first, within the availability budget. Pods beyond a ReplicaSet's spec are already
  // going away, so only min(available, desired) counts as available; not-ready pods go first
  // (ReplicaSet controller order), so removing them is free; every ready pod removed spends budget.
  let budget = sum(revisions.map((r) => Math.min(r.available, r.desired))) - (total - maxUnavailable);
  const downOrder = [...revisions].sort((a, b) => downRank(a.id) - downRank(b.id));
  for (const r of downOrder) {
    const excess = r.desired - want(r.id);
    if (excess <= 0) continue;
    const free = Math.min(excess, Math.max(0, r.desired - r.available));
    const paid = Math.min(excess - free, Math.max(0, budget));
    budget -= paid;
    if (free + paid > 0) next.set(r.id, r.desired - free - paid);
  }

  // Then scale up (the batch's new pods, stable pods after an HPA scale-up) into the room left under
  // N + maxSurge. Downs and ups of one increment are a swap: the caller writes the ups first, because
  // a lone active ReplicaSet is resized to spec.replicas by the native controller, paused or not —
  // scaling the old one down before the new one has pods would be undone (found by property tests).
  let room = total + maxSurge - sum([...next.values()]);
  const upOrder = [...revisions].sort((a, b) => rank(a.id) - rank(b.id));
  for (const r of upOrder) {
    const current = next.get(r.id) ?? r.desired;
    const up = Math.min(want(r.id) - current, Math.max(0, room));
    if (up <= 0) continue;
    next.set(r.id, current + up);
    room -= up;
  }

  // Report what changes; a target with no ReplicaSet yet is always reported (it must be created).
  const changes = new Map<string, number>();
  for (const r of revisions) {
    const before = input.revisions.find((x) => x.id === r.id);
    const after = next.get(r.id) ?? r.desired;
    if (before === undefined || after !== before.desired) changes.set(r.id, after);
  }
  return changes;

  /** Target first, then stable, then anything else. */
  function rank(id: string): number {
    return id === target ? 0 : id === stable ? 1 : 2;
  }
  /** Abandoned revisions go first, stable next, the target last. */
  function downRank(id: string): number {
    return id === target ? 2 : id === stable ? 1 : 0;
  }
}

/**
 * The target is never scaled down (Kruise: a batch never moves backwards): when it already has more
 * pods than the distribution asks (the native controller moved ahead while someone resumed the
 * Deployment), it keeps them, up to N, and the stable revision gives up as many. Only a scale-down of
 * the workload (more pods asked for than N + maxSurge) shrinks it, to its proportional share.
 */
function keepTarget(distribution: Record<string, number>, target: string, stable: string | null, revisions: RevisionReplicas[], allowed: number, total: number): Record<string, number> {
  const asked = distribution[target] ?? 0;
  const current = revisions.find((r) => r.id === target)?.desired ?? 0;
  const all = sum(revisions.map((r) => r.desired));
  const kept = all > allowed ? Math.ceil((current * total) / all) : Math.min(total, current);
  if (kept <= asked) return distribution;
  const out = { ...distribution, [target]: kept };
  if (stable !== null) out[stable] = Math.max(0, Math.min(distribution[stable] ?? 0, total - kept));
  return out;
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
