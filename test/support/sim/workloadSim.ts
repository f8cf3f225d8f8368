// A pure, in-memory stand-in for a held Deployment, used ONLY by planner unit tests: it applies the
// planner's actions the way the real driver and controllers would (moves with the real nextMoves
// arithmetic, pods become ready when settled) so scenarios and property tests can run thousands of
// plans with no I/O. Integration tests use the real control plane instead.
import { resolveRollingBudget } from '../../../shared/rollout/arithmetic.ts';
import type { Action, IntOrPercent, RevisionView, WorkloadView } from '../../../shared/rollout/types.ts';
import { nextMoves } from '../../../shared/workloads/deployment/moves.ts';

interface SimRevision { id: string; number: number; image: string; desired: number; current: number; ready: number }

export class WorkloadSim {
  replicas: number;
  template: string;
  held = false;
  revisions: SimRevision[] = [];
  /** Revisions whose pods never become ready. */
  readonly neverReady = new Set<string>();
  /** Contract problems the view reports (the rollout is Degraded while any is set). */
  problems: string[] = [];
  maxSurge: IntOrPercent = '25%';
  maxUnavailable: IntOrPercent = '25%';
  /** Lowest availability seen while pods moved, to check the maxUnavailable budget. */
  minAvailableSeen = Number.POSITIVE_INFINITY;
  private nativeDone = true;

  constructor(replicas: number, image = 'app:v1') {
    this.replicas = replicas;
    this.template = revisionOf(image);
    this.revisions.push({ id: this.template, number: 1, image, desired: replicas, current: replicas, ready: replicas });
  }

  setImage(image: string): void {
    this.template = revisionOf(image);
  }

  view(): WorkloadView {
    const budget = resolveRollingBudget(this.replicas, this.maxSurge, this.maxUnavailable);
    const revisions: RevisionView[] = this.revisions
      .map((r) => ({ id: r.id, number: r.number, images: { app: r.image }, desired: r.desired, current: r.current, ready: r.ready, available: r.ready }))
      .sort((a, b) => b.number - a.number);
    return {
      kind: 'Deployment', exists: true, replicas: this.replicas, templateRevision: this.template, templateImages: { app: imageOf(this.template) }, revisions,
      held: this.held, observed: true, nativeComplete: !this.held && this.nativeDone,
      maxSurge: budget.maxSurge, maxUnavailable: budget.maxUnavailable, problems: [...this.problems], strategy: null, nextAvailableAt: null, toReplace: [], blocked: null,
    };
  }

  apply(actions: Action[]): void {
    for (const a of actions) {
      if (a.type === 'hold') this.held = true;
      if (a.type === 'release-hold') this.held = false;
      if (a.type === 'set-template' && a.change.type === 'images') this.setImage(Object.values(a.change.images)[0]!);
      if (a.type === 'set-template' && a.change.type === 'revision') this.template = a.change.revision;
      if (a.type === 'restore-template') this.template = a.revision;
      if (a.type === 'distribute') this.distribute(a.target, a.distribution);
    }
    this.nativeDone = this.revisions.every((r) => (r.id === this.template ? r.desired === this.replicas && r.ready === this.replicas : r.desired === 0));
  }

  /** Pods catch up with their ReplicaSets (created, terminated, ready unless never-ready). */
  settle(): void {
    // The native controller (paused or not) sizes a lone active ReplicaSet to spec.replicas.
    const active = this.revisions.filter((r) => r.desired > 0);
    if (active.length === 1) active[0]!.desired = this.replicas;
    for (const r of this.revisions) {
      r.current = r.desired;
      r.ready = this.neverReady.has(r.id) ? 0 : r.desired;
    }
    this.recordAvailability();
  }

  count(id: string): number {
    return this.revisions.find((r) => r.id === id)?.desired ?? 0;
  }

  private distribute(target: string, distribution: Record<string, number>): void {
    const budget = resolveRollingBudget(this.replicas, this.maxSurge, this.maxUnavailable);
    const stable = Object.entries(distribution).filter(([id]) => id !== target).sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
    const moves = nextMoves({
      total: this.replicas, maxSurge: budget.maxSurge, maxUnavailable: budget.maxUnavailable, target, stable, distribution,
      revisions: this.revisions.map((r) => ({ id: r.id, desired: r.desired, available: Math.min(r.ready, r.desired) })),
    });
    for (const [id, desired] of moves) {
      let rev = this.revisions.find((r) => r.id === id);
      if (!rev) {
        if (id !== this.template) continue;
        rev = { id, number: Math.max(...this.revisions.map((r) => r.number)) + 1, image: imageOf(id), desired: 0, current: 0, ready: 0 };
        this.revisions.push(rev);
      }
      rev.desired = desired;
      // Scaling down removes not-ready pods first, then ready ones, at once.
      rev.current = Math.min(rev.current, desired);
      rev.ready = Math.min(rev.ready, desired);
    }
    this.recordAvailability();
  }

  private recordAvailability(): void {
    this.minAvailableSeen = Math.min(this.minAvailableSeen, this.revisions.reduce((n, r) => n + Math.min(r.ready, r.desired), 0));
  }
}

/** Revision ids in the simulator are derived from the image so tests can name them. */
export function revisionOf(image: string): string {
  return `rev-${image}`;
}

function imageOf(id: string): string {
  return id.replace(/^rev-/, '');
}
