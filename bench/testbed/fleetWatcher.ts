// Watches the pods of one workload in every cluster of a fleet release and records each breach of
// the fleet's promises (issue 24, docs/fleet.md "Semantics"), judged at every pod event, from what
// the clusters themselves show (not from any status of ours):
//  1. waves: no pod of the new version appears in a cluster before every cluster of the earlier
//     waves is done (all its pods on the new version and Ready, none of another version left), nor
//     before the approval of the wave before it was given (openWave());
//  2. maxConcurrency: when a cluster's first new pod appears, fewer than its wave's maxConcurrency
//     other clusters of that wave are releasing (started, not done);
//  3. batches: a cluster gets more new pods than its first batch only after that batch was there
//     in full (exactly `firstBatch` new pods, all Ready).
// Each cluster's own contract (availability, surge, approval caps) is InvariantWatcher's
// (invariants.ts), run beside this one per cluster.
import type { KubeConfig } from '@kubernetes/client-node';
import { watchPaths, type NamespaceWatch } from './namespaceWatch.ts';

interface Pod {
  metadata: { name: string; deletionTimestamp?: string; labels?: Record<string, string> };
  spec?: { containers?: { name: string; image?: string }[] };
  status?: { conditions?: { type: string; status: string }[] };
}

export interface FleetWatchOptions {
  namespace: string;
  /** Label selector of the workload's pods, e.g. "app=web". */
  selector: string;
  /** The container whose image tells the versions apart. */
  container: string;
  /** The release's new image. */
  image: string;
  replicas: number;
  /** New pods of the first batch (the first step's replicas, resolved). */
  firstBatch: number;
  /** The clusters of each wave, in order, with the wave's maxConcurrency (resolved). */
  waves: { name: string; clusters: string[]; maxConcurrency: number }[];
  /** Waves whose opening approval was given before the watcher started (a watcher started again after a restart). */
  openWaves?: number[];
}

interface ClusterView {
  pods: Map<string, { image: string; ready: boolean; live: boolean }>;
  startedAt: number | null;
  doneAt: number | null;
  batchSeen: boolean;
}

export interface FleetWatchEvent {
  seq: number;
  cluster: string;
  what: 'started' | 'done' | 'approval';
}

export class FleetWatcher {
  readonly violations: string[] = [];
  /** Every cluster's start and end, and the approvals, in the order they were seen. */
  readonly timeline: FleetWatchEvent[] = [];
  private readonly views = new Map<string, ClusterView>();
  /** Waves whose approval was given (by index: the wave it lets open). */
  private readonly approved = new Set<number>([0]);
  private readonly watches: NamespaceWatch[] = [];
  private seq = 0;
  private stopped = false;

  private constructor(private readonly opts: FleetWatchOptions) {
    for (const i of opts.openWaves ?? []) this.approved.add(i);
  }

  static async start(clusters: Record<string, KubeConfig>, opts: FleetWatchOptions): Promise<FleetWatcher> {
    const w = new FleetWatcher(opts);
    for (const wave of opts.waves) for (const c of wave.clusters) w.views.set(c, { pods: new Map(), startedAt: null, doneAt: null, batchSeen: false });
    for (const [name, admin] of Object.entries(clusters)) {
      if (!w.views.has(name)) throw new Error(`cluster ${name} is in no wave of the watcher`);
      w.watches.push(await watchPaths<'pods', Pod>(admin, { pods: `/api/v1/namespaces/${opts.namespace}/pods?labelSelector=${encodeURIComponent(opts.selector)}` },
        (_kind, type, pod) => w.onPod(name, type, pod),
        (problem) => {
          if (!w.stopped) w.violations.push(`${name}: ${problem}`);
        }));
      // A release already under way when the watch began: its first batch was before our eyes.
      const view = w.views.get(name) as ClusterView;
      if (view.startedAt !== null) view.batchSeen = true;
    }
    return w;
  }

