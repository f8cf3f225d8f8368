// The one-line reason of a rollout (ReleaseState.message) and its structured cause, composed by the
// planner from the state and the driver's view: which pod blocks and why, the budget holding a
// batch, the approval and since when, the pause and until when, the window and when it opens.
// Derived from the state and what the view names, never from bare pod counts, so a pass that sees
// the same blocker rewrites nothing. Countdowns ("42s left") are drawn by the viewers from `until`.
import type { Blocker, Cause, CauseKind } from './cause.ts';
import { stepTarget } from './arithmetic.ts';
import { isWindowOpen, nextOpeningWindow, wallClockLabel, WINDOW_SEARCH_DAYS } from './windows.ts';
import type { Release, ReleaseState, RolloutSpec, WorkloadView } from './types.ts';
import type { Waiting } from './draft.ts';
import { analysisText } from './gates.ts';
import { isHeldForFleet } from './fleetGate.ts';

export interface Reason {
  message: string;
  cause: Cause | null;
}

/** An ordinary start-up state of a pod (ContainerCreating, Running but not Ready) is named once it lasts this long. */
export const TRANSIENT_BLOCKER_GRACE_SECONDS = 20;

export function explain(spec: RolloutSpec, s: ReleaseState, view: WorkloadView, now: Date, waiting: Waiting | null = null): Reason {
  const rel = s.release;
  const workload = workloadObject(spec);
  if (s.removing) return reason('deleting: handing the workload back to its native controller', cause('Deleting', workload, 'handing the workload back to its native controller'));
  if (spec.paused) return reason('paused by spec.strategy.paused', cause('Paused', 'spec.strategy.paused', 'set spec.strategy.paused to false to go on'));
  if (s.userPaused) {
    const what = rel ? `paused at step ${rel.stepIndex + 1}/${spec.steps.length}` : 'paused: the next release will wait for resume';
    return reason(what, cause('Paused', 'rollouts pause', `rollouts resume ${spec.name} goes on`));
  }
  if (!rel) {
    if (s.refusal) return reason(s.refusal, cause('Failed', 'release', s.refusal));
    const last = s.lastRelease;
    if (!last) return reason(s.stableRevision ? `stable at revision ${s.stableRevision}` : 'waiting for the workload to finish its native rollout', null);
    // A release a gate, a hook or a pod timeout failed says why even once rolled back. The rollback
    // (which keeps the release's id) succeeded: the release failed, not the rollback.
    if (last.failedBecause && s.phase === 'Failed' && last.kind === 'rollback') return reason(`release ${last.id} failed, rolled back to revision ${s.stableRevision}: ${last.failedBecause.message}`, last.failedBecause.cause);
    if (last.failedBecause && s.phase === 'Failed') return reason(`${last.kind} ${last.id} failed: ${last.failedBecause.message}; stable at revision ${s.stableRevision}`, last.failedBecause.cause);
    return reason(`${last.kind} ${last.id} ${s.phase.toLowerCase()}: stable at revision ${s.stableRevision}`, null);
  }
  if (rel.failure) return reason(`failed: ${rel.failure}`, rel.failedBecause?.cause ?? cause('Failed', `step/${rel.stepIndex + 1}`, rel.failure, { since: failedAt(spec, rel) }));
  if (rel.kind !== 'release' || rel.finalizing) {
    const after = rel.failedBecause ? ` after: ${rel.failedBecause.message}` : '';
    const base = rel.kind === 'undo' ? `undo to revision ${rel.targetRevision}` : rel.kind === 'rollback' ? `rolling back to revision ${rel.targetRevision}${after}` : 'finishing: last pods moving, then handing back to the native controller';
    if (waiting !== null) return reason(`${rel.finalizing && rel.kind === 'release' ? 'finishing' : base}: ${waiting.text}`, cause(waiting.kind, waiting.object ?? workload, waiting.text));
    const pods = blockerReason(view, rel, now);
    if (pods) return reason(`${base}: ${pods.text}`, pods.cause);
    const settled = view.revisions.some((r) => r.id === rel.targetRevision && r.available === view.replicas && r.current === view.replicas);
    return reason(base, settled ? cause('Handover', workload, 'waiting for the native controller to report the rollout complete') : cause('PodsMoving', `revision/${rel.targetRevision}`, 'pods moving to the revision'));
  }
  if (isHeldForFleet(spec, rel) && spec.fleet) {
    const { name, wave } = spec.fleet;
    return reason(
      `held for fleet ${name}${wave ? ` (wave ${wave})` : ''}: revision ${rel.targetRevision} waits for the fleet to permit it (rollouts fleet get ${name})`,
      cause('Fleet', `fleet/${name}`, wave ? `wave ${wave}` : 'not in a wave yet', { since: rel.startedAt }),
    );
  }
  if (rel.notBefore && now.getTime() < Date.parse(rel.notBefore)) {
    const source = rel.notBefore === spec.startAt ? 'spec.startAt' : 'release --at';
    return reason(`scheduled: starts at ${instant(rel.notBefore)} (${source})`, cause('ScheduledStart', source, `not before ${instant(rel.notBefore)}`, { until: rel.notBefore }));
  }
  if (!isWindowOpen(spec.windows, now)) return windowReason(spec, now);
  const step = `step ${rel.stepIndex + 1}/${spec.steps.length}`;
  const stepObject = `step/${rel.stepIndex + 1}`;
  const pause = spec.steps[rel.stepIndex]?.pause;
  const readyAt = rel.stepReadyAt ?? rel.stepStartedAt;
  if (rel.stepState === 'StepPaused' && pause?.type === 'timed') {
    const until = new Date(Date.parse(readyAt) + pause.seconds * 1000).toISOString();
    return reason(`${step}: timed pause of ${pause.seconds}s until ${instant(until)}`, cause('TimedPause', stepObject, `pause of ${pause.seconds}s`, { since: readyAt, until }));
  }
  if (rel.stepState === 'StepPaused') {
    return reason(`${step}: awaiting approval since ${instant(readyAt)} (rollouts approve ${spec.name})`, cause('Approval', stepObject, `rollouts approve ${spec.name}`, { since: readyAt }));
  }
  if (rel.stepState === 'StepReady') return reason(`${step}: ready`, null);
  if (rel.stepState === 'Analyzing') {
    const a = analysisText(rel, spec.steps[rel.stepIndex]?.gates ?? []);
    return reason(`${step}: ${a.text}`, a.gate ? cause('Gate', `gate/${a.gate.name}`, a.gate.lastValue ?? 'first check pending', { since: readyAt }) : null);
  }
  if (waiting !== null) return reason(`${step}: ${waiting.text}`, cause(waiting.kind, waiting.object ?? workload, waiting.text, { since: rel.stepStartedAt }));
  const pods = blockerReason(view, rel, now);
  if (pods) return reason(`${step}: ${pods.text}`, pods.cause);
  if (rel.stepState === 'Upgrading' && budgetExhausted(view) && stepTarget(spec, rel.stepIndex, view.replicas) > targetDesired(view, rel)) {
    const budget = `maxSurge ${view.maxSurge}, maxUnavailable ${view.maxUnavailable}`;
    return reason(`${step}: the rollout budget (${budget}) holds the rest of the batch until new pods are available`, cause('Budget', workload, budget, { since: rel.stepStartedAt }));
  }
  const moving = rel.stepState === 'Upgrading' ? 'moving pods' : 'waiting for pods to be ready';
  return reason(`${step}: ${moving}`, cause('PodsMoving', `revision/${rel.targetRevision}`, moving, { since: rel.stepStartedAt }));
}

