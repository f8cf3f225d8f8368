// Watches one namespace of the real test cluster during a release scenario and records every
// breach of the contract the product promises (issues 10 and 23). No check is suspended for a
// while: where native Kubernetes itself does not keep a rule at some moment, a narrower rule that
// it keeps is judged instead, and the time or the checks each exemption covers are counted
// (coverage(), bench/testbed/coverage.ts), each exemption with its native-behaviour test (NB-n in
// test/integration/native.behaviour.test.ts, run with no reconciler of ours):
//  1. availability: truly Available pods — Ready for at least the user's ORIGINAL minReadySeconds,
//     whatever the (possibly inflated) field says — never fall below N − maxUnavailable (the user's
//     budget, resolved against the live N). After a scale-up, until the new pods make it, the
//     Deployment controller's own rule is judged instead: no Available pod is deleted while fewer
//     than N − maxUnavailable are Available (sync.go/rolling.go: old ReplicaSets are scaled down
//     only by what Available pods above N − maxUnavailable allow; NB-1);
//  2. surge: every write that makes a ReplicaSet ask for more pods (ours, the native controller's)
//     leaves them asking for at most N + maxSurge (the user's), N as the Deployment had it when the
//     write was made (resourceVersions order the two watches: the test control plane has one etcd).
//     A scale-down by the user leaves the ReplicaSets above the new bound until the controller
//     (under Partition, the reconciler) takes them down: not a write of anyone's, counted as
//     exempt seconds ('scaleDownNotYetApplied', NB-2: a native Deployment keeps a scale-down's
//     ReplicaSets while kube-controller-manager is away). Partition with maxSurge 0 only: one pod
//     more (surgeAllowance), the first pod of a release, whose ReplicaSet must exist before the old
//     one shrinks because the native controller sizes a lone active ReplicaSet to N (NB-3).
//     Live pods (each ReplicaSet's counted up to what it asks for: the rest are being removed, and
//     pods of no ReplicaSet of the Deployment in full) are judged the same way at each pod created;
//  3. never Recreate behaviour: the Deployment is never seen unpaused on strategy Recreate;
//  4. Partition strategy only (`partition: true`): the native Deployment controller changes no
//     ReplicaSet's replicas except to propagate a change of the Deployment's own replicas made
//     since that ReplicaSet's previous change, or to size a lone active ReplicaSet to N (which it
//     does paused or not: Kubernetes' pkg/controller/deployment/sync.go, scale; NB-3), and creates no ReplicaSet (attribution from
//     managedFields: the manager owning spec.replicas is the one that last set it). Under
//     MinReadySeconds the native controller is the one moving pods;
//  5. approval gates, when a test sets them with capPods()/capStep(): no write adds pods of an
//     image beyond the step approved so far (bench/testbed/approvalCaps.ts: under MinReadySeconds
//     plus the share the controller's proportional scaling gives it, bench/testbed/proportionalScale.ts).
// A write seen on the ReplicaSet or pod watch before the Deployment change that explains it (two
// watches) is judged once the Deployment watch has passed it (settle() at the end judges the rest).
// The user's budget is what the Deployment had when the watcher started (at rest), unless given.
import type { KubeConfig } from '@kubernetes/client-node';
import { ApprovalCaps, GatedWatcher } from './approvalCaps.ts';
import { Coverage, type InvariantCoverage, type Window } from './coverage.ts';
import { rawGet, watchPaths, type NamespaceWatch } from './namespaceWatch.ts';
import { proportionalSizes } from './proportionalScale.ts';
import { resolveRollingBudget, scaledValue } from '../../shared/rollout/arithmetic.ts';
import type { IntOrPercent } from '../../shared/rollout/types.ts';

