// The availability invariant for a StatefulSet, watched on the real cluster: pods Ready for at
// least the set's minReadySeconds never fall below replicas − 1 (a RollingUpdate StatefulSet
// replaces one pod at a time: maxUnavailable 1). After a scale-up, until the new pods make it, the
// narrow rule is judged instead: no Available pod is deleted while fewer than replicas − 1 are
// Available (the StatefulSet controller deletes a pod for an update only once every pod above it
// is healthy; NB-4 in test/integration/native.behaviour.test.ts). A template change mid-roll (an
// abort, an undo, the user's own): the controller replaces the highest pod not on the update revision
// once every pod above it is Available, whatever the pods below it are (the rolling update's loop in
// Kubernetes' pkg/controller/statefulset/stateful_set_control.go), so a pod it recreated a moment
// before for the previous template may still be short of Available: such a removal starts the same
// narrow rule until replicas − 1 are Available again (NB-6). A scale-down is judged at once:
// its pods are the highest ordinals, Available until they go. Approval gates (capPods/capStep): no
// pod of an image is added beyond the step approved so far, plus the pods a scale-up by the user
// added since (created above the partition, on the update revision: bench/testbed/approvalCaps.ts).
// Coverage per invariant as in bench/testbed/invariants.ts.
import type { KubeConfig } from '@kubernetes/client-node';
import { ApprovalCaps, GatedWatcher } from '../approvalCaps.ts';
import { Coverage, type InvariantCoverage, type Window } from '../coverage.ts';
import { watchPaths, type NamespaceWatch } from '../namespaceWatch.ts';

type Obj = {
  metadata: { name: string; deletionTimestamp?: string; labels?: Record<string, string>; generation?: number };
  spec?: {
    replicas?: number; minReadySeconds?: number; containers?: { image?: string }[];
    updateStrategy?: { type?: string; rollingUpdate?: { partition?: number } };
  };
  status?: { conditions?: { type: string; status: string; lastTransitionTime?: string }[]; updateRevision?: string; observedGeneration?: number };
};

/** The narrow rules that stand in for the availability floor for a while (coverage names them). */
const AFTER_SCALE_UP = 'noAvailablePodDeletedAfterScaleUp';
export const AFTER_TEMPLATE_CHANGE = 'rollingUpdateReplacesHighestStalePod';

export class SetWatcher extends GatedWatcher {
  minMargin = Number.POSITIVE_INFINITY;
  private readonly pods = new Map<string, Obj>();
  private set: Obj | null = null;
  private baseline = false;
  /** While not at the baseline: the narrow rule judged instead. */
  private narrowedBy = AFTER_SCALE_UP;
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
        if (Number(obj.spec?.replicas) > Number(before)) {
          this.baseline = false;
          this.narrowedBy = AFTER_SCALE_UP;
        }
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

  /**
   * An Available pod going. At the baseline, the controller's replacement of the highest stale pod
   * (NB-6) that leaves fewer than replicas − 1 Available starts the narrow rule. Under the narrow
   * rule (after a scale-up or such a replacement), until replicas − 1 are Available again: no
   * Available pod may go but by that same replacement.
   */
  private checkRemoval(before: Obj | undefined, type: string, pod: Obj): void {
    if (!before || before.metadata.deletionTimestamp || !this.set) return;
    const going = type === 'DELETED' || pod.metadata.deletionTimestamp !== undefined;
    const now = Date.now();
    if (!going || !availableAt(before, Number(this.set.spec?.minReadySeconds ?? 0), now)) return;
    const available = this.availability(now);
    const short = available - 1 < this.replicas() - 1;
    if (this.baseline) {
      if (short && this.replacesHighestStale(before, now)) {
        this.baseline = false;
        this.narrowedBy = AFTER_TEMPLATE_CHANGE;
      }
      return;
    }
    this.coverageOf.sample('availability');
    if (available < this.replicas() - 1 && !this.replacesHighestStale(before, now)) {
      this.violations.push(`StatefulSet ${this.namespace}/${this.name}: Available pod ${pod.metadata.name} deleted while ${available} < ${this.replicas()} − 1 were Available (${this.narrowedBy}) at ${new Date(now).toISOString()}`);
    }
  }

  /**
   * Whether `pod` going is the rolling update's own step: at or above the partition, not on the
   * update revision (or the controller is acting on a spec it has not reported yet), and every pod
   * above it Available and staying.
   */
  private replacesHighestStale(pod: Obj, now: number): boolean {
    const set = this.set;
    if (!set || (set.spec?.updateStrategy?.type ?? 'RollingUpdate') !== 'RollingUpdate') return false;
    const ordinal = this.ordinalOf(pod);
    if (ordinal < Number(set.spec?.updateStrategy?.rollingUpdate?.partition ?? 0)) return false;
    const unreported = (set.status?.observedGeneration ?? 0) < (set.metadata.generation ?? 0);
    if (!unreported && pod.metadata.labels?.['controller-revision-hash'] === set.status?.updateRevision) return false;
    const minReady = Number(set.spec?.minReadySeconds ?? 0);
    for (let above = ordinal + 1; above < this.replicas(); above += 1) {
      const p = this.pods.get(`${this.name}-${above}`);
      if (!p || p.metadata.deletionTimestamp || !availableAt(p, minReady, now)) return false;
    }
    return true;
  }

  private checkAvailability(): void {
    const set = this.set;
    if (!set) return;
    const now = Date.now();
    const replicas = this.replicas();
    const margin = this.availability(now) - (replicas - 1);
    if (!this.baseline && margin >= 0) this.baseline = true;
    this.coverageOf.mode('availability', this.baseline ? 'judged' : `narrowed:${this.narrowedBy}`);
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
