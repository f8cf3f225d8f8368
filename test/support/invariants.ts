// Watches one namespace of the real test cluster during a release scenario and records every
// breach of the contract the product promises:
//  1. availability: Ready, non-terminating pods never fall below N − maxUnavailable (the user's
//     Deployment budget), once the workload has first reached it;
//  2. the native Deployment controller changes no ReplicaSet's replicas except to propagate a
//     change of the Deployment's own replicas, and creates no ReplicaSet (attribution from
//     managedFields: the manager owning spec.replicas is the one that last set it);
//  3. approval gates, when a test sets them with capPods(): no more live pods of an image, and no
//     ReplicaSet of that image asking for more, than the batch approved so far.
import https from 'node:https';
import { Watch, type KubeConfig } from '@kubernetes/client-node';
import { resolveRollingBudget } from '../../shared/rollout/arithmetic.ts';
import { ORIGINAL_STRATEGY } from '../../shared/workloads/deployment/deploymentObjects.ts';

type Obj = {
  metadata: { name: string; resourceVersion?: string; deletionTimestamp?: string; annotations?: Record<string, string>; managedFields?: { manager?: string; fieldsV1?: Record<string, unknown> }[] };
  spec?: Record<string, unknown>;
  status?: { conditions?: { type: string; status: string }[] };
};

const NATIVE_CONTROLLER = 'kube-controller-manager';
/** A replica change by the native controller this soon after the Deployment's replicas changed is propagation. */
const PROPAGATION_GRACE_MS = 15_000;

export class InvariantWatcher {
  readonly violations: string[] = [];
  /** Lowest availability margin seen (available − (N − maxUnavailable)); ≥ 0 means within budget. */
  minMargin = Number.POSITIVE_INFINITY;
  /** Times the Deployment was seen unpaused with the native controller reporting the rollout complete. */
  nativeCompletions = 0;
  private readonly pods = new Map<string, Obj>();
  private readonly replicaSets = new Map<string, Obj>();
  private deployment: Obj | null = null;
  private replicasChangedAt = 0;
  private baseline = false;
  private readonly aborts: AbortController[] = [];
  private readonly caps = new Map<string, number>();
  /** Live (non-terminating) pods per image each time the count changed, in order: a release only adds. */
  readonly podCounts = new Map<string, number[]>();

  private constructor(private readonly namespace: string, private readonly deploymentName: string) {}

  static async start(admin: KubeConfig, namespace: string, deploymentName: string): Promise<InvariantWatcher> {
    const w = new InvariantWatcher(namespace, deploymentName);
    const watch = new Watch(admin);
    const paths = {
      pods: `/api/v1/namespaces/${namespace}/pods`,
      replicaSets: `/apis/apps/v1/namespaces/${namespace}/replicasets`,
      deployments: `/apis/apps/v1/namespaces/${namespace}/deployments`,
    } as const;
    for (const [kind, path] of Object.entries(paths) as [keyof typeof paths, string][]) {
      // List first (what existed before the scenario seeds the maps), then watch from that version.
      const list = await rawGet(admin, path) as { metadata: { resourceVersion: string }; items: Obj[] };
      for (const item of list.items) w.onEvent(kind, 'SEED', item);
      const ctrl = await watch.watch(path, { allowWatchBookmarks: true, resourceVersion: list.metadata.resourceVersion }, (type, obj: Obj) => w.onEvent(kind, type, obj), (err) => {
        if (err && !w.stopped) w.violations.push(`watch ${kind} ended: ${String(err)}`);
      });
      w.aborts.push(ctrl);
    }
    return w;
  }

  private stopped = false;

  stop(): void {
    this.stopped = true;
    for (const a of this.aborts) a.abort();
  }

  /**
   * An approval gate: from now on, live pods of `image` and the replicas of any ReplicaSet running
   * it must stay ≤ `max`. Raise it before sending the approval that allows more.
   */
  capPods(image: string, max: number): void {
    this.caps.set(image, max);
    this.checkPodCounts();
  }

  /** Throws with every recorded breach. */
  assertClean(): void {
    if (this.violations.length > 0) throw new Error(`invariants broken:\n  ${this.violations.join('\n  ')}`);
  }

  private onEvent(kind: 'pods' | 'replicaSets' | 'deployments', type: string, obj: Obj): void {
    if (type === 'BOOKMARK' || type === 'ERROR') return;
    const name = obj.metadata.name;
    if (kind === 'pods') {
      if (type === 'DELETED') this.pods.delete(name);
      else this.pods.set(name, obj);
      this.checkPodCounts();
    } else if (kind === 'replicaSets') {
      this.checkReplicaSet(type, obj);
      if (type === 'DELETED') this.replicaSets.delete(name);
      else this.replicaSets.set(name, obj);
    } else if (name === this.deploymentName) {
      const before = this.deployment?.spec?.replicas;
      if (before !== undefined && before !== obj.spec?.replicas) {
        this.replicasChangedAt = Date.now();
        if (Number(obj.spec?.replicas) > Number(before)) this.baseline = false; // new pods are not created yet
      }
      this.deployment = type === 'DELETED' ? null : obj;
      if (this.deployment && reportsComplete(this.deployment)) this.nativeCompletions += 1;
    }
    this.checkAvailability();
  }