type Obj = {
  metadata: {
    name: string; resourceVersion?: string; generation?: number; deletionTimestamp?: string; creationTimestamp?: string;
    annotations?: Record<string, string>; ownerReferences?: { kind?: string; name?: string }[];
    managedFields?: { manager?: string; fieldsV1?: Record<string, unknown> }[];
  };
  spec?: Record<string, unknown>;
  status?: { conditions?: { type: string; status: string; reason?: string; lastTransitionTime?: string }[]; observedGeneration?: number; replicas?: number };
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
   * One pod more for the first pod of a release under Partition when the user's maxSurge is 0 (2.
   * above, NB-3); ignored in every other case.
   */
  surgeAllowance?: boolean;
}

const NATIVE_CONTROLLER = 'kube-controller-manager';

/** A write judged once the Deployment's watch has passed its resourceVersion. */
interface Suspect {
  rv: number;
  /** The breach, judged again with what is known then (null: explained). */
  judge: () => string | null;
}

export class InvariantWatcher extends GatedWatcher {
  /** Lowest availability margin seen (available − (N − maxUnavailable)), while judged in full. */
  minMargin = Number.POSITIVE_INFINITY;
  /** Lowest number of truly Available pods seen while judged in full. */
  minAvailable = Number.POSITIVE_INFINITY;
  /** Most live pods seen at once. */
  maxLive = 0;
  /** Times the Deployment was seen unpaused with the native controller reporting the rollout complete. */
  nativeCompletions = 0;
  private readonly pods = new Map<string, Obj>();
  private readonly replicaSets = new Map<string, Obj>();
  /** resourceVersion of each ReplicaSet's last change of replicas. */
  private readonly replicasChangedRv = new Map<string, number>();
  private deployment: Obj | null = null;
  /** The Deployment's replicas by resourceVersion, in order (each change, and the first seen). */
  private readonly replicasHistory: { rv: number; replicas: number }[] = [];
  private deploymentRv = 0;
  /** Judging availability in full (false: after a scale-up, until N − maxUnavailable is reached). */
  private baseline = false;
  protected readonly caps: ApprovalCaps;
  private suspects: Suspect[] = [];
  private user: UserBudget | null;
  private readonly coverageOf = new Coverage();
  /** Live (non-terminating) pods per image each time the count changed, in order: a release only adds. */
  readonly podCounts = new Map<string, number[]>();

  private constructor(private readonly namespace: string, private readonly deploymentName: string, private readonly opts: WatchOptions) {
    super();
    this.user = opts.user ?? null;
    this.caps = new ApprovalCaps('Deployment', opts.partition ? 'strict' : 'proportional');
  }

  static async start(admin: KubeConfig, namespace: string, deploymentName: string, opts: WatchOptions = {}): Promise<InvariantWatcher> {
    const w = new InvariantWatcher(namespace, deploymentName, opts);
    w.admin = admin;
    // Judged from the start: each at every event that could break it (the watch seeds them below).
    for (const invariant of ['approvalGates', 'livePods', 'recreate', ...(opts.partition ? ['nativeScales'] : [])]) w.coverageOf.mode(invariant, 'judged');
    w.watch = await watchPaths<'pods' | 'replicaSets' | 'deployments', Obj>(admin, {
      pods: `/api/v1/namespaces/${namespace}/pods`,
      replicaSets: `/apis/apps/v1/namespaces/${namespace}/replicasets`,
      deployments: `/apis/apps/v1/namespaces/${namespace}/deployments`,
    }, (kind, type, obj) => w.onEvent(kind, type, obj), (problem) => {
      if (!w.stopped) w.violations.push(problem);
    });
    return w;
  }

  private admin: KubeConfig | null = null;
  private watch: NamespaceWatch | null = null;

  /** Times a watch ended and was listed and watched again. */
  get rewatches(): number {
    return this.watch?.rewatches ?? 0;
  }
  private stopped = false;

  /**
   * Judges every write still waiting for the Deployment's watch: reads the Deployment, waits (a
   * few seconds at most) for its watch to deliver that version, then judges with what is known.
   * Call before reading violations for a summary.
   */
  async settle(): Promise<void> {
    const d = await rawGet(this.admin as KubeConfig, `/apis/apps/v1/namespaces/${this.namespace}/deployments/${this.deploymentName}`).catch(() => null) as Obj | null;
    const target = rvOf(d);
    for (let i = 0; i < 50 && this.deploymentRv < target; i += 1) await new Promise((r) => setTimeout(r, 100));
    this.resolveSuspects(Number.POSITIVE_INFINITY);
  }

