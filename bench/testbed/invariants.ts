// Watches one namespace of the real test cluster during a release scenario and records every
// breach of the contract the product promises (issue 10's definition):
//  1. availability: truly Available pods — Ready for at least the user's ORIGINAL minReadySeconds,
//     whatever the (possibly inflated) field says — never fall below N − maxUnavailable (the user's
//     budget, resolved against the live N), once the workload has first reached it;
//  2. surge: the ReplicaSets never ask for more than N + maxSurge pods (the user's), the bound the
//     native controller keeps too (live pods may overlap for a moment: one being deleted while its
//     replacement is created). Not judged while kube-controller-manager is away (controllerAway(),
//     and a grace period after it is back): a scale of the Deployment reaches its ReplicaSets only
//     through the Deployment controller, so a natively managed Deployment breaks this bound too, and
//     no pod is created or deleted meanwhile; what the ReplicaSets ask for once it is back is judged.
//     Under the Partition strategy the reconciler is the Deployment's only scaler (the native
//     controller leaves ReplicaSets alone on Recreate), so likewise while it is away (reconcilerAway());
//  3. never Recreate behaviour: the Deployment is never seen unpaused on strategy Recreate;
//  4. Partition strategy only (`partition: true`): the native Deployment controller changes no
//     ReplicaSet's replicas except to propagate a change of the Deployment's own replicas, or to
//     size a lone active ReplicaSet to N (which it does paused or not: Kubernetes' pkg/controller/deployment/sync.go, scale), and
//     creates no ReplicaSet (attribution from managedFields: the manager owning spec.replicas is the
//     one that last set it; the Deployment's replica change may arrive on its watch after the
//     ReplicaSet's, so a scale is judged a grace period later). Under MinReadySeconds the native
//     controller is the one moving pods;
//  5. approval gates, when a test sets them with capPods(): no more live pods of an image, and no
//     ReplicaSet of that image asking for more, than the batch approved so far; under
//     MinReadySeconds plus what a scale-up by the user added since (the controller spreads it over
//     both revisions, README "Deployment strategies").
// The user's budget is what the Deployment had when the watcher started (at rest), unless given.
import type { KubeConfig } from '@kubernetes/client-node';
import { ApprovalCaps } from './approvalCaps.ts';
import { watchPaths, type NamespaceWatch } from './namespaceWatch.ts';
import { resolveRollingBudget } from '../../shared/rollout/arithmetic.ts';
import type { IntOrPercent } from '../../shared/rollout/types.ts';

type Obj = {
  metadata: { name: string; resourceVersion?: string; generation?: number; deletionTimestamp?: string; annotations?: Record<string, string>; managedFields?: { manager?: string; fieldsV1?: Record<string, unknown> }[] };
  spec?: Record<string, unknown>;
  status?: { conditions?: { type: string; status: string; reason?: string; lastTransitionTime?: string }[]; observedGeneration?: number };
};

/** What the user set on the Deployment before any release. */
export interface UserBudget {
  maxSurge?: IntOrPercent;
  maxUnavailable?: IntOrPercent;
  minReadySeconds: number;
}

export interface WatchOptions {
  /** The Partition strategy: the native controller must not move pods itself. */
  partition?: boolean;
  /** The user's budget; default: read from the Deployment when the watcher starts. */
  user?: UserBudget;
  /**
   * Pods the ReplicaSets may ask for beyond N + maxSurge. The Partition strategy needs 1 for the
   * first pod of a release when maxSurge is 0: the native controller resizes a lone active
   * ReplicaSet to N, so the new one must exist before the old one shrinks (README).
   */
  surgeAllowance?: number;
}

const NATIVE_CONTROLLER = 'kube-controller-manager';
/** A replica change by the native controller this soon after the Deployment's replicas changed is propagation. */
const PROPAGATION_GRACE_MS = 15_000;

