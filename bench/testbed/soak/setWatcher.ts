// The availability invariant for a StatefulSet, watched on the real cluster: pods Ready for at
// least the set's minReadySeconds never fall below replicas − 1 (a RollingUpdate StatefulSet
// replaces one pod at a time: maxUnavailable 1). After a scale-up, until the new pods make it, the
// narrow rule is judged instead: no Available pod is deleted while fewer than replicas − 1 are
// Available (the StatefulSet controller deletes a pod for an update only once every pod above it
// is healthy; NB-4 in test/integration/native.behaviour.test.ts). A scale-down is judged at once:
// its pods are the highest ordinals, Available until they go. Approval gates (capPods/capStep): no
// pod of an image is added beyond the step approved so far, plus the pods a scale-up by the user
// added since (created above the partition, on the update revision: bench/testbed/approvalCaps.ts).
// Coverage per invariant as in bench/testbed/invariants.ts.
import type { KubeConfig } from '@kubernetes/client-node';
import { ApprovalCaps, GatedWatcher } from '../approvalCaps.ts';
import { Coverage, type InvariantCoverage, type Window } from '../coverage.ts';
import { watchPaths, type NamespaceWatch } from '../namespaceWatch.ts';

type Obj = {
  metadata: { name: string; deletionTimestamp?: string };
  spec?: { replicas?: number; minReadySeconds?: number; containers?: { image?: string }[] };
  status?: { conditions?: { type: string; status: string; lastTransitionTime?: string }[] };
};

export class SetWatcher extends GatedWatcher {
  minMargin = Number.POSITIVE_INFINITY;
  private readonly pods = new Map<string, Obj>();
  private set: Obj | null = null;
  private baseline = false;
  protected readonly caps = new ApprovalCaps('StatefulSet', 'aboveScaleUp');
  private readonly coverageOf = new Coverage();
  private watch: NamespaceWatch | null = null;

  /** Times a watch ended and was listed and watched again. */
  get rewatches(): number {
    return this.watch?.rewatches ?? 0;
  }
  private stopped = false;

  private constructor(private readonly namespace: string, private readonly name: string) {
    super();
  }

  static async start(admin: KubeConfig, namespace: string, name: string): Promise<SetWatcher> {
    const w = new SetWatcher(namespace, name);
    w.coverageOf.mode('approvalGates', 'judged');
    w.watch = await watchPaths<'pods' | 'sets', Obj>(admin, {
      pods: `/api/v1/namespaces/${namespace}/pods`,
      sets: `/apis/apps/v1/namespaces/${namespace}/statefulsets`,
    }, (kind, type, obj) => w.onEvent(kind, type, obj), (problem) => {
      if (!w.stopped) w.violations.push(problem);
    });
    return w;
  }

  /** Nothing waits for another watch here (one pod watch judges every gate). */
  async settle(): Promise<void> {}

  stop(): void {
    this.stopped = true;
    this.watch?.stop();
  }

  coverage(window: Window): Record<string, InvariantCoverage> {
    return this.coverageOf.report(window);
  }

  protected replicas(): number {
    return Number(this.set?.spec?.replicas ?? 0);
  }

  private onEvent(kind: 'pods' | 'sets', type: string, obj: Obj): void {
    if (type === 'BOOKMARK' || type === 'ERROR') return;
    if (kind === 'pods') {
      const before = this.pods.get(obj.metadata.name);
      this.checkRemoval(before, type, obj);
      if (type === 'DELETED') this.pods.delete(obj.metadata.name);
      else this.pods.set(obj.metadata.name, obj);
      const image = (o: Obj | undefined) => (o && !o.metadata.deletionTimestamp ? o.spec?.containers?.[0]?.image : undefined);
      const added = image(obj);
      if (type !== 'DELETED' && added !== undefined && image(before) !== added) this.checkGate(added, obj);
    } else if (obj.metadata.name === this.name) {
      const before = this.set?.spec?.replicas;
      this.set = type === 'DELETED' ? null : obj;
      if (before !== undefined && before !== obj.spec?.replicas) {
        if (Number(obj.spec?.replicas) > Number(before)) this.baseline = false;
        this.caps.scaled(Number(before), Number(obj.spec?.replicas), () => undefined);
      }
    }
    this.checkAvailability();
  }

