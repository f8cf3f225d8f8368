// Observation → WorkloadView for a Deployment held in partition style.
import { resolveRollingBudget } from '../../rollout/arithmetic.ts';
import type { RevisionView, WorkloadView } from '../../rollout/types.ts';
import type { KubeObject } from '../../kube/types.ts';
import type { Observation } from '../driver.ts';
import { MAX_INT32, ORIGINAL_STRATEGY, inTakeover, revisionNumber, strategyOf, userStrategy } from './deploymentObjects.ts';
import { condition, images, isControlledBy, num, replicasOf, selectorString, spec, status, templateOf } from '../common/objects.ts';
import { revisionId } from './revision.ts';

export function deploymentView(obs: Observation): WorkloadView {
  const d = obs.workload;
  if (!d) {
    return {
      kind: 'Deployment', exists: false, replicas: 0, templateRevision: '', revisions: [], held: false,
      observed: true, nativeComplete: false, maxSurge: 0, maxUnavailable: 0, problems: [],
    };
  }
  const total = replicasOf(d);
  const owned = ownedReplicaSets(obs);
  const strategy = userStrategy(d);
  const budget = resolveRollingBudget(total, strategy.rollingUpdate?.maxSurge, strategy.rollingUpdate?.maxUnavailable);
  const observed =
    num(status(d).observedGeneration, -1) >= num(d.metadata.generation) &&
    owned.every((rs) => num(status(rs).observedGeneration, -1) >= num(rs.metadata.generation));
  return {
    kind: 'Deployment',
    exists: true,
    replicas: total,
    templateRevision: revisionId(templateOf(d)),
    revisions: revisionViews(owned),
    held: spec(d).paused === true,
    observed,
    nativeComplete: nativeComplete(d, total, observed),
    maxSurge: budget.maxSurge,
    maxUnavailable: budget.maxUnavailable,
    problems: problems(d, strategy.type),
  };
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

function revisionViews(owned: KubeObject[]): RevisionView[] {
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
      available: (prev?.available ?? 0) + num(st.availableReplicas),
    });
  }
  return [...byId.values()].sort((a, b) => b.number - a.number);
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

function problems(d: KubeObject, userStrategyType: string | undefined): string[] {
  const out: string[] = [];
  if (selectorString(spec(d).selector) === '') {
    out.push('spec.selector selects every pod in the namespace; a non-empty selector is required (the Deployment controller refuses it too)');
  }
  if (d.metadata.deletionTimestamp) out.push('the Deployment is being deleted');
  if (userStrategyType === 'Recreate') out.push('spec.strategy.type Recreate cannot be released in batches; use RollingUpdate');
  const live = strategyOf(d);
  if (inTakeover(d) && live.type !== 'Recreate') {
    out.push(`spec.strategy was changed during a release (annotation ${ORIGINAL_STRATEGY} expects Recreate while pods move)`);
  }
  return out;
}