export class InvariantWatcher {
  readonly violations: string[] = [];
  /** Lowest availability margin seen (available − (N − maxUnavailable)); ≥ 0 means within budget. */
  minMargin = Number.POSITIVE_INFINITY;
  /** Lowest number of truly Available pods seen once the baseline was reached. */
  minAvailable = Number.POSITIVE_INFINITY;
  /** Most live pods seen at once. */
  maxLive = 0;
  /** Times the Deployment was seen unpaused with the native controller reporting the rollout complete. */
  nativeCompletions = 0;
  private readonly pods = new Map<string, Obj>();
  private readonly replicaSets = new Map<string, Obj>();
  private deployment: Obj | null = null;
  private replicasChangedAt = 0;
  /** kube-controller-manager, stopped and started again by the soak. */
  private readonly controller = new Presence();
  /** The reconciler, killed and started again by the soak. */
  private readonly reconciler = new Presence();
  private baseline = false;
  private readonly caps = new ApprovalCaps();
  /** Native scales of a ReplicaSet seen before the Deployment's replica change that explains them (separate watches). */
  private suspects: { at: number; problem: string }[] = [];
  private user: UserBudget | null;
  /** Live (non-terminating) pods per image each time the count changed, in order: a release only adds. */
  readonly podCounts = new Map<string, number[]>();

  private constructor(private readonly namespace: string, private readonly deploymentName: string, private readonly opts: WatchOptions) {
    this.user = opts.user ?? null;
  }

  static async start(admin: KubeConfig, namespace: string, deploymentName: string, opts: WatchOptions = {}): Promise<InvariantWatcher> {
    const w = new InvariantWatcher(namespace, deploymentName, opts);
    w.watch = await watchPaths<'pods' | 'replicaSets' | 'deployments', Obj>(admin, {
      pods: `/api/v1/namespaces/${namespace}/pods`,
      replicaSets: `/apis/apps/v1/namespaces/${namespace}/replicasets`,
      deployments: `/apis/apps/v1/namespaces/${namespace}/deployments`,
    }, (kind, type, obj) => w.onEvent(kind, type, obj), (problem) => {
      if (!w.stopped) w.violations.push(problem);
    });
    return w;
  }

  private watch: NamespaceWatch | null = null;

  /** Times a watch ended and was listed and watched again. */
  get rewatches(): number {
    return this.watch?.rewatches ?? 0;
  }
  private stopped = false;

  stop(): void {
    this.stopped = true;
    this.watch?.stop();
    // No replica change came to explain them.
    for (const s of this.suspects) this.violations.push(s.problem);
    this.suspects = [];
  }

  /**
   * An approval gate: from now on, live pods of `image` and the replicas of any ReplicaSet running
   * it must stay ≤ `max`. Raise it before sending the approval that allows more.
   */
  capPods(image: string, max: number): void {
    this.caps.set(image, max, this.deployment ? this.replicas() : undefined);
    this.checkPodCounts();
  }

  /** Drops every gate (an undo may bring back any earlier image). */
  clearCaps(): void {
    this.caps.clear();
  }

  private replicas(): number {
    return Number(this.deployment?.spec?.replicas ?? 0);
  }

  /**
   * The gate of `image` now. Under MinReadySeconds a scale-up by the user spreads the added pods
   * over both revisions (README, "Deployment strategies"): the batch may grow by what was added.
   * The Partition strategy holds the Deployment on Recreate, where a scale changes nothing: strict.
   */
  private capOf(image: string): number | undefined {
    return this.caps.of(image, this.replicas(), this.opts.partition === true);
  }

  /** kube-controller-manager is being stopped: what the ReplicaSets ask for is not its to keep meanwhile (2. above). */
  controllerAway(): void {
    this.controller.away();
  }

  /** kube-controller-manager runs again; the surge bound is judged again a grace period from now. */
  controllerBack(): void {
    this.controller.back();
  }

  /** The reconciler is being killed: under Partition a scale waits for it (2. above). */
  reconcilerAway(): void {
    this.reconciler.away();
  }

  /** The reconciler is up again; under Partition the surge bound is judged again a grace period from now. */
  reconcilerBack(): void {
    this.reconciler.back();
  }

  /** Throws with every recorded breach. */
  assertClean(): void {
    if (this.violations.length > 0) throw new Error(`invariants broken:\n  ${this.violations.join('\n  ')}`);
  }

