// The mutable working copy one `plan` call builds up: the next state, the actions, the events and
// the wake-ups. Kept separate so the planner's steps (commands, detection, progression) share it.
import { EVENT, rolloutEvent, type EventType } from './events.ts';
import type { Invocation } from './checkTypes.ts';
import type { Action, Release, ReleaseKind, ReleaseState, RolloutSpec, WorkloadView } from './types.ts';

/** A batch only someone else can move: the workload's own pause, the user's deletions (Manual OnDelete), a pod hook, the router. */
export interface Waiting {
  kind: 'WorkloadPaused' | 'ManualDeletion' | 'Hook' | 'Traffic' | 'TimedPause';
  text: string;
  /** What it waits on when it is not the workload itself (the pod of a hook). */
  object?: string;
}

/** The soonest a requeue asks for: never a busy loop. */
const MIN_REQUEUE_SECONDS = 0.1;

export class Draft {
  readonly state: ReleaseState;
  readonly actions: Action[] = [];
  /** Actions requested by commands (template changes); applied after the hold is in place. */
  readonly commandActions: Action[] = [];
  /** Hook and gate calls due now (hooks.ts, gates.ts). */
  readonly invocations: Invocation[] = [];
  readonly events: ReturnType<typeof rolloutEvent>[] = [];
  private readonly wakeTimes: number[] = [];
  requeueSeconds: number | null = null;
  /** What the current batch waits for when only someone else can move it (the reason says so); null otherwise. */
  waiting: Waiting | null = null;

  constructor(
    readonly spec: RolloutSpec,
    state: ReleaseState,
    readonly view: WorkloadView,
    readonly now: Date,
  ) {
    this.state = structuredClone(state);
  }

  get release(): Release | null {
    return this.state.release;
  }

  /** The command being applied: the events it causes carry its id. */
  commandId: string | null = null;

  /**
   * Record a transition; `by` names the principal when a command caused it. It belongs to the
   * running release (else the last one) unless `releaseId` names another.
   */
  emit(type: EventType, message: string, by: string | null = null, releaseId?: string): void {
    const rel = this.state.release;
    this.events.push(
      rolloutEvent(this.spec, type, {
        releaseId: releaseId ?? rel?.id ?? this.state.lastRelease?.id ?? null,
        phase: this.state.phase,
        stepIndex: rel ? rel.stepIndex : null,
        message,
        at: this.now,
        by,
        commandId: by === null ? null : this.commandId,
      }),
    );
  }

  /** Persisted wake-up candidate (timed pause end, deadline, window opening, scheduled start). */
  wakeAt(at: Date): void {
    if (at.getTime() > this.now.getTime()) this.wakeTimes.push(at.getTime());
  }

  /** Ephemeral: ask to be run again soon while something is moving. */
  requeue(seconds: number): void {
    this.requeueSeconds = this.requeueSeconds === null ? seconds : Math.min(this.requeueSeconds, seconds);
  }

  /** Ephemeral: run again at `at` (at least a moment from now), e.g. when a pod turns Available. */
  requeueAt(at: Date): void {
    this.requeue(Math.max(MIN_REQUEUE_SECONDS, (at.getTime() - this.now.getTime()) / 1000));
  }

  earliestWake(): string | null {
    return this.wakeTimes.length === 0 ? null : new Date(Math.min(...this.wakeTimes)).toISOString();
  }

  /** The id the next release started without an id of its own gets (startRelease). */
  nextReleaseId(): string {
    return `r${this.state.releaseSeq + 1}`;
  }

  /** Begin a new release (or a rollback/undo, which are releases with a single implicit 100% step). */
  startRelease(kind: ReleaseKind, target: string, stable: string, opts: { id?: string; endPhase?: Release['endPhase'] } = {}): Release {
    const s = this.state;
    const replaced = s.release;
    if (replaced && replaced.id !== opts.id) {
      // The release this one replaces (a new template mid-release, an undo during a rollback) ends
      // here with the reason, so every release has exactly one end in the history.
      this.emit(EVENT.ReleaseSuperseded, `${replaced.kind} ${replaced.id} of revision ${replaced.targetRevision} ended: replaced mid-release by ${kind === 'release' ? 'a release' : `an ${kind}`} of revision ${target}`);
    }
    let id = opts.id;
    if (id === undefined) {
      id = this.nextReleaseId();
      s.releaseSeq += 1;
    }
    const notBefore = kind === 'release' ? latest(this.spec.startAt, s.scheduledStartAt) : null;
    // Who asked for the release travels with it (the four-eyes rule compares approvers against it).
    const requestedBy = kind === 'release' ? (s.requestedBy ?? null) : (s.release?.requestedBy ?? null);
    if (kind === 'release') {
      s.scheduledStartAt = null;
      s.requestedBy = null;
    }
    s.refusal = null;
    const now = this.now.toISOString();
    const release: Release = {
      id,
      kind,
      stableRevision: stable,
      targetRevision: target,
      stepIndex: 0,
      stepState: 'Upgrading',
      stepStartedAt: now,
      stepReadyAt: null,
      observedReplicas: this.view.replicas,
      startedAt: now,
      notBefore,
      finalizing: kind !== 'release',
      failure: null,
      gated: false,
      endPhase: opts.endPhase ?? 'Completed',
      templateSet: kind === 'release' || this.view.templateRevision === target,
      // What the workload carries wins (the truth after a lost STATE), then the release this one
      // replaces (an abort keeps its strategy), then the spec.
      strategy: this.view.strategy ?? s.release?.strategy ?? this.spec.deploymentStrategy ?? null,
      requestedBy,
      // A fleet member's abort or automatic rollback keeps the permit of the release it ends, so its
      // fleet knows the rollback for its own; and the fleet compares what members release by images.
      ...(replaced?.permit && replaced.id === opts.id ? { permit: replaced.permit } : {}),
      ...(this.spec.fleet ? { images: imagesOf(this.view, target) } : {}),
      ...(this.view.pods ? { podsAtStart: this.view.pods.filter((p) => p.revision === target).map((p) => p.name).sort() } : {}),
    };
    s.release = release;
    return release;
  }
}

/** The images of a revision as the view knows them: the live template's for its own revision. */
export function imagesOf(view: WorkloadView, revision: string): Record<string, string> {
  const known = revision === view.templateRevision ? view.templateImages : undefined;
  return { ...(known ?? view.revisions.find((r) => r.id === revision)?.images) };
}

function latest(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return Date.parse(a) >= Date.parse(b) ? a : b;
}