  private ordinalOf(pod: Obj): number {
    const n = Number(pod.metadata.name.slice(this.name.length + 1));
    return Number.isInteger(n) ? n : -1;
  }

  /** A pod of `image` was added (created, or its image changed): within the gate? */
  private checkGate(image: string, pod: Obj): void {
    if (!this.set) return;
    const replicasNow = this.replicas();
    // A pod at an ordinal ≥ N is on its way out after the user's scale-down (the controller removes
    // the highest ordinals first): no batch of ours put it there.
    const live = [...this.pods.values()].filter((p) => !p.metadata.deletionTimestamp);
    const count = live.filter((p) => p.spec?.containers?.[0]?.image === image && this.ordinalOf(p) < replicasNow).length;
    this.coverageOf.mode('approvalGates', 'judged');
    this.coverageOf.sample('approvalGates');
    const problem = this.caps.judge(image, count, replicasNow, (cap) => `${count} live pods of ${image} in ${this.namespace}, beyond the approved ${cap} at ${new Date().toISOString()} (pod ${pod.metadata.name})`);
    if (problem !== null) this.violations.push(problem);
  }

  private availability(now: number): number {
    const minReady = Number(this.set?.spec?.minReadySeconds ?? 0);
    return [...this.pods.values()].filter((p) => !p.metadata.deletionTimestamp && availableAt(p, minReady, now)).length;
  }

  /** After a scale-up, until replicas − 1 are Available again: no Available pod may go. */
  private checkRemoval(before: Obj | undefined, type: string, pod: Obj): void {
    if (!before || before.metadata.deletionTimestamp || !this.set || this.baseline) return;
    const going = type === 'DELETED' || pod.metadata.deletionTimestamp !== undefined;
    const now = Date.now();
    if (!going || !availableAt(before, Number(this.set.spec?.minReadySeconds ?? 0), now)) return;
    const available = this.availability(now);
    this.coverageOf.sample('availability');
    if (available < this.replicas() - 1) {
      this.violations.push(`StatefulSet ${this.namespace}/${this.name}: Available pod ${pod.metadata.name} deleted while ${available} < ${this.replicas()} − 1 were Available (after a scale-up) at ${new Date(now).toISOString()}`);
    }
  }

  private checkAvailability(): void {
    const set = this.set;
    if (!set) return;
    const now = Date.now();
    const replicas = this.replicas();
    const margin = this.availability(now) - (replicas - 1);
    if (!this.baseline && margin >= 0) this.baseline = true;
    this.coverageOf.mode('availability', this.baseline ? 'judged' : 'narrowed:noAvailablePodDeletedAfterScaleUp');
    if (!this.baseline) return;
    this.coverageOf.sample('availability');
    this.minMargin = Math.min(this.minMargin, margin);
    if (margin < 0) this.violations.push(`StatefulSet ${this.namespace}/${this.name}: ${margin + replicas - 1} available < ${replicas} − 1 at ${new Date(now).toISOString()}`);
  }
}

/** Ready for at least `minReadySeconds`, by the Ready condition's lastTransitionTime. */
function availableAt(p: Obj, minReadySeconds: number, now: number): boolean {
  const ready = (p.status?.conditions ?? []).find((c) => c.type === 'Ready');
  if (ready?.status !== 'True') return false;
  const since = Date.parse(ready.lastTransitionTime ?? '');
  return minReadySeconds <= 0 || (!Number.isNaN(since) && since + minReadySeconds * 1000 <= now);
}