  private checkReplicaSet(type: string, rs: Obj): void {
    const manager = replicasOwner(rs);
    if (type === 'ADDED' && manager === NATIVE_CONTROLLER) {
      this.violations.push(`the native controller created ReplicaSet ${rs.metadata.name}`);
    }
    const image = imageOf(rs.spec?.template);
    const cap = image === undefined ? undefined : this.caps.get(image);
    if (cap !== undefined && type !== 'DELETED' && Number(rs.spec?.replicas ?? 0) > cap) {
      this.violations.push(`ReplicaSet ${rs.metadata.name} asks for ${String(rs.spec?.replicas)} pods of ${image}, beyond the approved ${cap}`);
    }
    const before = this.replicaSets.get(rs.metadata.name);
    if (type !== 'MODIFIED' || !before || before.spec?.replicas === rs.spec?.replicas) return;
    if (manager === NATIVE_CONTROLLER && Date.now() - this.replicasChangedAt > PROPAGATION_GRACE_MS) {
      this.violations.push(`the native controller scaled ReplicaSet ${rs.metadata.name} ${String(before.spec?.replicas)} → ${String(rs.spec?.replicas)} without a replica change of the Deployment`);
    }
  }

  private checkPodCounts(): void {
    const live = new Map<string, number>();
    for (const pod of this.pods.values()) {
      const image = imageOf(pod);
      if (image !== undefined && !pod.metadata.deletionTimestamp) live.set(image, (live.get(image) ?? 0) + 1);
    }
    for (const image of new Set([...live.keys(), ...this.podCounts.keys()])) {
      const count = live.get(image) ?? 0;
      const series = this.podCounts.get(image) ?? [];
      if (series[series.length - 1] !== count) this.podCounts.set(image, [...series, count]);
      const cap = this.caps.get(image);
      if (cap !== undefined && count > cap) this.violations.push(`${count} live pods of ${image}, beyond the approved ${cap}`);
    }
  }

  private checkAvailability(): void {
    const d = this.deployment;
    if (!d) return;
    const total = Number(d.spec?.replicas ?? 1);
    const strategy = userStrategy(d);
    const { maxUnavailable } = resolveRollingBudget(total, strategy.maxSurge, strategy.maxUnavailable);
    const available = [...this.pods.values()].filter((p) => !p.metadata.deletionTimestamp && isReady(p)).length;
    const margin = available - (total - maxUnavailable);
    if (!this.baseline) {
      if (margin >= 0) this.baseline = true;
      return;
    }
    this.minMargin = Math.min(this.minMargin, margin);
    if (margin < 0) {
      this.violations.push(`availability ${available} < ${total} − ${maxUnavailable} in ${this.namespace} at ${new Date().toISOString()}`);
    }
  }
}

/** GET of a raw API path with the kubeconfig's credentials (wire JSON, no model conversion). */
async function rawGet(kc: KubeConfig, path: string): Promise<unknown> {
  const url = new URL(`${kc.getCurrentCluster()?.server ?? ''}${path}`);
  const opts: https.RequestOptions = { method: 'GET', hostname: url.hostname, port: url.port, path: url.pathname + url.search, headers: {} };
  await kc.applyToHTTPSOptions(opts);
  return new Promise((resolve, reject) => {
    const req = https.request(opts, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(body)) : reject(new Error(`GET ${path}: ${res.statusCode} ${body}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

function reportsComplete(d: Obj): boolean {
  const st = d.status as { observedGeneration?: number; conditions?: { type: string; status: string; reason?: string }[] } | undefined;
  const generation = (d.metadata as { generation?: number }).generation ?? 0;
  return d.spec?.paused !== true && (st?.observedGeneration ?? -1) >= generation &&
    (st?.conditions ?? []).some((c) => c.type === 'Progressing' && c.status === 'True' && c.reason === 'NewReplicaSetAvailable');
}

/** The first container's image of a pod (or of a pod template). */
function imageOf(podOrTemplate: unknown): string | undefined {
  const containers = (podOrTemplate as { spec?: { containers?: { image?: string }[] } } | undefined)?.spec?.containers;
  return containers?.[0]?.image;
}

function isReady(pod: Obj): boolean {
  return (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** The user's rolling budget: saved in our annotation while a release holds the Deployment on Recreate. */
function userStrategy(d: Obj): { maxSurge?: number | `${number}%`; maxUnavailable?: number | `${number}%` } {
  const saved = d.metadata.annotations?.[ORIGINAL_STRATEGY];
  const strategy = (saved ? JSON.parse(saved) : d.spec?.strategy) as { rollingUpdate?: Record<string, never> } | undefined;
  return strategy?.rollingUpdate ?? {};
}

function replicasOwner(rs: Obj): string | undefined {
  return rs.metadata.managedFields?.find((m) => {
    const spec = m.fieldsV1?.['f:spec'] as Record<string, unknown> | undefined;
    return spec !== undefined && 'f:replicas' in spec;
  })?.manager;
}