  stop(): void {
    this.stopped = true;
    this.watch?.stop();
    this.resolveSuspects(Number.POSITIVE_INFINITY);
  }

  /** Seconds and checks each invariant judged or exempted over `window`. */
  coverage(window: Window): Record<string, InvariantCoverage> {
    return this.coverageOf.report(window);
  }

  protected replicas(): number {
    return Number(this.deployment?.spec?.replicas ?? 0);
  }

  private onEvent(kind: 'pods' | 'replicaSets' | 'deployments', type: string, obj: Obj): void {
    if (type === 'BOOKMARK' || type === 'ERROR') return;
    const name = obj.metadata.name;
    if (kind === 'pods') {
      const before = this.pods.get(name);
      this.checkPodRemoval(before, type, obj);
      if (type === 'DELETED') this.pods.delete(name);
      else this.pods.set(name, obj);
      this.checkPodCounts(before === undefined && type !== 'DELETED' ? obj : null);
    } else if (kind === 'replicaSets') {
      const before = this.replicaSets.get(name);
      if (type === 'DELETED') this.replicaSets.delete(name);
      else this.replicaSets.set(name, obj);
      const asked = (o: Obj | undefined) => Number(o?.spec?.replicas ?? 0);
      if (type !== 'DELETED' && asked(obj) !== asked(before)) {
        if (this.opts.partition) this.checkNativeScale(type, before, obj);
        this.replicasChangedRv.set(name, rvOf(obj));
        if (asked(obj) > asked(before)) this.checkSurgeWrite(obj);
        if (asked(obj) > asked(before)) this.checkCapWrite(obj);
      } else if (type === 'ADDED' && this.opts.partition) this.checkNativeScale(type, before, obj);
    } else if (name === this.deploymentName) {
      this.onDeployment(type, obj);
    }
    this.checkAvailability();
    this.markSurgeMode();
  }

  private onDeployment(type: string, obj: Obj): void {
    const before = this.deployment?.spec?.replicas;
    const rv = rvOf(obj);
    if (type !== 'DELETED' && (before === undefined || before !== obj.spec?.replicas)) {
      this.replicasHistory.push({ rv, replicas: Number(obj.spec?.replicas ?? 0) });
      if (before !== undefined) {
        const from = Number(before);
        const to = Number(obj.spec?.replicas);
        if (to > from) this.baseline = false; // new pods are not created yet: 1. above, narrowed
        this.deployment = obj;
        this.caps.scaled(from, to, (image, podsNow) => this.shareOf(image, podsNow, obj));
      }
    }
    this.deployment = type === 'DELETED' ? null : obj;
    if (type !== 'DELETED') this.deploymentRv = Math.max(this.deploymentRv, rv);
    if (this.deployment) {
      this.user ??= userBudgetOf(this.deployment);
      if (reportsComplete(this.deployment)) this.nativeCompletions += 1;
      const strategy = this.deployment.spec?.strategy as { type?: string } | undefined;
      this.coverageOf.mode('recreate', 'judged');
      this.coverageOf.sample('recreate');
      if (this.deployment.spec?.paused !== true && strategy?.type === 'Recreate') {
        this.violations.push(`Deployment ${this.deploymentName} seen unpaused on strategy Recreate at ${new Date().toISOString()} (the native controller would delete every pod at once)`);
      }
    }
    this.resolveSuspects(this.deploymentRv);
  }

  /** Judges the writes the Deployment's watch has now passed (all of them: `upTo` Infinity). */
  private resolveSuspects(upTo: number): void {
    const due = this.suspects.filter((s) => s.rv < upTo);
    this.suspects = this.suspects.filter((s) => s.rv >= upTo);
    for (const s of due) {
      const problem = s.judge();
      if (problem !== null) this.violations.push(problem);
    }
  }

