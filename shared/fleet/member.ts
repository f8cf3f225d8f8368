// A fleet's members: how they are named, the Rollout each one is (the fleet's per-cluster policy with
// the cluster's own time zone), and what a fleet reads in a member's STATE.
//
// "Observed on its cluster" (docs/fleet.md): a member's STATE is written only by its own reconcile,
// in a pass that observed its cluster. A member has completed fleet release F when that STATE's
// lastRelease is a release that ran under a permit of F (its ref, which names F's start instant, so
// no earlier release and no earlier incarnation of the fleet can pass for it) and ended Completed:
// its workload's own controller reported the rollout complete. A status left from before F cannot
// name F, so a stale member state never opens a wave.
import type { Cause } from '../rollout/cause.ts';
import type { ReleaseState, RolloutKey, RolloutSpec } from '../rollout/types.ts';
import { DEFAULT_CLUSTER_TIME_ZONE, type ClusterInfo } from './clusters.ts';
import type { FleetSpec } from './types.ts';

/** A member Rollout has the fleet's name, in the workload's namespace, in its cluster: `rollouts list` shows it so. */
export function memberKey(spec: FleetSpec, cluster: string): RolloutKey {
  return { cluster, namespace: spec.workload.namespace, name: spec.name };
}

/** The member Rollout of `cluster`, as the fleet applies it. */
export function memberSpec(spec: FleetSpec, cluster: ClusterInfo, wave: string | null): RolloutSpec {
  const zone = cluster.timeZone ?? DEFAULT_CLUSTER_TIME_ZONE;
  return {
    ...structuredClone(spec.member),
    ...memberKey(spec, cluster.name),
    windows: spec.windows.map((w) => ({ days: [...w.days], start: w.start, end: w.end, timeZone: w.timeZone ?? zone })),
    fleet: { name: spec.name, wave },
  };
}

/** What a member did under one fleet release, read from its STATE. */
export type MemberProgress =
  | 'none' | 'permitted' | 'releasing' | 'completed' | 'failed' | 'rolling-back' | 'rolled-back' | 'no-change' | 'refused' | 'stale';

export interface MemberView {
  /** It has a STATE and has adopted its workload: a permit can do something. */
  ready: boolean;
  progress: MemberProgress;
  /** The id of the last permit of this fleet release it consumed (its record), null when none. */
  permitId: string | null;
  /** A release of it runs under the fleet release (frozen by a failure, rolling back, or moving). */
  active: boolean;
  /** A template it holds that its fleet has not permitted (a GitOps sync, kubectl, a permit's lapsed change). */
  held: { revision: string; images: Record<string, string> | null; since: string } | null;
  stableImages: Record<string, string> | null;
  /** Since when its cluster is unreachable, as its own reconcile recorded it; null when reachable. */
  unreachableSince: string | null;
  degraded: boolean;
  /** Paused by a command (its own, or its fleet's). */
  paused: boolean;
  /** Its one-line reason and cause, as it says them. */
  message: string;
  cause: Cause | null;
}

export const MISSING_MEMBER: MemberView = {
  ready: false, progress: 'none', permitId: null, active: false, held: null, stableImages: null, unreachableSince: null, degraded: false, paused: false,
  message: 'the member rollout has no state yet', cause: null,
};

/** A member's STATE read for fleet release `ref` (FleetRelease.ref; null when none runs). */
export function viewMember(s: ReleaseState | null, ref: string | null): MemberView {
  if (s === null) return MISSING_MEMBER;
  const rel = s.release;
  const held = rel && rel.kind === 'release' && !rel.permit ? { revision: rel.targetRevision, images: rel.images ?? null, since: rel.startedAt } : null;
  return {
    ready: s.stableRevision !== null || rel !== null,
    progress: ref === null ? 'none' : progressUnder(s, ref),
    permitId: ref !== null && s.permit?.fleetRelease === ref ? s.permit.id : null,
    active: ref !== null && rel?.permit?.fleetRelease === ref,
    held,
    stableImages: s.stableImages ?? null,
    unreachableSince: s.cause?.kind === 'ClusterUnreachable' ? (s.cause.since ?? null) : null,
    degraded: s.phase === 'Degraded',
    paused: s.userPaused,
    message: s.message,
    cause: s.cause ?? null,
  };
}

function progressUnder(s: ReleaseState, ref: string): MemberProgress {
  const rel = s.release;
  if (rel?.permit?.fleetRelease === ref) {
    if (rel.kind === 'release') return rel.failure !== null ? 'failed' : 'releasing';
    return rel.endPhase === 'Failed' ? 'failed' : 'rolling-back';
  }
  const last = s.lastRelease;
  if (last?.permit?.fleetRelease === ref) {
    if (last.kind === 'release') return last.endPhase === 'Completed' && s.stableRevision === last.targetRevision ? 'completed' : 'failed';
    return last.endPhase === 'Failed' ? 'failed' : 'rolled-back';
  }
  const p = s.permit;
  if (p?.fleetRelease !== ref) return 'none';
  switch (p.status) {
    case 'Applied':
      return 'permitted';
    case 'Bound':
      // Bound, with no release of it left: it ended in a way the member no longer records (its STATE was restored).
      return 'stale';
    case 'NoChange':
      return 'no-change';
    case 'Refused':
      return 'refused';
    case 'Stale':
      return 'stale';
    case 'Revoked':
      return rel && rel.kind !== 'release' ? 'rolling-back' : 'rolled-back';
  }
}
