// What the Deployment controller gives each ReplicaSet when a RollingUpdate Deployment with more
// than one active ReplicaSet is scaled (kubernetes pkg/controller/deployment/sync.go, scale(),
// getProportion(), getReplicaSetFraction(); the facts, re-expressed):
//  - allowed size = N + maxSurge (0 when N is 0); to add = allowed size − Σ spec.replicas of the
//    active ReplicaSets (spec.replicas > 0);
//  - scaling up, the ReplicaSets are taken largest first, newer first on a tie; scaling down,
//    largest first, older first on a tie;
//  - each one's fraction is round(spec · (N + maxSurge) / its max-replicas annotation) − spec
//    (the annotation is N + maxSurge as of its last scale; without it the Deployment's
//    status.replicas), or −spec when N is 0; Go's rounding: half away from zero;
//  - each one gets min(fraction, what is left to add) scaling up, max(…) scaling down (0 once all
//    is added); the leftover goes to the first one, never below 0.
// The invariant watchers' approval gates follow it (bench/testbed/approvalCaps.ts): after 5 → 3 → 5
// a 1-pod batch beside 4 old pods has 2, not 3 (NB-5 in test/integration/native.behaviour.test.ts
// checks this port against the real controller).

export interface ScaledReplicaSet {
  name: string;
  replicas: number;
  /** deployment.kubernetes.io/max-replicas, when the ReplicaSet has it. */
  maxReplicas?: number;
  /** creationTimestamp in ms (the tie-break). */
  createdAt: number;
}

export interface ScaledDeployment {
  replicas: number;
  /** maxSurge resolved against replicas (the live Deployment's). */
  maxSurge: number;
  /** status.replicas (the fallback of a missing annotation). */
  statusReplicas: number;
}

/** The size of each active ReplicaSet after the controller's proportional scale, by name. */
export function proportionalSizes(rss: ScaledReplicaSet[], d: ScaledDeployment): Map<string, number> {
  const active = rss.filter((rs) => rs.replicas > 0);
  const allowedSize = d.replicas > 0 ? d.replicas + d.maxSurge : 0;
  const toAdd = allowedSize - active.reduce((n, rs) => n + rs.replicas, 0);
  const sizes = new Map(active.map((rs) => [rs.name, rs.replicas]));
  if (toAdd === 0) return sizes;
  const ordered = [...active].sort((a, b) => b.replicas - a.replicas || (toAdd > 0 ? b.createdAt - a.createdAt : a.createdAt - b.createdAt));
  let added = 0;
  for (const rs of ordered) {
    const proportion = proportionOf(rs, d, toAdd, added);
    sizes.set(rs.name, rs.replicas + proportion);
    added += proportion;
  }
  const first = ordered[0];
  if (first) sizes.set(first.name, Math.max(0, (sizes.get(first.name) as number) + toAdd - added));
  return sizes;
}

function proportionOf(rs: ScaledReplicaSet, d: ScaledDeployment, toAdd: number, added: number): number {
  if (rs.replicas === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = fractionOf(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

function fractionOf(rs: ScaledReplicaSet, d: ScaledDeployment): number {
  if (d.replicas === 0) return -rs.replicas;
  const annotated = rs.maxReplicas ?? d.statusReplicas;
  return goRound((rs.replicas * (d.replicas + d.maxSurge)) / annotated) - rs.replicas;
}

/** Go's math.Round: half away from zero. */
function goRound(x: number): number {
  return Math.sign(x) * Math.round(Math.abs(x));
}