/** Degraded: the workload is gone, or its contract is broken (the first problem names the field or annotation). */
export function degradedReason(spec: RolloutSpec, view: WorkloadView, problems: string[], now: Date): Reason {
  const workload = workloadObject(spec);
  if (!view.exists) {
    const what = `${spec.workloadRef.kind} ${spec.namespace}/${spec.workloadRef.name} not found`;
    return reason(what, cause('WorkloadMissing', workload, 'not found', { since: now.toISOString() }));
  }
  const first = problems[0] ?? 'the workload breaks the contract';
  return reason(problems.join('; '), { ...cause('Contract', workload, first, { since: now.toISOString() }), field: fieldOf(first) });
}

/** The reason while the cluster cannot be reached; `since` survives repeated failures. */
export function unreachableReason(spec: RolloutSpec, previous: Cause | null | undefined, error: string, now: Date): Reason {
  const detail = oneLine(error);
  const since = previous?.kind === 'ClusterUnreachable' ? previous.since : now.toISOString();
  return reason(`cluster "${spec.cluster}" unreachable: ${detail}`, cause('ClusterUnreachable', `cluster/${spec.cluster}`, detail, { since }));
}

/**
 * The named blockers of the release's pods, as "web-7d9f-abc12: ImagePullBackOff (…)", or null
 * when none is worth naming yet. Used by the reason and by the failure text of a missed deadline.
 */
