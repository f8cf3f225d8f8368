// Planned actions → the desired-state writes for a DaemonSet (native or Advanced, ./flavor.ts).
//  - Native, the user's RollingUpdate: the hold switches spec.updateStrategy to OnDelete and keeps
//    the user's strategy (JSON) in ORIGINAL_UPDATE_STRATEGY, in one patch; the hand-back puts it
//    back exactly and drops the annotation, in one patch. A batch deletes old pods on the nodes in
//    order (not-Available first, then node name last first), never more unavailable at once than the
//    user's maxUnavailable; the controller recreates each from the current template, the target.
//  - Advanced, the user's RollingUpdate: the node partition (../common/partition.ts).
//  - Either, the user's OnDelete: nothing to hold or hand back; batches delete as above, or, with
//    onDeletePolicy Manual, nothing: the user deletes and the batch waits.
// The DaemonSet's own changes go into one merge patch guarded by its resourceVersion, then pod
// deletes, then a pod-template change requested by a command. Converged → [].
import type { KubeObject, KubeWrite } from '../../kube/types.ts';
import type { Action, WorkloadView } from '../../rollout/types.ts';
import type { Observation } from '../driver.ts';
import { batchDeletions } from '../common/deletions.ts';
import { mergePatchDiff } from '../common/mergePatch.ts';
import { num, objectRef, spec, templateOf } from '../common/objects.ts';
import { describePartition, partitionPatch, planPartition } from '../common/partition.ts';
import { controlledPods, isObserved, ownedRevisions, storedTemplate } from '../common/revisions.ts';
import { templateChangeWrite } from '../common/templateChange.ts';
import { ORIGINAL_UPDATE_STRATEGY, desiredNumberScheduled, nodeOf, originalStrategy, podRevision, revisionHash, strategyType, updateStrategyOf } from './daemonSetObjects.ts';
import type { DaemonSetFlavor } from './flavor.ts';
import { ADVANCED_DAEMONSET_PARTITION, daemonSetView } from './view.ts';

/** What Kubernetes defaults a DaemonSet's strategy to: the hand-back when the annotation is damaged. */
const DEFAULT_STRATEGY = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } };

export function daemonSetWrites(obs: Observation, actions: Action[], view: WorkloadView | undefined, flavor: DaemonSetFlavor): KubeWrite[] {
  const ds = obs.workload;
  const v = view ?? daemonSetView(obs, flavor);
  if (!ds || !v.exists) return [];
  const stored = (revision: string) => {
    const cr = ownedRevisions(ds, obs.children).find((r) => revisionHash(r) === revision);
    return cr ? storedTemplate(cr) : null;
  };
  if (flavor.holdsBy === 'partition' && strategyType(ds) === 'RollingUpdate') {
    const plan = planPartition(ds, actions, { field: ADVANCED_DAEMONSET_PARTITION, total: v.replicas, observed: v.observed, updateRevision: v.templateRevision, storedTemplate: stored });
    const moving = `${String(plan.want.partition)} nodes stay old, the ${flavor.title} updates the others to ${v.templateRevision}`;
    const patch = partitionPatch(ds, ADVANCED_DAEMONSET_PARTITION, plan, describePartition(ds, ADVANCED_DAEMONSET_PARTITION, plan, moving));
    return [...(patch ? [patch] : []), ...plan.templateWrites];
  }
  return onDeleteWrites(obs, ds, actions, v, flavor, stored);
}

interface Intent {
  strategy: 'keep' | 'hold' | 'restore';
  template: unknown;
  templateWrites: KubeWrite[];
  deletions: KubeWrite[];
}

function onDeleteWrites(
  obs: Observation, ds: KubeObject, actions: Action[], view: WorkloadView, flavor: DaemonSetFlavor, stored: (revision: string) => Record<string, unknown> | null,
): KubeWrite[] {
  const ours = flavor.holdsBy === 'OnDelete';
  const intent: Intent = { strategy: 'keep', template: undefined, templateWrites: [], deletions: [] };
  for (const action of actions) {
    switch (action.type) {
      case 'hold':
        if (ours) intent.strategy = 'hold';
        break;
      case 'release-hold':
        if (ours) intent.strategy = 'restore';
        break;
      case 'set-template':
        if (ours) intent.strategy = 'hold';
        intent.templateWrites = [templateChangeWrite(ds, action.change, stored)];
        intent.deletions = [];
        break;
      case 'restore-template': {
        const t = stored(action.revision);
        if (t) intent.template = mergePatchDiff(templateOf(ds), t);
        break;
      }
      case 'distribute':
        // Only on OnDelete already (never in the pass that switches to it), once the controller has
        // observed the template it recreates pods from, and never for a Manual policy.
        if (action.onDeletePolicy === 'Manual' || strategyType(ds) !== 'OnDelete' || !isObserved(ds) || action.target !== view.templateRevision || intent.templateWrites.length > 0) break;
        intent.deletions = deleteOldPods(obs, ds, view, flavor, action.target, action.distribution[action.target] ?? 0);
        break;
    }
  }
  const patch = strategyPatch(ds, intent);
  return [...(patch ? [patch] : []), ...intent.deletions, ...intent.templateWrites];
}

function strategyPatch(ds: KubeObject, intent: Intent): KubeWrite | null {
  const original = originalStrategy(ds);
  const live = updateStrategyOf(ds);
  const annotations: Record<string, string | null> = {};
  const specPatch: Record<string, unknown> = {};
  const reasons: string[] = [];
  if (intent.strategy === 'hold' && strategyType(ds) !== 'OnDelete') {
    // The live strategy is the user's (we only ever write OnDelete, or theirs back): keep it, newest word first.
    annotations[ORIGINAL_UPDATE_STRATEGY] = JSON.stringify(live);
    specPatch.updateStrategy = { type: 'OnDelete', rollingUpdate: null };
    reasons.push(`hold (updateStrategy OnDelete; the user's ${JSON.stringify(live)} kept in ${ORIGINAL_UPDATE_STRATEGY})`);
  } else if (intent.strategy === 'restore' && original.state !== 'absent') {
    const back = original.state === 'ok' ? original.strategy : DEFAULT_STRATEGY;
    specPatch.updateStrategy = mergePatchDiff(live, back) ?? {};
    annotations[ORIGINAL_UPDATE_STRATEGY] = null;
    reasons.push(`hand back to the DaemonSet controller (updateStrategy ${JSON.stringify(back)}, the user's)`);
  }
  if (intent.template !== undefined) {
    specPatch.template = intent.template;
    reasons.push('restore pod template');
  }
  if (Object.keys(specPatch).length === 0 && Object.keys(annotations).length === 0) return null;
  return {
    verb: 'patch', ref: objectRef(ds), patchType: 'merge', resourceVersion: ds.metadata.resourceVersion,
    patch: { ...(Object.keys(annotations).length > 0 ? { metadata: { annotations } } : {}), spec: specPatch },
    reason: reasons.join(', '),
  };
}

function deleteOldPods(obs: Observation, ds: KubeObject, view: WorkloadView, flavor: DaemonSetFlavor, target: string, desired: number): KubeWrite[] {
  return batchDeletions({
    pods: controlledPods(ds, obs.pods), order: view.toReplace, revisionOf: podRevision, target, desired,
    total: desiredNumberScheduled(ds), minReadySeconds: num(spec(ds).minReadySeconds), now: obs.now, maxUnavailable: view.maxUnavailable,
    reason: (p) => `delete ${p.metadata.name} on node ${nodeOf(p) || '?'} (revision ${podRevision(p) || 'unknown'}) so the ${flavor.title} recreates it at ${target}`,
  });
}
