// The Deployment driver, in three strategies (README "Deployment strategies"): MinReadySeconds (the
// default; the native RollingUpdate controller moves pods, paced by inflated minReadySeconds and a
// per-batch budget), Partition (held with spec.paused, pods moved by scaling ReplicaSets) and
// CanaryWorkload (Kruise's enableExtraWorkloadForCanary: held with spec.paused, the new pods in a
// `<name>-canary` Deployment; canaryWrites.ts). The Deployment's own annotations, or its canary
// Deployment, say which one a release in flight uses.
import type { FieldIssue } from '../../errors.ts';
import type { KubeObject } from '../../kube/types.ts';
import type { ClusterClient } from '../../ports.ts';
import type { WorkloadRef } from '../../rollout/types.ts';
import type { Observation, ObserveOptions, RevisionMembers, WorkloadDriver } from '../driver.ts';
import { num, selectorString, spec, status, templateOf } from '../common/objects.ts';
import { inTakeover, userStrategy } from './deploymentObjects.ts';
import { describeOriginals, readOriginals } from './originals.ts';
import { newReplicaSetName } from './replicaSetName.ts';
import { POD_TEMPLATE_HASH, revisionId } from './revision.ts';
import { deploymentView, ownedReplicaSets, strategyInFlight } from './view.ts';
import { deploymentWrites } from './writes.ts';
import { deploymentWatches } from './watches.ts';
import { DEPLOYMENT_TYPE } from './type.ts';
import { podViews } from '../common/podViews.ts';
import { CANARY_OF, canaryName, readCanary } from './canaryObjects.ts';
import { canaryReplicaSets } from './canaryView.ts';
import { takesStrategicMerge, templateChangeWrite } from '../common/templateChange.ts';

/**
 * One GET and one LIST of ReplicaSets: their status carries every count the planner needs, so a
 * no-op pass reads no more. Pods are listed only while a MinReadySeconds release has a non-zero
 * original minReadySeconds (availability must then be judged pod by pod against it) or while a
 * release has pods that are not Ready (to name what blocks them, podsNotReady), and the name
 * of a ReplicaSet the Partition strategy is about to create is read once, to catch a collision.
 */
async function observe(cluster: ClusterClient, namespace: string, ref: WorkloadRef, now: Date, opts: ObserveOptions = {}): Promise<Observation> {
  const base: Observation = { namespace, ref, workload: null, children: [], pods: [], now };
  const workload = await cluster.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: ref.name });
  if (!workload) return base;
  const selector = selectorString(spec(workload).selector);
  const originals = readOriginals(workload);
  const wantPods = selector !== '' && ((originals.state === 'ok' && (originals.originals.minReadySeconds ?? 0) > 0) || opts.pods === true);
  const [children, pods] = await Promise.all([
    cluster.list('apps/v1', 'ReplicaSet', namespace, selector),
    wantPods ? cluster.list('v1', 'Pod', namespace, selector) : Promise.resolve([]),
  ]);
  const obs: Observation = { ...base, workload, children, pods };
  if (mayHaveCanary(obs)) {
    const canary = await cluster.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: canaryName(ref.name) });
    if (canary) obs.others = [canary];
  }
  if (!wantPods && selector !== '' && podsNotReady(obs)) obs.pods = await cluster.list('v1', 'Pod', namespace, selector);
  const pending = pendingReplicaSetName(obs, originals.state === 'absent');
  if (pending !== null) {
    const holder = await cluster.get({ apiVersion: 'apps/v1', kind: 'ReplicaSet', namespace, name: pending });
    if (holder) obs.others = [...(obs.others ?? []), holder];
  }
  return obs;
}

/**
 * The `<name>-canary` Deployment of a CanaryWorkload release (canaryObjects.ts) is read by name only
 * when one may exist: a ReplicaSet of it is listed (they match the user's selector and carry
 * CANARY_OF), or the Deployment is paused on a template none of its ReplicaSets holds yet (a release
 * under way, where a canary just created has no ReplicaSet yet). A Deployment at rest reads no more.
 */
