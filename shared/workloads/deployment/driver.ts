// The Deployment driver, in two strategies (README "Deployment strategies"): MinReadySeconds (the
// default; the native RollingUpdate controller moves pods, paced by inflated minReadySeconds and a
// per-batch budget) and Partition (held with spec.paused, pods moved by scaling ReplicaSets). The
// Deployment's own annotations say which one a release in flight uses.
import type { KubeObject } from '../../kube/types.ts';
import type { ClusterClient } from '../../reconcile/ports.ts';
import type { WorkloadRef } from '../../rollout/types.ts';
import type { Observation, WorkloadDriver } from '../driver.ts';
import { selectorString, spec, templateOf } from '../common/objects.ts';
import { inTakeover, userStrategy } from './deploymentObjects.ts';
import { describeOriginals, readOriginals } from './originals.ts';
import { newReplicaSetName } from './replicaSetName.ts';
import { revisionId } from './revision.ts';
import { deploymentView, ownedReplicaSets } from './view.ts';
import { deploymentWrites } from './writes.ts';
import { deploymentWatches } from './watches.ts';

/**
 * One GET and one LIST of ReplicaSets: their status carries every count the planner needs, so a
 * no-op pass reads no more. Pods are listed only while a MinReadySeconds release has a non-zero
 * original minReadySeconds (availability must then be judged pod by pod against it), and the name
 * of a ReplicaSet the Partition strategy is about to create is read once, to catch a collision.
 */
async function observe(cluster: ClusterClient, namespace: string, ref: WorkloadRef, now?: Date): Promise<Observation> {
  const base: Observation = { namespace, ref, workload: null, children: [], pods: [], ...(now ? { now } : {}) };
  const workload = await cluster.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: ref.name });
  if (!workload) return base;
  const selector = selectorString(spec(workload).selector);
  const originals = readOriginals(workload);
  const wantPods = selector !== '' && originals.state === 'ok' && (originals.originals.minReadySeconds ?? 0) > 0;
  const [children, pods] = await Promise.all([
    cluster.list('apps/v1', 'ReplicaSet', namespace, selector),
    wantPods ? cluster.list('v1', 'Pod', namespace, selector) : Promise.resolve([]),
  ]);
  const obs: Observation = { ...base, workload, children, pods };
  const pending = pendingReplicaSetName(obs, originals.state === 'absent');
  if (pending !== null) {
    const holder = await cluster.get({ apiVersion: 'apps/v1', kind: 'ReplicaSet', namespace, name: pending });
    if (holder) obs.others = [holder];
  }
  return obs;
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
function applyProblems(d: KubeObject): string[] {
  if (userStrategy(d).type !== 'Recreate') return [];
  return [`Deployment ${d.metadata.namespace ?? ''}/${d.metadata.name} has spec.strategy.type Recreate, which replaces every pod at once; batches need RollingUpdate: change the Deployment's strategy first`];
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

export const deploymentDriver: WorkloadDriver = {
  kind: 'Deployment',
  watches: deploymentWatches,
  observe,
  podTemplate: templateOf,
  view: deploymentView,
  writes: deploymentWrites,
  applyProblems,
  handBackSummary,
};
