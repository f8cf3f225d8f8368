// Approval gates of the invariant watchers (bench/testbed/invariants.ts for Deployments,
// bench/testbed/soak/setWatcher.ts for StatefulSets): per image, the pods the batches approved so
// far, and the fewest replicas the workload had since. What the user's scaling adds to the new
// revision counts on top: a scale-up spreads its pods over both revisions (Deployments) or creates
// them above the partition (StatefulSets), and a scale-down then up again does the same (soak: 5 →
// 3 → 5 put two pods back on the new image). A scale-down takes its pods away a moment after the
// workload's replicas change (the controllers act on it): meanwhile the gates it lowers keep what
// they allowed just before (soak: 2 live pods of a 1-pod batch, 12 ms after a scale 5 → 3).
/** How long the pods of a scale-down may take to go. */
const SCALE_DOWN_GRACE_MS = 5_000;

export class ApprovalCaps {
  private readonly approved = new Map<string, number>();
  private readonly fewestReplicas = new Map<string, number>();
  private lastReplicas: number | undefined;
  /** The gates as they were just before the last scale-down, and until when they still hold. */
  private beforeScaleDown = new Map<string, number>();
  private beforeScaleDownUntil = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** From now on at most `max` pods of `image`, counted from `replicas` (unknown: from the first scale). */
  set(image: string, max: number, replicas: number | undefined): void {
    this.approved.set(image, max);
    if (replicas !== undefined) this.fewestReplicas.set(image, replicas);
  }

  delete(image: string): void {
    this.approved.delete(image);
  }

  clear(): void {
    this.approved.clear();
    this.fewestReplicas.clear();
    this.beforeScaleDown.clear();
  }

  /** The workload's replicas as last seen. */
  scaled(replicas: number): void {
    if (!Number.isFinite(replicas)) return;
    const before = this.lastReplicas;
    if (before !== undefined && replicas < before) {
      const kept = new Map<string, number>();
      for (const image of this.approved.keys()) kept.set(image, this.of(image, before) as number);
      this.beforeScaleDown = kept;
      this.beforeScaleDownUntil = this.now() + SCALE_DOWN_GRACE_MS;
    }
    this.lastReplicas = replicas;
    for (const [image, fewest] of this.fewestReplicas) if (replicas < fewest) this.fewestReplicas.set(image, replicas);
  }

  images(): string[] {
    return [...this.approved.keys()];
  }

  /** The gate of `image` at `replicas` now; `strict`: without what scaling added. */
  of(image: string, replicas: number, strict = false): number | undefined {
    const cap = this.approved.get(image);
    if (cap === undefined || strict) return cap;
    const now = cap + Math.max(0, replicas - (this.fewestReplicas.get(image) ?? replicas));
    const kept = this.now() < this.beforeScaleDownUntil ? this.beforeScaleDown.get(image) : undefined;
    return kept === undefined ? now : Math.max(now, kept);
  }
}