  private onEvent(kind: 'pods' | 'replicaSets' | 'deployments', type: string, obj: Obj): void {
    if (type === 'BOOKMARK' || type === 'ERROR') return;
    // A native scale still unexplained a grace period later is the native controller at work.
    const now = Date.now();
    for (const s of this.suspects.filter((x) => now - x.at > PROPAGATION_GRACE_MS)) this.violations.push(s.problem);
    this.suspects = this.suspects.filter((x) => now - x.at <= PROPAGATION_GRACE_MS);
    const name = obj.metadata.name;
    if (kind === 'pods') {
      if (type === 'DELETED') this.pods.delete(name);
      else this.pods.set(name, obj);
      this.checkPodCounts();
    } else if (kind === 'replicaSets') {
      if (this.opts.partition) this.checkReplicaSet(type, obj);
      this.checkCaps(type, obj);
      if (type === 'DELETED') this.replicaSets.delete(name);
      else this.replicaSets.set(name, obj);
    } else if (name === this.deploymentName) {
      const before = this.deployment?.spec?.replicas;
      if (before !== undefined && before !== obj.spec?.replicas) {
        this.replicasChangedAt = Date.now();
        if (Number(obj.spec?.replicas) > Number(before)) this.baseline = false; // new pods are not created yet
        this.caps.scaled(Number(obj.spec?.replicas));
        // The ReplicaSet watch may have delivered the propagation first.
        this.suspects = this.suspects.filter((x) => this.replicasChangedAt - x.at > PROPAGATION_GRACE_MS);
      }
      this.deployment = type === 'DELETED' ? null : obj;
      if (this.deployment) {
        this.user ??= userBudgetOf(this.deployment);
        if (reportsComplete(this.deployment)) this.nativeCompletions += 1;
        const strategy = this.deployment.spec?.strategy as { type?: string } | undefined;
        if (this.deployment.spec?.paused !== true && strategy?.type === 'Recreate') {
          this.violations.push(`Deployment ${name} seen unpaused on strategy Recreate at ${new Date().toISOString()} (the native controller would delete every pod at once)`);
        }
      }
    }
    this.checkAvailability();
  }

  private checkReplicaSet(type: string, rs: Obj): void {
    const manager = replicasOwner(rs);
    if (type === 'ADDED' && manager === NATIVE_CONTROLLER) {
      this.violations.push(`the native controller created ReplicaSet ${rs.metadata.name} at ${new Date().toISOString()}`);
    }
    const before = this.replicaSets.get(rs.metadata.name);
    if (type !== 'MODIFIED' || !before || before.spec?.replicas === rs.spec?.replicas) return;
    const loneToN = Number(rs.spec?.replicas) === Number(this.deployment?.spec?.replicas) &&
      [...this.replicaSets.values()].every((o) => o.metadata.name === rs.metadata.name || Number(o.spec?.replicas ?? 0) === 0);
    if (manager === NATIVE_CONTROLLER && !loneToN && Date.now() - this.replicasChangedAt > PROPAGATION_GRACE_MS) {
      this.suspects.push({ at: Date.now(), problem: `the native controller scaled ReplicaSet ${rs.metadata.name} ${String(before.spec?.replicas)} → ${String(rs.spec?.replicas)} without a replica change of the Deployment at ${new Date().toISOString()}` });
    }
  }

  private checkCaps(type: string, rs: Obj): void {
    const image = imageOf(rs.spec?.template);
    const cap = image === undefined ? undefined : this.capOf(image);
    if (cap !== undefined && type !== 'DELETED' && Number(rs.spec?.replicas ?? 0) > cap) {
      this.violations.push(`ReplicaSet ${rs.metadata.name} asks for ${String(rs.spec?.replicas)} pods of ${image}, beyond the approved ${cap}`);
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
      const cap = this.capOf(image);
      if (cap !== undefined && count > cap) this.violations.push(`${count} live pods of ${image}, beyond the approved ${cap}`);
    }
  }

