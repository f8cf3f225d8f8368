// Observation → WorkloadView for a Deployment, in either strategy. The workload itself says which
// release strategy is in flight (its annotations), so a lost STATE changes nothing:
//  - MinReadySeconds: held by the inflated minReadySeconds (never paused mid-release); a pod counts
//    as Available once Ready for the user's ORIGINAL minReadySeconds (the inflated field makes the
//    controller's own counts useless);
//  - Partition: held by spec.paused, ReplicaSet counts as the controller reports them;
//  - CanaryWorkload: held by spec.paused, the new revision's pods in the `<name>-canary` Deployment
//    (canaryView.ts);
//  - at rest: held by spec.paused.
import { resolveRollingBudget } from '../../rollout/arithmetic.ts';
import type { DeploymentStrategy, RevisionView, WorkloadView } from '../../rollout/types.ts';
import type { KubeObject } from '../../kube/types.ts';
import type { Observation } from '../driver.ts';
import { MAX_INT32, ORIGINAL_STRATEGY, inTakeover, revisionNumber, strategyOf, userStrategy, type Strategy } from './deploymentObjects.ts';
import { condition, images, isControlledBy, num, replicasOf, selectorString, spec, status, templateOf } from '../common/objects.ts';
import { isAvailable, nextAvailableAt } from '../common/pods.ts';
import { podBlockers, replicaFailure } from '../common/blockers.ts';
import type { Blocker } from '../../rollout/cause.ts';
import { readOriginals, type OriginalsRead } from './originals.ts';
import { newReplicaSetName } from './replicaSetName.ts';
import { activePodsOrder } from '../common/podOrder.ts';
import { revisionId } from './revision.ts';
import { readCanary } from './canaryObjects.ts';
import { canaryBlocked, canaryHeld, canaryObserved, withCanaryPods } from './canaryView.ts';

const MISSING: WorkloadView = {
  kind: 'Deployment', exists: false, replicas: 0, templateRevision: '', revisions: [], held: false,
  observed: true, nativeComplete: false, maxSurge: 0, maxUnavailable: 0, problems: [], strategy: null, nextAvailableAt: null,
  toReplace: [], blocked: null, blockers: [],
};

export function deploymentView(obs: Observation): WorkloadView {
  const d = obs.workload;
  if (!d) return MISSING;
  const total = replicasOf(d);
  const owned = ownedReplicaSets(obs);
  const originals = readOriginals(d);
  const strategy = userRollingStrategy(d, originals);
  const budget = resolveRollingBudget(total, strategy.rollingUpdate?.maxSurge, strategy.rollingUpdate?.maxUnavailable);
  const canary = readCanary(d, obs.others);
  const observed =
    num(status(d).observedGeneration, -1) >= num(d.metadata.generation) &&
    owned.every((rs) => num(status(rs).observedGeneration, -1) >= num(rs.metadata.generation)) &&
    canaryObserved(canary);
  const counting = availabilityRule(obs, originals);
  const templateRevision = revisionId(templateOf(d));
  return {
    kind: 'Deployment',
    exists: true,
    replicas: total,
    templateRevision,
    templateImages: images(templateOf(d)),
    revisions: withCanaryPods(revisionViews(owned, counting), canary),
    held: canaryHeld(d, canary) || originals.state !== 'absent',
    observed,
    nativeComplete: nativeComplete(d, total, observed),
    maxSurge: budget.maxSurge,
    maxUnavailable: budget.maxUnavailable,
    problems: problems(obs, strategy.type, originals, owned, templateRevision),
    strategy: canary.state === 'ours' ? 'CanaryWorkload' : strategyInFlight(d, originals),
    nextAvailableAt: counting.pods ? nextAvailableAt(counting.pods, counting.minReadySeconds, counting.now) : null,
    toReplace: oldPods(obs, owned, templateRevision),
    blocked: canaryBlocked(d, canary, owned.some((rs) => revisionId(templateOf(rs)) === templateRevision)),
    blockers: blockers(obs, owned),
  };
}

