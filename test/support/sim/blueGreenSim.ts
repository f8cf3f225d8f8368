// The RoutedSim with a Deployment driven blue-green, used ONLY by planner unit tests: a distribute
// marked rollingStyle 'BlueGreen' brings the new revision up to the batch beside the old, which
// keeps every pod (as shared/workloads/deployment/blueGreenPace.ts has the native controller do);
// the final move hands back, and the native controller leaves only the new revision.
import type { Action, WorkloadView } from '../../../shared/rollout/types.ts';
import { RoutedSim } from './routedSim.ts';

export class BlueGreenSim extends RoutedSim {
  /** Each apply's distribute moves, in order: what the old revision was asked to keep. */
  readonly oldDesiredSeen: number[] = [];

  /** The Deployment carries the take-over's marks (the original-* annotations): held, strategy in flight. */
  marked = false;

  override view(): WorkloadView {
    const view = super.view();
    return { ...view, held: view.held || this.marked, strategy: this.marked ? 'MinReadySeconds' : null, nativeComplete: view.nativeComplete && !this.marked };
  }

  override apply(actions: Action[]): void {
    const rest: Action[] = [];
    for (const a of actions) {
      if (a.type === 'distribute' && a.rollingStyle === 'BlueGreen' && !a.final) this.bringUp(a.target, a.distribution[a.target] ?? 0);
      else if (a.type === 'distribute' && a.final) this.handBack(a.target);
      else rest.push(a);
      // The MinReadySeconds hand-back: the template back and the user's fields, in one patch.
      if (a.type === 'restore-template' || a.type === 'release-hold') this.marked = false;
    }
    super.apply(rest);
  }

  private bringUp(target: string, wanted: number): void {
    let rev = this.revisions.find((r) => r.id === target);
    if (!rev) {
      rev = { id: target, number: Math.max(...this.revisions.map((r) => r.number)) + 1, image: target.replace(/^rev-/, ''), desired: 0, current: 0, ready: 0 };
      this.revisions.push(rev);
    }
    rev.desired = Math.min(this.replicas, Math.max(rev.desired, wanted));
    this.marked = true;
    this.oldDesiredSeen.push(...this.revisions.filter((r) => r.id !== target).map((r) => r.desired));
  }

  /** The native controller with the user's fields: the new revision is already all there, the old ones go. */
  private handBack(target: string): void {
    this.held = false;
    this.marked = false;
    for (const r of this.revisions) r.desired = r.id === target ? this.replicas : 0;
  }
}