  /** Judged now if the Deployment's watch is past `rv`, else once it is (or at settle()). */
  private judgeAt(rv: number, judge: () => string | null): void {
    if (rv < this.deploymentRv || this.stopped) {
      const problem = judge();
      if (problem !== null) this.violations.push(problem);
      return;
    }
    this.suspects.push({ rv, judge });
    this.pokeDeployment();
  }

  private poking = false;

  /** Reads the Deployment: if its watch has delivered its latest version, what waits for it is judged. */
  private pokeDeployment(): void {
    if (this.poking || !this.admin) return;
    this.poking = true;
    void rawGet(this.admin, `/apis/apps/v1/namespaces/${this.namespace}/deployments/${this.deploymentName}`).then((d) => {
      this.poking = false;
      // No newer version than the watch delivered: nothing is on its way that could explain them.
      if (rvOf(d as Obj) <= this.deploymentRv) this.resolveSuspects(Number.POSITIVE_INFINITY);
    }, () => {
      this.poking = false;
    });
  }

  /** The Deployment's replicas as of resourceVersion `rv`. */
  private replicasAt(rv: number): number {
    let n = this.replicasHistory[0]?.replicas ?? this.replicas();
    for (const h of this.replicasHistory) if (h.rv < rv) n = h.replicas;
    return n;
  }

  /** N + maxSurge (the user's) at N, with the Partition allowance when it applies. */
  private surgeBound(total: number): { bound: number; allowance: number } {
    const user = this.user as UserBudget;
    const { maxSurge } = resolveRollingBudget(total, user.maxSurge, user.maxUnavailable);
    const allowance = this.opts.partition && this.opts.surgeAllowance && maxSurge === 0 ? 1 : 0;
    return { bound: total + maxSurge, allowance };
  }

  private asked(): number {
    return [...this.replicaSets.values()].reduce((n, rs) => n + Number(rs.spec?.replicas ?? 0), 0);
  }

  /** 2. above: a ReplicaSet was made to ask for more; the total is judged at the Deployment's N of that moment. */
  private checkSurgeWrite(rs: Obj): void {
    if (!this.user) return;
    const asked = this.asked();
    const rv = rvOf(rs);
    const at = new Date().toISOString();
    const by = replicasOwner(rs) ?? 'unknown';
    this.judgeAt(rv, () => {
      const total = this.replicasAt(rv);
      const { bound, allowance } = this.surgeBound(total);
      this.coverageOf.sample('surge', asked > bound && asked <= bound + allowance ? 'partitionNewReplicaSetFirst' : undefined);
      if (asked <= bound + allowance) return null;
      return `ReplicaSets ask for ${asked} pods > ${total} + maxSurge ${bound - total} in ${this.namespace} at ${at} (ReplicaSet ${rs.metadata.name} → ${String(rs.spec?.replicas)} by ${by})`;
    });
  }

  /** The surge bound's mode now: above it only while a scale-down waits to reach the ReplicaSets. */
  private markSurgeMode(): void {
    if (!this.deployment || !this.user) return;
    const { bound, allowance } = this.surgeBound(this.replicas());
    this.coverageOf.mode('surge', this.asked() > bound + allowance ? 'exempt:scaleDownNotYetApplied' : 'judged');
  }

  /** 2. above, for pods: at each pod created, live pods within what the ReplicaSets may ask for. */
  private checkLive(created: Obj): void {
    if (!this.user || !this.deployment) return;
    const perOwner = new Map<string, number>();
    let unowned = 0;
    for (const p of this.pods.values()) {
      if (p.metadata.deletionTimestamp) continue;
      const owner = p.metadata.ownerReferences?.find((o) => o.kind === 'ReplicaSet')?.name;
      if (owner !== undefined && this.replicaSets.has(owner)) perOwner.set(owner, (perOwner.get(owner) ?? 0) + 1);
      else unowned += 1;
    }
    let counted = unowned;
    for (const [owner, n] of perOwner) counted += Math.min(n, Number(this.replicaSets.get(owner)?.spec?.replicas ?? 0));
    const rv = rvOf(created);
    const asked = this.asked();
    const at = new Date().toISOString();
    this.judgeAt(rv, () => {
      const total = this.replicasAt(rv);
      const { bound, allowance } = this.surgeBound(total);
      this.coverageOf.sample('livePods');
      // Above the bound only as far as a scale-down not yet applied keeps the ReplicaSets asking.
      if (counted <= Math.max(bound + allowance, asked)) return null;
      return `${counted} live pods > ${total} + maxSurge ${bound - total} in ${this.namespace} at ${at} (pod ${created.metadata.name} created)`;
    });
  }