function mayHaveCanary(obs: Observation): boolean {
  const d = obs.workload as KubeObject;
  if (obs.children.some((rs) => rs.metadata.annotations?.[CANARY_OF] === d.metadata.name)) return true;
  if (spec(d).paused !== true) return false;
  const hash = revisionId(templateOf(d));
  return !ownedReplicaSets(obs).some((rs) => revisionId(templateOf(rs)) === hash);
}

/**
 * Pods are read to name what blocks (shared/workloads/common/blockers.ts) only when a release may be
 * in flight (the Deployment is unpaused, carries a strategy's marks, or has several active
 * ReplicaSets) and a ReplicaSet reports pods that are not Ready: a Deployment at rest, or a batch
 * whose pods are all Ready, reads no more than before.
 */
function podsNotReady(obs: Observation): boolean {
  const d = obs.workload as KubeObject;
  const owned = ownedReplicaSets(obs);
  const active = owned.filter((rs) => num(spec(rs).replicas, 1) > 0);
  const releasing = spec(d).paused !== true || strategyInFlight(d) !== null || active.length > 1;
  return releasing && owned.some((rs) => num(status(rs).replicas) > num(status(rs).readyReplicas) || num(spec(rs).replicas, 1) > num(status(rs).replicas));
}

/** The name a Partition release would create for the template, when it has no ReplicaSet yet and the Deployment is held by pausing. */
function pendingReplicaSetName(obs: Observation, noMinReadyRelease: boolean): string | null {
  const d = obs.workload as KubeObject;
  if (!noMinReadyRelease || spec(d).paused !== true) return null;
  const owned = ownedReplicaSets(obs);
  const hash = revisionId(templateOf(d));
  if (owned.some((rs) => revisionId(templateOf(rs)) === hash)) return null;
  return newReplicaSetName(d, owned, hash);
}

/**
 * Both strategies release through RollingUpdate; a Recreate Deployment would replace every pod at
 * once. The user's strategy: a Partition release in flight keeps it in an annotation.
 */
function applyProblems(d: KubeObject): FieldIssue[] {
  if (userStrategy(d).type !== 'Recreate') return [];
  return [{ path: 'spec.workloadRef', reason: `Deployment ${d.metadata.namespace ?? ''}/${d.metadata.name} has spec.strategy.type Recreate, which replaces every pod at once; batches need RollingUpdate: change the Deployment's strategy first` }];
}

function handBackSummary(d: KubeObject): string[] {
  const lines: string[] = [];
  const read = readOriginals(d);
  if (read.state === 'ok') lines.push(...describeOriginals(read.originals));
  else if (read.state === 'broken') lines.push(`the rollouts.kruise.io/original-* annotations are damaged; what they still say is restored, the rest goes back to the Kubernetes defaults (${read.problems.length} problem(s))`);
  if (inTakeover(d)) lines.push(`spec.strategy: ${JSON.stringify(userStrategy(d))}`);
  if (spec(d).paused === true || read.state !== 'absent' || inTakeover(d)) lines.push('spec.paused: false (the Deployment controller rolls it from now on)');
  return lines;
}

/** Each revision's ReplicaSet (the newest, after a hash collision) and the pods it controls. */
function revisionMembers(obs: Observation): RevisionMembers[] {
  const replicaSets = ownedReplicaSets(obs);
  const canary = obs.workload ? readCanary(obs.workload, obs.others) : ({ state: 'absent' } as const);
  // The canary Deployment's ReplicaSets hold the revision it was made from (canaryView.ts), first.
  const canaryRevision = canary.state === 'ours' ? canary.revision : null;
  const fromCanary = canaryReplicaSets(obs.children, canary);
  return deploymentView(obs).revisions.map((r) => {
    const own = replicaSets.filter((rs) => revisionId(templateOf(rs)) === r.id);
    const mine = [...(r.id === canaryRevision ? fromCanary : []), ...own].sort((a, b) => created(b) - created(a));
    const uids = new Set(mine.map((rs) => rs.metadata.uid));
    return { id: r.id, holder: mine[0] ?? null, pods: obs.pods.filter((p) => (p.metadata.ownerReferences ?? []).some((o) => o.controller === true && uids.has(o.uid))) };
  });
}

