// The DaemonSet drivers: the native apps/v1 DaemonSet (held by OnDelete, batches delete pods) and
// OpenKruise's Advanced DaemonSet (apps.kruise.io/v1alpha1, held by its node partition). N is the
// pods on nodes (status.desiredNumberScheduled). ./view.ts documents the rule for a node that joins
// mid-release; ./writes.ts how each batch moves.
import type { ClusterClient } from '../../ports.ts';
import type { KubeObject } from '../../kube/types.ts';
import type { RolloutSpec, WorkloadRef } from '../../rollout/types.ts';
import type { Observation, RevisionMembers, WorkloadDriver } from '../driver.ts';
import { selectorString, spec, templateOf } from '../common/objects.ts';
import { itself } from '../common/ownership.ts';
import { manualNeedsOnDelete } from '../common/onDeletePolicy.ts';
import { controlledPods, ownedRevisions, revisionMembersOf } from '../common/revisions.ts';
import { originalStrategy, podRevision, revisionHash, strategyType } from './daemonSetObjects.ts';
import { ADVANCED_DAEMONSET, NATIVE_DAEMONSET, type DaemonSetFlavor } from './flavor.ts';
import { daemonSetView } from './view.ts';
import { daemonSetWrites } from './writes.ts';
import { podViews } from '../common/podViews.ts';
import { takesStrategicMerge, templateChangeWrite } from '../common/templateChange.ts';

function observeWith(flavor: DaemonSetFlavor) {
  return async (cluster: ClusterClient, namespace: string, ref: WorkloadRef, now: Date): Promise<Observation> => {
    const none: Observation = { namespace, ref, workload: null, children: [], pods: [], now };
    const workload = await cluster.get({ apiVersion: flavor.apiVersion, kind: 'DaemonSet', namespace, name: ref.name });
    if (!workload) return none;
    const selector = selectorString(spec(workload).selector);
    if (selector === '') return { ...none, workload };
    const [children, pods] = await Promise.all([
      cluster.list('apps/v1', 'ControllerRevision', namespace, selector),
      cluster.list('v1', 'Pod', namespace, selector),
    ]);
    return { ...none, workload, children, pods };
  };
}

function daemonSetDriverOf<K extends DaemonSetFlavor['kind']>(flavor: DaemonSetFlavor & { kind: K }): WorkloadDriver<K> {
  const { apiVersion, apiGroup } = flavor;
  const native = flavor.holdsBy === 'OnDelete';
  const revisionMembers = (obs: Observation): RevisionMembers[] => {
    const ds = obs.workload;
    if (!ds) return [];
    return revisionMembersOf(daemonSetView(obs, flavor), ownedRevisions(ds, obs.children), revisionHash, controlledPods(ds, obs.pods), podRevision);
  };
  return {
    kind: flavor.kind,
    type: flavor.type,
    workload: { apiVersion, kind: 'DaemonSet', resource: 'daemonsets' },
    reads: [{ apiVersion: 'apps/v1', kind: 'ControllerRevision', resource: 'controllerrevisions' }, { apiVersion: 'v1', kind: 'Pod', resource: 'pods' }],
    // The DaemonSet alone: its controller rewrites its status (numberReady, updatedNumberScheduled,
    // numberAvailable, desiredNumberScheduled when a node joins) as its pods are deleted, recreated and turn ready.
    watches: [{ apiVersion, kind: 'DaemonSet', resource: 'daemonsets', workloadOf: itself }],
    rbac: {
      reconcile: [
        { apiGroup, resource: 'daemonsets', verbs: ['get', 'list', 'watch', 'patch'] },
        { apiGroup: 'apps', resource: 'controllerrevisions', verbs: ['list'] },
        { apiGroup: '', resource: 'pods', verbs: ['list', 'delete'] },
      ],
      view: [
        { apiGroup, resource: 'daemonsets', verbs: ['get'] },
        { apiGroup: 'apps', resource: 'controllerrevisions', verbs: ['list'] },
        { apiGroup: '', resource: 'pods', verbs: ['list'] },
      ],
      // Pod hooks: exec hooks run in the pods (the order of replacement is the controller's own).
      hooks: [{ apiGroup: '', resource: 'pods/exec', verbs: ['get', 'create'] }],
    },
    summary: native
      ? {
        counts: 'status.desiredNumberScheduled (pods on nodes)',
        readiness: 'pods on the template\'s revision Ready for spec.minReadySeconds',
        hold: 'spec.updateStrategy.type: OnDelete, the user\'s strategy kept in rollouts.serverless-rollouts.io/original-update-strategy',
        batch: 'we delete old pods (not-Available first, then by node name, last first), never more unavailable than the user\'s maxUnavailable; the controller recreates them from the new template (onDeletePolicy Manual: you delete them)',
        restore: 'the user\'s spec.updateStrategy exactly, in one patch',
      }
      : {
        counts: 'status.desiredNumberScheduled (pods on nodes)',
        readiness: 'pods on the template\'s revision Ready for spec.minReadySeconds, in-place updates finished (InPlaceUpdateReady)',
        hold: 'spec.updateStrategy.rollingUpdate.partition: 32767 nodes (OnDelete: nothing to hold)',
        batch: 'partition = nodes to keep old: the Advanced DaemonSet updates the others (node name, last first) by its own rollingUpdateType, maxUnavailable and maxSurge; OnDelete: we delete pods as for a native DaemonSet',
        restore: 'the user\'s partition (recorded in rollouts.serverless-rollouts.io/original-partition); paused, maxUnavailable, maxSurge and rollingUpdateType are never changed',
      },
    podTemplate: templateOf,
    templateChange: templateChangeWrite,
    acceptsTemplatePatch: takesStrategicMerge(apiVersion),
    observe: observeWith(flavor),
    view: (obs) => daemonSetView(obs, flavor),
    writes: (obs, actions, view) => daemonSetWrites(obs, actions, view, flavor),
    // A native DaemonSet is held by OnDelete whatever its own strategy, so Manual works there too.
    applyCheck: (rollout: RolloutSpec) => native ? null : manualNeedsOnDelete(rollout, strategyType, flavor.title),
    handBackSummary: (ds: KubeObject) => {
      const original = originalStrategy(ds);
      if (!native || original.state === 'absent') return [];
      return [`spec.updateStrategy: ${original.state === 'ok' ? JSON.stringify(original.strategy) : 'the Kubernetes default (the annotation is damaged)'}`];
    },
    revisionHolder: 'ControllerRevision',
    revisionMembers,
    podViews: (obs) => podViews(revisionMembers(obs)),
  };
}

export const daemonSetDriver = daemonSetDriverOf(NATIVE_DAEMONSET);
export const advancedDaemonSetDriver = daemonSetDriverOf(ADVANCED_DAEMONSET);
