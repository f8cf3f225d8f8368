// The OpenKruise CloneSet driver (apps.kruise.io/v1alpha1), partition style: ./view.ts says how it
// is held and counted, ./writes.ts how a batch moves.
import type { ClusterClient } from '../../ports.ts';
import type { WorkloadRef } from '../../rollout/types.ts';
import type { Observation, RevisionMembers, WorkloadDriver } from '../driver.ts';
import { selectorString, spec, templateOf } from '../common/objects.ts';
import { itself } from '../common/ownership.ts';
import { controlledPods, ownedRevisions, revisionMembersOf } from '../common/revisions.ts';
import { CLONESET_API_VERSION, podRevisionIn } from './cloneSetObjects.ts';
import { CLONESET_TYPE } from './type.ts';
import { podViews } from '../common/podViews.ts';
import { takesStrategicMerge, templateChangeWrite } from '../common/templateChange.ts';
import { cloneSetView } from './view.ts';
import { cloneSetWrites } from './writes.ts';

/** One GET and two LISTs by the CloneSet's selector: its ControllerRevisions and its pods. */
async function observe(cluster: ClusterClient, namespace: string, ref: WorkloadRef, now: Date): Promise<Observation> {
  const none: Observation = { namespace, ref, workload: null, children: [], pods: [], now };
  const workload = await cluster.get({ apiVersion: CLONESET_API_VERSION, kind: 'CloneSet', namespace, name: ref.name });
  if (!workload) return none;
  const selector = selectorString(spec(workload).selector);
  if (selector === '') return { ...none, workload };
  const [children, pods] = await Promise.all([
    cluster.list('apps/v1', 'ControllerRevision', namespace, selector),
    cluster.list('v1', 'Pod', namespace, selector),
  ]);
  return { ...none, workload, children, pods };
}

function revisionMembers(obs: Observation): RevisionMembers[] {
  const cs = obs.workload;
  if (!cs) return [];
  const revisions = ownedRevisions(cs, obs.children);
  const revisionOf = podRevisionIn(revisions.map((cr) => cr.metadata.name));
  return revisionMembersOf(cloneSetView(obs), revisions, (cr) => cr.metadata.name, controlledPods(cs, obs.pods), revisionOf);
}

export const cloneSetDriver: WorkloadDriver<'CloneSet'> = {
  kind: 'CloneSet',
  type: CLONESET_TYPE,
  workload: { apiVersion: CLONESET_API_VERSION, kind: 'CloneSet', resource: 'clonesets' },
  reads: [{ apiVersion: 'apps/v1', kind: 'ControllerRevision', resource: 'controllerrevisions' }, { apiVersion: 'v1', kind: 'Pod', resource: 'pods' }],
  // The CloneSet alone: its controller rewrites its status (updatedReplicas, updatedReadyReplicas,
  // availableReplicas, currentRevision) whenever a pod is updated, in place or recreated, or turns ready.
  watches: [{ apiVersion: CLONESET_API_VERSION, kind: 'CloneSet', resource: 'clonesets', workloadOf: itself }],
  rbac: {
    reconcile: [
      { apiGroup: 'apps.kruise.io', resource: 'clonesets', verbs: ['get', 'list', 'watch', 'patch'] },
      { apiGroup: 'apps', resource: 'controllerrevisions', verbs: ['list'] },
      { apiGroup: '', resource: 'pods', verbs: ['list'] },
    ],
    view: [
      { apiGroup: 'apps.kruise.io', resource: 'clonesets', verbs: ['get'] },
      { apiGroup: 'apps', resource: 'controllerrevisions', verbs: ['list'] },
      { apiGroup: '', resource: 'pods', verbs: ['list'] },
    ],
    // Pod hooks: exec hooks run in the pods (the order of replacement is the controller's own).
    hooks: [{ apiGroup: '', resource: 'pods/exec', verbs: ['get', 'create'] }],
  },
  summary: {
    counts: 'spec.replicas',
    readiness: 'pods on the update revision Ready for spec.minReadySeconds, in-place updates finished (InPlaceUpdateReady)',
    hold: 'spec.updateStrategy.partition: "100%" (every pod old, whatever an HPA makes N)',
    batch: 'partition = the old pods to keep (a percent when it is exact at N, else an int): the CloneSet updates the rest by its own type (ReCreate, InPlaceIfPossible, InPlaceOnly) within its maxUnavailable and maxSurge',
    restore: 'the user\'s partition (recorded in rollouts.serverless-rollouts.io/original-partition); type, paused, maxUnavailable and maxSurge are never changed',
  },
  podTemplate: templateOf,
  templateChange: templateChangeWrite,
  acceptsTemplatePatch: takesStrategicMerge(CLONESET_TYPE.apiVersion),
  podViews: (obs) => podViews(revisionMembers(obs)),
  observe,
  view: cloneSetView,
  writes: cloneSetWrites,
  revisionHolder: 'ControllerRevision',
  revisionMembers,
};
