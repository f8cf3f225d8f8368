// Approval gates of the invariant watchers (test/support/invariants.ts for Deployments,
// test/support/soak/setWatcher.ts for StatefulSets): per image, the pods the batches approved so
// far, and the fewest replicas the workload had since. What the user's scaling adds to the new
// revision counts on top: a scale-up spreads its pods over both revisions (Deployments) or creates
// them above the partition (StatefulSets), and a scale-down then up again does the same (soak: 5 →
// 3 → 5 put two pods back on the new image).
export class ApprovalCaps {
  private readonly approved = new Map<string, number>();
  private readonly fewestReplicas = new Map<string, number>();

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
  }

  /** The workload's replicas as last seen. */
  scaled(replicas: number): void {
    if (!Number.isFinite(replicas)) return;
    for (const [image, fewest] of this.fewestReplicas) if (replicas < fewest) this.fewestReplicas.set(image, replicas);
  }

  images(): string[] {
    return [...this.approved.keys()];
  }

  /** The gate of `image` at `replicas` now; `strict`: without what scaling added. */
  of(image: string, replicas: number, strict = false): number | undefined {
    const cap = this.approved.get(image);
    if (cap === undefined || strict) return cap;
    return cap + Math.max(0, replicas - (this.fewestReplicas.get(image) ?? replicas));
  }
}
