// The StatefulSet drivers, partition style (Kruise: highest ordinal first): the native apps/v1
// StatefulSet and OpenKruise's Advanced StatefulSet (apps.kruise.io/v1beta1), one code path with
// the differences in ./flavor.ts. Held at partition 32767, batches moved by lowering the partition
// and the controller replaces the pods; OnDelete sets are moved by deleting pods (writes.ts).
import type { ClusterClient } from '../../ports.ts';
import type { WorkloadRef } from '../../rollout/types.ts';
import type { Observation, RevisionMembers, WorkloadDriver } from '../driver.ts';
import { selectorString, spec, templateOf } from '../common/objects.ts';
import { itself } from '../common/ownership.ts';
import { manualNeedsOnDelete } from '../common/onDeletePolicy.ts';
import { revisionMembersOf } from '../common/revisions.ts';
import { ADVANCED_STATEFULSET, NATIVE_STATEFULSET, type StatefulSetFlavor } from './flavor.ts';
import { ownedPods, ownedRevisions, podRevision, updateStrategyType } from './statefulSetObjects.ts';
import { podViews } from '../common/podViews.ts';
import { takesStrategicMerge, templateChangeWrite } from '../common/templateChange.ts';
import { statefulSetView } from './view.ts';
import { statefulSetWrites } from './writes.ts';

/** One GET and two LISTs by the set's selector: its ControllerRevisions (revisions) and pods (counts). */
function observeWith(flavor: StatefulSetFlavor) {
  return async (cluster: ClusterClient, namespace: string, ref: WorkloadRef, now: Date): Promise<Observation> => {
    const none: Observation = { namespace, ref, workload: null, children: [], pods: [], now };
    if (ref.apiVersion !== flavor.apiVersion) return none; // the view says why
    const workload = await cluster.get({ apiVersion: flavor.apiVersion, kind: 'StatefulSet', namespace, name: ref.name });
    if (!workload) return none;
    const selector = selectorString(spec(workload).selector);
    // An empty selector would list the whole namespace: the view reports it and nothing moves.
    if (selector === '') return { ...none, workload };
    const [children, pods] = await Promise.all([
      cluster.list('apps/v1', 'ControllerRevision', namespace, selector),
      cluster.list('v1', 'Pod', namespace, selector),
    ]);
    return { ...none, workload, children, pods };
  };
}

function revisionMembersWith(flavor: StatefulSetFlavor) {
  return (obs: Observation): RevisionMembers[] => {
    const set = obs.workload;
    if (!set) return [];
    return revisionMembersOf(statefulSetView(obs, flavor), ownedRevisions(set, obs.children), (cr) => cr.metadata.name, ownedPods(set, obs.pods), podRevision);
  };
}

/**
 * The set itself (not its pods): a template change modifies it, and so does every step of a batch,
 * since the controller rewrites its status (currentRevision/updateRevision, updatedReplicas,
 * readyReplicas, availableReplicas after minReadySeconds) whenever one of its pods is replaced,
 * deleted or turns ready. ControllerRevisions only appear with a template change (already an event
 * of the set), and pods would multiply the events by the replica count.
 */
function statefulSetDriverOf<K extends StatefulSetFlavor['kind']>(flavor: StatefulSetFlavor & { kind: K }): WorkloadDriver<K> {
  const { apiVersion, apiGroup } = flavor;
  return {
    kind: flavor.kind,
    type: flavor.type,
    workload: { apiVersion, kind: 'StatefulSet', resource: 'statefulsets' },
    reads: [{ apiVersion: 'apps/v1', kind: 'ControllerRevision', resource: 'controllerrevisions' }, { apiVersion: 'v1', kind: 'Pod', resource: 'pods' }],
    watches: [{ apiVersion, kind: 'StatefulSet', resource: 'statefulsets', workloadOf: itself }],
    rbac: {
      reconcile: [
        { apiGroup, resource: 'statefulsets', verbs: ['get', 'list', 'watch', 'patch'] },
        { apiGroup: 'apps', resource: 'controllerrevisions', verbs: ['list'] },
        { apiGroup: '', resource: 'pods', verbs: ['list', 'delete'] },
      ],
      view: [
        { apiGroup, resource: 'statefulsets', verbs: ['get'] },
        { apiGroup: 'apps', resource: 'controllerrevisions', verbs: ['list'] },
        { apiGroup: '', resource: 'pods', verbs: ['list'] },
      ],
      // Pod hooks: exec hooks run in the pods (the order of replacement is the controller's own).
      hooks: [{ apiGroup: '', resource: 'pods/exec', verbs: ['get', 'create'] }],
    },
    summary: {
      counts: 'spec.replicas',
      readiness: flavor.kind === 'StatefulSet'
        ? 'pods on the update revision Ready for spec.minReadySeconds'
        : 'pods on the update revision Ready for spec.updateStrategy.rollingUpdate.minReadySeconds, in-place updates finished (InPlaceUpdateReady)',
      hold: 'spec.updateStrategy.rollingUpdate.partition: 32767 (OnDelete: nothing to hold)',
      batch: 'partition = N − batch: the controller updates the highest ordinals' +
        (flavor.kind === 'AdvancedStatefulSet' ? ', by its own podUpdatePolicy (in place when possible)' : '') +
        '; OnDelete: we delete pods highest ordinal first within maxUnavailable (onDeletePolicy Manual: you do)',
      restore: 'the user\'s partition (recorded in rollouts.serverless-rollouts.io/original-partition)' +
        (flavor.kind === 'AdvancedStatefulSet' ? '; paused, maxUnavailable and podUpdatePolicy are never changed' : '; maxUnavailable is never changed'),
    },
    observe: observeWith(flavor),
    podTemplate: templateOf,
    templateChange: templateChangeWrite,
    acceptsTemplatePatch: takesStrategicMerge(flavor.apiVersion),
    view: (obs) => statefulSetView(obs, flavor),
    writes: (obs, actions, view) => statefulSetWrites(obs, actions, view, flavor),
    applyCheck: (rollout) => manualNeedsOnDelete(rollout, updateStrategyType, flavor.title),
    revisionHolder: 'ControllerRevision',
    revisionMembers: revisionMembersWith(flavor),
    podViews: (obs) => podViews(revisionMembersWith(flavor)(obs)),
  };
}

export const statefulSetDriver = statefulSetDriverOf(NATIVE_STATEFULSET);
export const advancedStatefulSetDriver = statefulSetDriverOf(ADVANCED_STATEFULSET);
