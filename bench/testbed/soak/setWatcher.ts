// The availability invariant for a StatefulSet, watched on the real cluster: pods Ready for at
// least the set's minReadySeconds never fall below replicas − 1 (a RollingUpdate StatefulSet
// replaces one pod at a time: maxUnavailable 1), once the set has first reached it; and approval
// gates (capPods): no more live pods of an image than the batch approved so far, plus the pods a
// scale-up by the user added since (created above the partition, on the update revision).
import type { KubeConfig } from '@kubernetes/client-node';
import { ApprovalCaps } from '../approvalCaps.ts';
import { watchPaths, type NamespaceWatch } from '../namespaceWatch.ts';

type Obj = {
  metadata: { name: string; deletionTimestamp?: string };
  spec?: { replicas?: number; minReadySeconds?: number; containers?: { image?: string }[] };
  status?: { conditions?: { type: string; status: string; lastTransitionTime?: string }[] };
};

const SCALE_GRACE_MS = 15_000;

export class SetWatcher {
  readonly violations: string[] = [];
  minMargin = Number.POSITIVE_INFINITY;
  private readonly pods = new Map<string, Obj>();
  private set: Obj | null = null;
  private baseline = false;
  private replicasChangedAt = 0;
  private readonly caps = new ApprovalCaps();
  private watch: NamespaceWatch | null = null;

  /** Times a watch ended and was listed and watched again. */
  get rewatches(): number {
    return this.watch?.rewatches ?? 0;
  }
  private stopped = false;

  private constructor(private readonly namespace: string, private readonly name: string) {}

  static async start(admin: KubeConfig, namespace: string, name: string): Promise<SetWatcher> {
    const w = new SetWatcher(namespace, name);
    w.watch = await watchPaths<'pods' | 'sets', Obj>(admin, {
      pods: `/api/v1/namespaces/${namespace}/pods`,
      sets: `/apis/apps/v1/namespaces/${namespace}/statefulsets`,
    }, (kind, type, obj) => w.onEvent(kind, type, obj), (problem) => {
      if (!w.stopped) w.violations.push(problem);
    });
    return w;
  }

  stop(): void {
    this.stopped = true;
    this.watch?.stop();
  }

  capPods(image: string, max: number): void {
    if (Number.isFinite(max)) this.caps.set(image, max, this.set?.spec?.replicas === undefined ? undefined : Number(this.set.spec.replicas));
    else this.caps.delete(image);
    this.check();
  }

  clearCaps(): void {
    this.caps.clear();
  }

  private onEvent(kind: 'pods' | 'sets', type: string, obj: Obj): void {
    if (type === 'BOOKMARK' || type === 'ERROR') return;
    if (kind === 'pods') {
      if (type === 'DELETED') this.pods.delete(obj.metadata.name);
      else this.pods.set(obj.metadata.name, obj);
    } else if (obj.metadata.name === this.name) {
      const before = this.set?.spec?.replicas;
      if (before !== undefined && before !== obj.spec?.replicas) {
        this.replicasChangedAt = Date.now();
        if (Number(obj.spec?.replicas) > Number(before)) this.baseline = false;
      }
      this.set = type === 'DELETED' ? null : obj;
      if (this.set) this.caps.scaled(Number(obj.spec?.replicas));
    }
    this.check();
  }

  private ordinalOf(pod: Obj): number {
    const n = Number(pod.metadata.name.slice(this.name.length + 1));
    return Number.isInteger(n) ? n : -1;
  }

  private check(): void {
    const set = this.set;
    if (!set) return;
    const now = Date.now();
    const live = [...this.pods.values()].filter((p) => !p.metadata.deletionTimestamp);
    for (const image of this.caps.images()) {
      // A scale-up by the user creates its pods at the highest ordinals, above the partition: on the
      // update revision (the StatefulSet controller's rule); the batch restarts against the new N.
      const replicasNow = Number(set.spec?.replicas ?? 0);
      const cap = this.caps.of(image, replicasNow) as number;
      // A pod at an ordinal ≥ N is on its way out after the user's scale-down (the controller removes
      // the highest ordinals first): no batch of ours put it there (soak: scaled 5 → 4 while the
      // release's batch held ordinal 4's pod on the new image, seen before its deletion).
      const count = live.filter((p) => p.spec?.containers?.[0]?.image === image && this.ordinalOf(p) < replicasNow).length;
      if (count > cap) this.violations.push(`${count} live pods of ${image} in ${this.namespace}, beyond the approved ${cap} at ${new Date(now).toISOString()}`);
    }
    const replicas = Number(set.spec?.replicas ?? 1);
    const minReady = Number(set.spec?.minReadySeconds ?? 0);
    const available = live.filter((p) => {
      const ready = (p.status?.conditions ?? []).find((c) => c.type === 'Ready');
      if (ready?.status !== 'True') return false;
      const since = Date.parse(ready.lastTransitionTime ?? '');
      return minReady <= 0 || (!Number.isNaN(since) && since + minReady * 1000 <= now);
    }).length;
    const margin = available - (replicas - 1);
    if (!this.baseline) {
      if (margin >= 0) this.baseline = true;
      return;
    }
    if (now - this.replicasChangedAt < SCALE_GRACE_MS) return;
    this.minMargin = Math.min(this.minMargin, margin);
    if (margin < 0) this.violations.push(`StatefulSet ${this.namespace}/${this.name}: ${available} available < ${replicas} − 1 at ${new Date(now).toISOString()}`);
  }
}