export function blockerReason(view: WorkloadView, rel: Release, now: Date): { text: string; cause: Cause } | null {
  const named = (view.blockers ?? []).filter((b) => !b.transient || ageSeconds(b.since, now) >= TRANSIENT_BLOCKER_GRACE_SECONDS);
  if (named.length === 0) return null;
  const [first] = [...named].sort(blockerOrder(rel.targetRevision));
  const b = first as Blocker;
  const detail = b.message ? `${b.reason} (${b.message})` : b.reason;
  const name = b.object.startsWith('pod/') ? b.object.slice('pod/'.length) : b.object;
  const more = named.length > 1 ? `; and ${named.length - 1} more` : '';
  return { text: `${name}: ${detail}${more}`, cause: cause(b.kind, b.object, detail, { since: b.since }) };
}

function windowReason(spec: RolloutSpec, now: Date): Reason {
  const next = nextOpeningWindow(spec.windows, now);
  if (!next) return reason(`outside the release windows; none opens in the next ${WINDOW_SEARCH_DAYS} days`, cause('Window', 'releaseWindows', `no opening within ${WINDOW_SEARCH_DAYS} days`));
  const index = spec.windows.indexOf(next.window);
  const w = next.window;
  const opens = next.at.toISOString();
  return reason(
    `outside the release windows; next opens at ${instant(opens)} (${wallClockLabel(next.at, w.timeZone)})`,
    cause('Window', `releaseWindows[${index}]`, `${w.days.join(',')} ${w.start}-${w.end} ${w.timeZone}`, { until: opens }),
  );
}

/** No room to add a pod (surge used up) nor to take one away (unavailability used up). */
function budgetExhausted(view: WorkloadView): boolean {
  const current = view.revisions.reduce((n, r) => n + r.current, 0);
  const available = view.revisions.reduce((n, r) => n + r.available, 0);
  return current >= view.replicas + view.maxSurge && available <= view.replicas - view.maxUnavailable;
}

function targetDesired(view: WorkloadView, rel: Release): number {
  return view.revisions.find((r) => r.id === rel.targetRevision)?.desired ?? 0;
}

const KIND_ORDER: Record<Blocker['kind'], number> = { PodUnschedulable: 0, ReplicaFailure: 1, PodNotReady: 2 };

/** Real problems first, then the release's own revision, the blocker kind, the oldest, the name. */
function blockerOrder(target: string): (a: Blocker, b: Blocker) => number {
  return (a, b) =>
    Number(a.transient) - Number(b.transient) ||
    Number(a.revision !== target) - Number(b.revision !== target) ||
    KIND_ORDER[a.kind] - KIND_ORDER[b.kind] ||
    (a.since ?? '\uffff').localeCompare(b.since ?? '\uffff') ||
    a.object.localeCompare(b.object);
}

function failedAt(spec: RolloutSpec, rel: Release): string | null {
  if (spec.progressDeadlineSeconds === null) return null;
  return new Date(Date.parse(rel.stepStartedAt) + spec.progressDeadlineSeconds * 1000).toISOString();
}

/** The field or annotation a contract problem names, as a path. */
export function fieldOf(problem: string): string | null {
  const annotation = /\bannotations? ([a-z0-9.-]+\/[A-Za-z0-9._-]+)/.exec(problem);
  if (annotation) return `metadata.annotations[${annotation[1]}]`;
  const field = /\b((?:spec|metadata)(?:\.[A-Za-z]+)+)/.exec(problem);
  return field ? (field[1] as string) : null;
}

function workloadObject(spec: RolloutSpec): string {
  return `${spec.workloadRef.kind.toLowerCase()}/${spec.workloadRef.name}`;
}

function ageSeconds(since: string | null, now: Date): number {
  const t = since === null ? Number.NaN : Date.parse(since);
  return Number.isNaN(t) ? 0 : (now.getTime() - t) / 1000;
}

/** ISO 8601 to the second: reasons are read by people. */
export function instant(iso: string): string {
  return iso.replace(/\.\d{3}Z$/, 'Z');
}

/** Kubernetes messages may span lines; a reason is one line of bounded length. */
export function oneLine(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

function reason(message: string, c: Cause | null): Reason {
  return { message, cause: c };
}

function cause(kind: CauseKind, object: string | null, detail: string, opts: { since?: string | null; until?: string | null } = {}): Cause {
  return { kind, object, field: null, detail, since: opts.since ?? null, until: opts.until ?? null };
}
