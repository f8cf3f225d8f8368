// The release contract for the kinds whose controllers replace pods one by one (StatefulSets,
// DaemonSets, CloneSets), watched on the real cluster's pods during a scenario:
//  1. availability: Ready pods never fall below N − maxUnavailable (the user's budget, given by the
//     test), once the workload has first reached it;
//  2. approval gates, when the test sets them with capPods(): never more live pods of an image than
//     the batch approved so far (an in-place update changes a pod's image: it counts at once);
//  3. pods kept: with keepUids(), no pod of the workload is ever recreated (in-place updates).
import { Watch, type KubeConfig } from '@kubernetes/client-node';
import { rawGet } from '../../bench/testbed/invariants.ts';
import { tagOf } from '../../bench/testbed/workloads.ts';

interface Pod {
  metadata: { name: string; uid?: string; deletionTimestamp?: string };
  spec?: { containers?: { image?: string }[] };
  status?: { conditions?: { type: string; status: string }[] };
}

export interface PodBudget {
  /** N: replicas, or the nodes of a DaemonSet. */
  total: number;
  maxUnavailable: number;
}

export class PodInvariantWatcher {
  readonly violations: string[] = [];
  /** Lowest number of Ready live pods seen once the baseline was reached. */
  minReady = Number.POSITIVE_INFINITY;
  private readonly pods = new Map<string, Pod>();
  private readonly caps = new Map<string, number>();
  private readonly created = new Set<string>();
  private baseline = false;
  private stopped = false;
  private abort: AbortController | null = null;
  private uids: Set<string> | null = null;

  private constructor(private budget: PodBudget, private readonly label: string) {}

  static async start(admin: KubeConfig, namespace: string, budget: PodBudget, labelSelector = 'app=web'): Promise<PodInvariantWatcher> {
    const w = new PodInvariantWatcher(budget, `${namespace} (${labelSelector})`);
    const path = `/api/v1/namespaces/${namespace}/pods`;
    const list = await rawGet(admin, `${path}?labelSelector=${encodeURIComponent(labelSelector)}`) as { metadata: { resourceVersion: string }; items: Pod[] };
    for (const pod of list.items) w.onEvent('SEED', pod);
    w.abort = await new Watch(admin).watch(path, { labelSelector, allowWatchBookmarks: true, resourceVersion: list.metadata.resourceVersion }, (type, pod: Pod) => w.onEvent(type, pod), (err) => {
      if (err && !w.stopped) w.violations.push(`watch ended: ${String(err)}`);
    });
    return w;
  }

  /** From now on, live pods of image `tag` (e.g. "v2") must stay ≤ `max`. Raise it before the approval that allows more. */
  capPods(tag: string, max: number): void {
    this.caps.set(tag, max);
    this.check();
  }

  /** From now on no new pod may appear: every pod keeps its name and UID (in-place updates). */
  keepUids(): void {
    this.uids = new Set([...this.pods.values()].map((p) => p.metadata.uid ?? ''));
  }

  /** The budget changed (an HPA scale, a node joining): judge against the new one. */
  setBudget(budget: PodBudget): void {
    this.budget = budget;
    this.baseline = false;
  }

  stop(): void {
    this.stopped = true;
    this.abort?.abort();
  }

  assertClean(): void {
    if (this.violations.length > 0) throw new Error(`invariants broken in ${this.label}:\n  ${this.violations.join('\n  ')}`);
  }

  private onEvent(type: string, pod: Pod): void {
    if (type === 'BOOKMARK' || type === 'ERROR') return;
    if (type === 'DELETED') this.pods.delete(pod.metadata.name);
    else this.pods.set(pod.metadata.name, pod);
    if (type === 'ADDED' && this.uids && !this.uids.has(pod.metadata.uid ?? '')) this.violations.push(`pod ${pod.metadata.name} (uid ${pod.metadata.uid}) was created: a pod was replaced, not updated in place`);
    if (type === 'ADDED') this.created.add(pod.metadata.name);
    this.check();
  }

  private check(): void {
    const live = [...this.pods.values()].filter((p) => !p.metadata.deletionTimestamp);
    const at = new Date().toISOString();
    const perTag = new Map<string, number>();
    for (const p of live) {
      const tag = tagOf(p.spec?.containers?.[0]?.image ?? '?');
      perTag.set(tag, (perTag.get(tag) ?? 0) + 1);
    }
    for (const [tag, max] of this.caps) {
      const n = perTag.get(tag) ?? 0;
      if (n > max) this.violations.push(`${n} live pods of ${tag}, beyond the approved ${max}, at ${at}`);
    }
    const ready = live.filter((p) => (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')).length;
    const floor = this.budget.total - this.budget.maxUnavailable;
    if (!this.baseline) {
      if (ready >= floor) this.baseline = true;
      return;
    }
    this.minReady = Math.min(this.minReady, ready);
    if (ready < floor) this.violations.push(`${ready} Ready pods < ${this.budget.total} − ${this.budget.maxUnavailable} at ${at}`);
  }
}