  /** The approval that lets wave `index` open is about to be sent. */
  openWave(index: number): void {
    this.approved.add(index);
    this.timeline.push({ seq: ++this.seq, cluster: this.opts.waves[index]?.name ?? `wave ${index}`, what: 'approval' });
  }

  /** Whether every cluster shows the release done (all pods new and Ready, no other version left). */
  allDone(): boolean {
    return [...this.views.values()].every((v) => v.doneAt !== null);
  }

  /** The clusters in the order their first new pod appeared. */
  startOrder(): string[] {
    return this.timeline.filter((e) => e.what === 'started').map((e) => e.cluster);
  }

  stop(): void {
    this.stopped = true;
    for (const w of this.watches) w.stop();
  }

  assertClean(): void {
    if (this.violations.length > 0) throw new Error(`fleet invariants broken:\n  ${this.violations.join('\n  ')}`);
  }

  private waveOf(cluster: string): number {
    return this.opts.waves.findIndex((w) => w.clusters.includes(cluster));
  }

  private onPod(cluster: string, type: string, pod: Pod): void {
    const view = this.views.get(cluster) as ClusterView;
    if (type === 'DELETED') view.pods.delete(pod.metadata.name);
    else if (type === 'ADDED' || type === 'MODIFIED' || type === 'SEED') {
      const image = pod.spec?.containers?.find((c) => c.name === this.opts.container)?.image ?? '';
      const ready = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
      view.pods.set(pod.metadata.name, { image, ready, live: pod.metadata.deletionTimestamp === undefined });
    } else {
      return;
    }
    this.judge(cluster, view, type === 'SEED');
  }

  /** `seeding`: the pods that existed when the watch began, one by one (their order says nothing). */
  private judge(cluster: string, view: ClusterView, seeding: boolean): void {
    const live = [...view.pods.values()].filter((p) => p.live);
    const fresh = live.filter((p) => p.image === this.opts.image);
    const freshReady = fresh.filter((p) => p.ready).length;
    const others = live.length - fresh.length;
    if (fresh.length > 0 && view.startedAt === null) this.started(cluster, view);
    if (fresh.length === this.opts.firstBatch && freshReady === this.opts.firstBatch) view.batchSeen = true;
    if (fresh.length > this.opts.firstBatch && !view.batchSeen && view.doneAt === null && !seeding) {
      this.violations.push(`${cluster}: ${fresh.length} pods of ${this.opts.image} before its first batch (${this.opts.firstBatch}) was there in full`);
      view.batchSeen = true; // said once
    }
    if (view.doneAt === null && view.startedAt !== null && fresh.length === this.opts.replicas && freshReady === this.opts.replicas && others === 0) {
      view.doneAt = ++this.seq;
      this.timeline.push({ seq: view.doneAt, cluster, what: 'done' });
    }
  }

  private started(cluster: string, view: ClusterView): void {
    view.startedAt = ++this.seq;
    this.timeline.push({ seq: view.startedAt, cluster, what: 'started' });
    const index = this.waveOf(cluster);
    const wave = this.opts.waves[index];
    if (!wave) return;
    for (const earlier of this.opts.waves.slice(0, index)) {
      for (const c of earlier.clusters) {
        if (this.views.get(c)?.doneAt === null) this.violations.push(`${cluster} (wave ${wave.name}) got a pod of ${this.opts.image} while ${c} (wave ${earlier.name}) was not done`);
      }
    }
    if (!this.approved.has(index)) this.violations.push(`${cluster} (wave ${wave.name}) got a pod of ${this.opts.image} before the approval that opens its wave`);
    const releasing = wave.clusters.filter((c) => c !== cluster && this.views.get(c)?.startedAt !== null && this.views.get(c)?.doneAt === null);
    if (releasing.length >= wave.maxConcurrency) {
      this.violations.push(`${cluster} started while ${releasing.join(', ')} of wave ${wave.name} were releasing (maxConcurrency ${wave.maxConcurrency})`);
    }
  }
}