/**
 * Live pods of the ReplicaSets of other revisions than the template's, in the order the ReplicaSet
 * controller deletes them when an old ReplicaSet is scaled down (../common/podOrder.ts, with
 * pod-deletion-cost). Only the pods the observation lists: mostly none for a Deployment.
 */
function oldPods(obs: Observation, owned: KubeObject[], templateRevision: string): string[] {
  const old = new Set(owned.filter((rs) => revisionId(templateOf(rs)) !== templateRevision).map((rs) => rs.metadata.uid));
  const pods = obs.pods.filter((p) => !p.metadata.deletionTimestamp && (p.metadata.ownerReferences ?? []).some((o) => o.controller === true && old.has(o.uid)));
  return activePodsOrder(pods, { deletionCost: true }).map((p) => p.metadata.name);
}

/** Pods (when observe read them) and ReplicaSets that keep the batch from becoming Available, with their revision. */
function blockers(obs: Observation, owned: KubeObject[]): Blocker[] {
  const revisionOf = (rs: KubeObject) => revisionId(templateOf(rs));
  const failures = owned.flatMap((rs) => replicaFailure(rs, revisionOf(rs)) ?? []);
  const pods = podBlockers(obs.pods, (pod) => {
    const rs = owned.find((r) => isControlledBy(pod, r));
    return rs ? revisionOf(rs) : null;
  });
  return [...failures, ...pods];
}

/** ReplicaSets the Deployment controls, plus orphans its selector matches (it would adopt them). */
export function ownedReplicaSets(obs: Observation): KubeObject[] {
  const d = obs.workload;
  if (!d) return [];
  return obs.children.filter(
    (rs) => rs.kind === 'ReplicaSet' && !rs.metadata.deletionTimestamp &&
      (isControlledBy(rs, d) || !(rs.metadata.ownerReferences ?? []).some((r) => r.controller)),
  );
}

/** The release strategy whose changes the Deployment carries, read from the Deployment alone. */
export function strategyInFlight(d: KubeObject, originals: OriginalsRead = readOriginals(d)): DeploymentStrategy | null {
  if (originals.state !== 'absent') return 'MinReadySeconds';
  return inTakeover(d) ? 'Partition' : null;
}

/** The user's strategy: from the MinReadySeconds annotations, the Partition annotation, or the live object. */
function userRollingStrategy(d: KubeObject, originals: OriginalsRead): Strategy {
  if (originals.state !== 'ok') return userStrategy(d);
  const live = strategyOf(d);
  const { maxSurge, maxUnavailable } = originals.originals;
  return { ...live, rollingUpdate: { ...(maxSurge === null ? {} : { maxSurge }), ...(maxUnavailable === null ? {} : { maxUnavailable }) } };
}

/** How Available pods are counted: from the ReplicaSets' status, or from the pods against the original minReadySeconds. */
interface AvailabilityRule {
  /** The pods (listed by observe) when they must be judged one by one; null = ReplicaSet status. */
  pods: KubeObject[] | null;
  minReadySeconds: number;
  now: Date;
  /** Without pods, while minReadySeconds is inflated: the original is 0, so Ready is Available. */
  readyIsAvailable: boolean;
}

function availabilityRule(obs: Observation, originals: OriginalsRead): AvailabilityRule {
  const now = obs.now;
  if (originals.state !== 'ok') return { pods: null, minReadySeconds: 0, now, readyIsAvailable: false };
  const minReadySeconds = originals.originals.minReadySeconds ?? 0;
  // observe lists pods exactly when this needs them (driver.ts): a non-zero original minReadySeconds.
  if (minReadySeconds > 0) return { pods: obs.pods.filter((p) => !p.metadata.deletionTimestamp), minReadySeconds, now, readyIsAvailable: false };
  return { pods: null, minReadySeconds, now, readyIsAvailable: true };
}