  /** 4. above (Partition): a native change of a ReplicaSet's replicas must be propagation or the lone-ReplicaSet rule. */
  private checkNativeScale(type: string, before: Obj | undefined, rs: Obj): void {
    const manager = replicasOwner(rs);
    this.coverageOf.mode('nativeScales', 'judged');
    this.coverageOf.sample('nativeScales');
    if (type === 'ADDED' && manager === NATIVE_CONTROLLER) {
      this.violations.push(`the native controller created ReplicaSet ${rs.metadata.name} at ${new Date().toISOString()}`);
    }
    if (type !== 'MODIFIED' || !before || manager !== NATIVE_CONTROLLER) return;
    const loneToN = Number(rs.spec?.replicas) === this.replicas() &&
      [...this.replicaSets.values()].every((o) => o.metadata.name === rs.metadata.name || Number(o.spec?.replicas ?? 0) === 0);
    if (loneToN) return;
    const rv = rvOf(rs);
    const previous = this.replicasChangedRv.get(rs.metadata.name) ?? 0;
    const problem = `the native controller scaled ReplicaSet ${rs.metadata.name} ${String(before.spec?.replicas)} → ${String(rs.spec?.replicas)} without a replica change of the Deployment at ${new Date().toISOString()}`;
    // Propagation: the Deployment's replicas changed after this ReplicaSet's previous change.
    this.judgeAt(rv, () => (this.replicasHistory.some((h, i) => i > 0 && h.rv > previous && h.rv < rv) ? null : problem));
  }

  /** The size the controller's proportional scale gives the ReplicaSet of `image`, counted at `podsNow`. */
  private shareOf(image: string, podsNow: number, d: Obj): number | undefined {
    const rss = [...this.replicaSets.values()];
    const mine = rss.find((rs) => imageOf(rs.spec?.template) === image);
    if (!mine) return undefined;
    const total = Number(d.spec?.replicas ?? 0);
    const live = d.spec?.strategy as { rollingUpdate?: { maxSurge?: IntOrPercent } } | undefined;
    const maxSurge = scaledValue(live?.rollingUpdate?.maxSurge ?? '25%', total, true);
    const sizes = proportionalSizes(rss.map((rs) => ({
      name: rs.metadata.name,
      replicas: rs === mine ? Math.min(Number(rs.spec?.replicas ?? 0), podsNow) : Number(rs.spec?.replicas ?? 0),
      ...(rs.metadata.annotations?.['deployment.kubernetes.io/max-replicas'] !== undefined ? { maxReplicas: Number(rs.metadata.annotations['deployment.kubernetes.io/max-replicas']) } : {}),
      createdAt: Date.parse(rs.metadata.creationTimestamp ?? '') || 0,
    })), { replicas: total, maxSurge, statusReplicas: Number(d.status?.replicas ?? total) });
    // (A ReplicaSet asking for fewer than its batch still grows to the batch at the new N: approvalCaps.ts.)
    return sizes.get(mine.metadata.name);
  }

  /** 5. above: a ReplicaSet of a gated image asks for more. */
  private checkCapWrite(rs: Obj): void {
    const image = imageOf(rs.spec?.template);
    if (image === undefined) return;
    const count = Number(rs.spec?.replicas ?? 0);
    const rv = rvOf(rs);
    this.coverageOf.mode('approvalGates', 'judged');
    this.coverageOf.sample('approvalGates');
    const what = (cap: number) => `ReplicaSet ${rs.metadata.name} asks for ${count} pods of ${image}, beyond the approved ${cap} at ${new Date().toISOString()}`;
    if (this.caps.judge(image, count, this.replicas(), what) === null) return;
    // Perhaps a scale whose Deployment change the other watch has not delivered yet.
    this.judgeAt(rv, () => this.caps.judge(image, count, this.replicas(), what));
  }