  private checkAvailability(): void {
    const d = this.deployment;
    const user = this.user;
    if (!d || !user) return;
    const total = Number(d.spec?.replicas ?? 1);
    const { maxSurge, maxUnavailable } = resolveRollingBudget(total, user.maxSurge, user.maxUnavailable);
    const now = Date.now();
    const live = [...this.pods.values()].filter((p) => !p.metadata.deletionTimestamp);
    const available = live.filter((p) => trulyAvailable(p, user.minReadySeconds, now)).length;
    const margin = available - (total - maxUnavailable);
    const at = new Date(now).toISOString();
    const asked = [...this.replicaSets.values()].reduce((n, rs) => n + Number(rs.spec?.replicas ?? 0), 0);
    // A scale-down is the user's; its surplus goes away at the controller's pace.
    // Whoever scales the ReplicaSets (kube-controller-manager; under Partition the reconciler too) is there to do it.
    const scalerThere = this.controller.settled(now) && (!this.opts.partition || this.reconciler.settled(now));
    if (scalerThere && now - this.replicasChangedAt > PROPAGATION_GRACE_MS && asked > total + maxSurge + (this.opts.surgeAllowance ?? 0)) {
      this.violations.push(`ReplicaSets ask for ${asked} pods > ${total} + maxSurge ${maxSurge} in ${this.namespace} at ${at}`);
    }
    this.maxLive = Math.max(this.maxLive, live.length);
    if (!this.baseline) {
      if (margin >= 0) this.baseline = true;
      return;
    }
    this.minMargin = Math.min(this.minMargin, margin);
    this.minAvailable = Math.min(this.minAvailable, available);
    if (margin < 0) {
      this.violations.push(`availability ${available} < ${total} − ${maxUnavailable} in ${this.namespace} at ${at}`);
    }
  }
}

/** A component the soak stops and starts again: away since when, and back since when. */
class Presence {
  private awaySince: number | null = null;
  private backAt = 0;

  away(): void {
    this.awaySince ??= Date.now();
  }

  back(): void {
    this.awaySince = null;
    this.backAt = Date.now();
  }

  /** There, and for longer than the grace a scale needs to reach the ReplicaSets. */
  settled(now: number): boolean {
    return this.awaySince === null && now - this.backAt > PROPAGATION_GRACE_MS;
  }
}

/** One raw GET helper for the test support (wire JSON): namespaceWatch.ts's. */
export { rawGet } from './namespaceWatch.ts';

function reportsComplete(d: Obj): boolean {
  const st = d.status;
  const generation = d.metadata.generation ?? 0;
  return d.spec?.paused !== true && (st?.observedGeneration ?? -1) >= generation &&
    (st?.conditions ?? []).some((c) => c.type === 'Progressing' && c.status === 'True' && c.reason === 'NewReplicaSetAvailable');
}

/** The first container's image of a pod (or of a pod template). */
function imageOf(podOrTemplate: unknown): string | undefined {
  const containers = (podOrTemplate as { spec?: { containers?: { image?: string }[] } } | undefined)?.spec?.containers;
  return containers?.[0]?.image;
}

/** Ready for at least the user's minReadySeconds, by the Ready condition's lastTransitionTime. */
function trulyAvailable(pod: Obj, minReadySeconds: number, now: number): boolean {
  const ready = (pod.status?.conditions ?? []).find((c) => c.type === 'Ready');
  if (ready?.status !== 'True') return false;
  if (minReadySeconds <= 0) return true;
  const since = Date.parse(ready.lastTransitionTime ?? '');
  return !Number.isNaN(since) && since + minReadySeconds * 1000 <= now;
}

/** The Deployment's own budget, as first seen (the scenarios start the watcher at rest). */
function userBudgetOf(d: Obj): UserBudget {
  const strategy = d.spec?.strategy as { rollingUpdate?: { maxSurge?: IntOrPercent; maxUnavailable?: IntOrPercent } } | undefined;
  return {
    ...(strategy?.rollingUpdate?.maxSurge !== undefined ? { maxSurge: strategy.rollingUpdate.maxSurge } : {}),
    ...(strategy?.rollingUpdate?.maxUnavailable !== undefined ? { maxUnavailable: strategy.rollingUpdate.maxUnavailable } : {}),
    minReadySeconds: Number(d.spec?.minReadySeconds ?? 0),
  };
}

function replicasOwner(rs: Obj): string | undefined {
  return rs.metadata.managedFields?.find((m) => {
    const spec = m.fieldsV1?.['f:spec'] as Record<string, unknown> | undefined;
    return spec !== undefined && 'f:replicas' in spec;
  })?.manager;
}