function revisionViews(owned: KubeObject[], rule: AvailabilityRule): RevisionView[] {
  const byId = new Map<string, RevisionView>();
  for (const rs of owned) {
    const template = templateOf(rs);
    const id = revisionId(template);
    const st = status(rs);
    const prev = byId.get(id);
    // Two ReplicaSets with one template only happen after a hash collision; count them together.
    byId.set(id, {
      id,
      number: Math.max(prev?.number ?? 0, revisionNumber(rs)),
      images: images(template),
      desired: (prev?.desired ?? 0) + num(spec(rs).replicas, 1),
      current: (prev?.current ?? 0) + num(st.replicas),
      ready: (prev?.ready ?? 0) + num(st.readyReplicas),
      available: (prev?.available ?? 0) + availableOf(rs, rule),
    });
  }
  return [...byId.values()].sort((a, b) => b.number - a.number);
}

function availableOf(rs: KubeObject, rule: AvailabilityRule): number {
  const st = status(rs);
  if (rule.pods) {
    return rule.pods.filter((p) => isControlledBy(p, rs) && isAvailable(p, rule.minReadySeconds, rule.now)).length;
  }
  return rule.readyIsAvailable ? num(st.readyReplicas) : num(st.availableReplicas);
}

/**
 * The native controller reports the rollout complete: not paused, it has observed the latest spec,
 * and its Progressing condition says NewReplicaSetAvailable (or, with no progress deadline, the
 * counts say every replica is updated and available).
 */
function nativeComplete(d: KubeObject, total: number, observed: boolean): boolean {
  if (spec(d).paused === true || !observed) return false;
  const st = status(d);
  const counts = num(st.updatedReplicas) === total && num(st.replicas) === total && num(st.availableReplicas) === total;
  if (!counts) return false;
  if (num(spec(d).progressDeadlineSeconds, 600) === MAX_INT32) return true;
  const progressing = condition(d, 'Progressing');
  return progressing?.status === 'True' && progressing.reason === 'NewReplicaSetAvailable';
}

function problems(obs: Observation, userStrategyType: string | undefined, originals: OriginalsRead, owned: KubeObject[], templateRevision: string): string[] {
  const d = obs.workload as KubeObject;
  const out: string[] = [];
  if (selectorString(spec(d).selector) === '') {
    out.push('spec.selector selects every pod in the namespace; a non-empty selector is required (the Deployment controller refuses it too)');
  }
  if (d.metadata.deletionTimestamp) out.push('the Deployment is being deleted');
  if (userStrategyType === 'Recreate') out.push('spec.strategy.type Recreate cannot be released in batches; use RollingUpdate');
  if (originals.state === 'broken') out.push(...originals.problems);
  const live = strategyOf(d);
  if (inTakeover(d) && originals.state !== 'absent') {
    out.push(`the Deployment carries both the Partition annotation ${ORIGINAL_STRATEGY} and the MinReadySeconds rollouts.kruise.io/original-* annotations; remove the one that does not describe the release in flight`);
  } else if (inTakeover(d) && live.type !== 'Recreate') {
    out.push(`spec.strategy was changed during a release (annotation ${ORIGINAL_STRATEGY} expects Recreate while pods move)`);
  }
  const collision = nameCollision(obs, owned, templateRevision);
  if (collision) out.push(collision);
  return out;
}

/** A ReplicaSet that is not the Deployment's holds the name its next ReplicaSet would get (observe read it by name). */
function nameCollision(obs: Observation, owned: KubeObject[], templateRevision: string): string | null {
  const d = obs.workload as KubeObject;
  const name = newReplicaSetName(d, owned, templateRevision);
  const holder = (obs.others ?? []).find((o) => o.kind === 'ReplicaSet' && o.metadata.name === name && !owned.some((rs) => rs.metadata.uid === o.metadata.uid));
  // One being deleted is gone in a moment (a Deployment deleted and created again): wait for it.
  if (!holder || holder.metadata.deletionTimestamp) return null;
  return `ReplicaSet ${name} already exists and does not belong to Deployment ${d.metadata.name} (name collision), so the new revision's ReplicaSet cannot be created; delete or rename it`;
}
