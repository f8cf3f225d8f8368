// Response views derived from the stored SPEC and STATE. Pure: what the list, status and get routes
// show is a function of the two items, so the CLI's `status` polling sees exactly what reconcile wrote.
import type { StoredSpec, StoredState } from '../ports.ts';
import type { ReleaseState, RolloutKey, RolloutSpec } from '../rollout/types.ts';
import type { RolloutSummary, StatusResponse, StepSummary } from './types.ts';

function keyOf(spec: RolloutSpec): RolloutKey {
  return { cluster: spec.cluster, namespace: spec.namespace, name: spec.name };
}

function stepOf(spec: RolloutSpec, state: ReleaseState): StepSummary | null {
  const rel = state.release;
  if (!rel) return null;
  // A rollback/undo runs one implicit 100% step, not the spec's steps.
  const total = rel.kind === 'release' ? spec.steps.length : 1;
  return { index: rel.stepIndex, total, state: rel.stepState };
}

export function rolloutSummary(spec: RolloutSpec, state: ReleaseState): RolloutSummary {
  return {
    rollout: keyOf(spec),
    workload: { kind: spec.workloadRef.kind, name: spec.workloadRef.name },
    phase: state.phase,
    paused: state.userPaused || spec.paused,
    message: state.message,
    cause: state.cause ?? null,
    step: stepOf(spec, state),
    releaseId: state.release?.id ?? state.lastRelease?.id ?? null,
  };
}

export function statusView(stored: StoredSpec, current: StoredState): StatusResponse {
  const { spec } = stored;
  const s = current.state;
  const rel = s.release;
  const last = s.lastRelease;
  return {
    rollout: keyOf(spec),
    phase: s.phase,
    message: s.message,
    cause: s.cause ?? null,
    step: stepOf(spec, s),
    release: rel
      ? { id: rel.id, kind: rel.kind, stableRevision: rel.stableRevision, targetRevision: rel.targetRevision, startedAt: rel.startedAt, failure: rel.failure, finalizing: rel.finalizing }
      : null,
    lastRelease: last ? { id: last.id, kind: last.kind, endPhase: last.endPhase } : null,
    releaseId: rel?.id ?? last?.id ?? null,
    revisions: { stable: rel?.stableRevision ?? s.stableRevision, target: rel?.targetRevision ?? null },
    paused: { user: s.userPaused, spec: spec.paused },
    pendingCommands: s.commands.map((c) => ({ id: c.id, type: c.type })),
    removing: s.removing,
    nextWakeAt: s.nextWakeAt,
    specVersion: stored.specVersion,
    version: current.version,
    // requestedBy: a release command changed the template and the pass that starts its release is still to come.
    settled: current.version > 0 && s.stableRevision !== null && rel === null && s.commands.length === 0 && !s.requestedBy && !s.removing,
  };
}

/** A delete is recorded or under way: further commands would act on a rollout that is going away. */
export function isBeingDeleted(state: ReleaseState): boolean {
  return state.removing || state.commands.some((c) => c.type === 'delete');
}