function created(o: KubeObject): number {
  const t = Date.parse(String(o.metadata.creationTimestamp ?? ''));
  return Number.isNaN(t) ? 0 : t;
}

export const deploymentDriver: WorkloadDriver<'Deployment'> = {
  kind: 'Deployment',
  type: DEPLOYMENT_TYPE,
  workload: { apiVersion: 'apps/v1', kind: 'Deployment', resource: 'deployments' },
  reads: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', resource: 'replicasets' }, { apiVersion: 'v1', kind: 'Pod', resource: 'pods' }],
  watches: deploymentWatches,
  rbac: {
    reconcile: [
      // CanaryWorkload also reads and scales the `<name>-canary` Deployment (canaryWrites.ts).
      { apiGroup: 'apps', resource: 'deployments', verbs: ['get', 'list', 'watch', 'patch'] },
      // The Partition strategy creates the new revision's ReplicaSet (after reading its name) and scales them.
      { apiGroup: 'apps', resource: 'replicasets', verbs: ['get', 'list', 'watch', 'create', 'patch'] },
      // Listed while a MinReadySeconds release judges availability pod by pod.
      { apiGroup: '', resource: 'pods', verbs: ['list'] },
    ],
    hooks: [
      { apiGroup: '', resource: 'pods/exec', verbs: ['get', 'create'] },
      // pod-deletion-cost on the pods whose preUpdate succeeded: the ReplicaSet controller deletes them first.
      { apiGroup: '', resource: 'pods', verbs: ['patch'] },
    ],
    // CanaryWorkload creates and deletes the `<name>-canary` Deployment (canaryWrites.ts): a grant
    // that reaches every Deployment of the namespace, so it is a role of its own, bound only where used.
    canaryWorkload: [
      { apiGroup: 'apps', resource: 'deployments', verbs: ['create', 'delete'] },
    ],
    view: [
      { apiGroup: 'apps', resource: 'deployments', verbs: ['get'] },
      { apiGroup: 'apps', resource: 'replicasets', verbs: ['get', 'list'] },
      { apiGroup: '', resource: 'pods', verbs: ['list'] },
    ],
  },
  summary: {
    counts: 'spec.replicas',
    readiness: 'new pods Available: Ready for the user\'s own minReadySeconds',
    hold: 'spec.paused: true at rest',
    batch: 'MinReadySeconds (default): the native RollingUpdate controller, paced by an inflated minReadySeconds and a per-pass maxSurge/maxUnavailable; Partition: we scale the ReplicaSets, Recreate while two revisions run; CanaryWorkload: a canary Deployment (the name plus -canary) scaled up per step',
    restore: 'one patch: the user\'s minReadySeconds, progressDeadlineSeconds, maxSurge and maxUnavailable (MinReadySeconds) or strategy (Partition), unpaused; CanaryWorkload: the canary Deployment deleted, then unpaused',
  },
  revisionHolder: 'ReplicaSet',
  revisionMembers,
  revisionLabel: POD_TEMPLATE_HASH,
  observe,
  podTemplate: templateOf,
  templateChange: templateChangeWrite,
  acceptsTemplatePatch: takesStrategicMerge(DEPLOYMENT_TYPE.apiVersion),
  podViews: (obs) => podViews(revisionMembers(obs)),
  view: deploymentView,
  writes: deploymentWrites,
  applyCheck: () => applyProblems,
  handBackSummary,
};