  /** 5. above for pods, and the series of live pods per image; `created`: the pod just added. */
  private checkPodCounts(created: Obj | null): void {
    const live = new Map<string, number>();
    for (const pod of this.pods.values()) {
      const image = imageOf(pod);
      if (image !== undefined && !pod.metadata.deletionTimestamp) live.set(image, (live.get(image) ?? 0) + 1);
    }
    this.maxLive = Math.max(this.maxLive, [...live.values()].reduce((a, b) => a + b, 0));
    for (const image of new Set([...live.keys(), ...this.podCounts.keys()])) {
      const count = live.get(image) ?? 0;
      const series = this.podCounts.get(image) ?? [];
      if (series[series.length - 1] !== count) this.podCounts.set(image, [...series, count]);
    }
    if (!created) return;
    this.checkLive(created);
    const image = imageOf(created);
    if (image === undefined) return;
    const count = live.get(image) ?? 0;
    this.coverageOf.sample('approvalGates');
    const what = (cap: number) => `${count} live pods of ${image}, beyond the approved ${cap} at ${new Date().toISOString()} (pod ${created.metadata.name} created)`;
    if (this.caps.judge(image, count, this.replicas(), what) === null) return;
    this.judgeAt(rvOf(created), () => this.caps.judge(image, count, this.replicas(), what));
  }

  /** 1. above, narrowed: after a scale-up, no Available pod goes while fewer than N − maxUnavailable are Available. */
  private checkPodRemoval(before: Obj | undefined, type: string, pod: Obj): void {
    const d = this.deployment;
    const user = this.user;
    if (!before || before.metadata.deletionTimestamp || !d || !user || this.baseline) return;
    const going = type === 'DELETED' || pod.metadata.deletionTimestamp !== undefined;
    const now = Date.now();
    if (!going || !trulyAvailable(before, user.minReadySeconds, now)) return;
    const { floor, available } = this.availability(now);
    this.coverageOf.sample('availability');
    if (available < floor) {
      this.violations.push(`Available pod ${pod.metadata.name} deleted while ${available} < ${this.replicas()} − ${this.replicas() - floor} were Available (after a scale-up) in ${this.namespace} at ${new Date(now).toISOString()}`);
    }
  }

  private availability(now: number): { floor: number; available: number } {
    const user = this.user as UserBudget;
    const total = this.replicas();
    const { maxUnavailable } = resolveRollingBudget(total, user.maxSurge, user.maxUnavailable);
    const live = [...this.pods.values()].filter((p) => !p.metadata.deletionTimestamp);
    return { floor: total - maxUnavailable, available: live.filter((p) => trulyAvailable(p, user.minReadySeconds, now)).length };
  }

  private checkAvailability(): void {
    if (!this.deployment || !this.user) return;
    const now = Date.now();
    const { floor, available } = this.availability(now);
    const margin = available - floor;
    if (!this.baseline && margin >= 0) this.baseline = true;
    this.coverageOf.mode('availability', this.baseline ? 'judged' : 'narrowed:noAvailablePodDeletedAfterScaleUp');
    if (!this.baseline) return;
    this.coverageOf.sample('availability');
    this.minMargin = Math.min(this.minMargin, margin);
    this.minAvailable = Math.min(this.minAvailable, available);
    if (margin < 0) {
      this.violations.push(`availability ${available} < ${this.replicas()} − ${this.replicas() - floor} in ${this.namespace} at ${new Date(now).toISOString()}`);
    }
  }
}

function rvOf(o: Obj | null | undefined): number {
  const n = Number(o?.metadata.resourceVersion ?? 0);
  return Number.isFinite(n) ? n : 0;
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
