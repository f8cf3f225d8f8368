// The CanaryWorkload strategy: planned actions → writes (Kruise's canary style for a Deployment,
// pkg/controller/batchrelease/control/canarystyle/deployment/ of openkruise/rollouts; docs/traffic.md).
// The user's Deployment stays paused on its stable pods; a `<name>-canary` Deployment from the new
// template (canaryObjects.ts) takes the batches:
//  - a step's distribute {target: k}: create the canary at k, or scale it up to k; never down
//    mid-release (Kruise's UpgradeBatch returns when the canary already has as many);
//  - the last move (final): the canary grown to the last batch and Available (Kruise's last batch),
//    then marked finishing, then the user's Deployment unpaused, its own controller rolling it with
//    the user's own strategy (Kruise's stable Finalize); once that controller reports every replica
//    updated and available, the canary is scaled to 0 and deleted;
//  - a canary of another revision than the target (abort, rollback, undo, or a new template
//    mid-release): scaled to 0 and deleted before anything else moves. The planner has already taken
//    the traffic back (shared/rollout/routing.ts: no action removing a canary pod before it);
//  - release-hold (the Rollout deleted): the canary scaled to 0 and deleted, then the user's
//    Deployment unpaused: handed back with its own spec, which this strategy never changed.
// Idempotent: each pass writes only what the cluster still lacks; the canary goes before the unpause,
// so a pass that dies in between leaves a paused Deployment that the next pass hands back.
import type { KubeObject, KubeWrite } from '../../kube/types.ts';
import type { Action, WorkloadView } from '../../rollout/types.ts';
import type { Observation } from '../driver.ts';
import { num, objectRef, spec, status, templateOf } from '../common/objects.ts';
import { mergePatchDiff } from '../common/mergePatch.ts';
import { templateChangeWrite } from '../common/templateChange.ts';
import { CANARY_FINISHING, canaryObject, readCanary, type CanaryRead } from './canaryObjects.ts';
import { revisionNumber } from './deploymentObjects.ts';
import { revisionId, withoutHashLabel } from './revision.ts';
import { ownedReplicaSets } from './view.ts';

export function canaryWrites(obs: Observation, actions: Action[], view: WorkloadView): KubeWrite[] {
  const d = obs.workload;
  if (!d) return [];
  const read = readCanary(d, obs.others);
  const canary: KubeWrite[] = [];
  const user: { paused?: boolean; template?: unknown } = {};
  const templateWrites: KubeWrite[] = [];
  let removing = false;
  const remove = () => {
    if (!removing && read.state === 'ours') canary.push(...removeCanary(read.canary));
    removing = true;
  };

  for (const action of actions) {
    switch (action.type) {
      case 'hold':
        if (spec(d).paused !== true) user.paused = true;
        break;
      case 'release-hold':
        remove();
        if (spec(d).paused === true) user.paused = false;
        break;
      case 'set-template':
        templateWrites.push(templateChangeWrite(d, action.change, (revision) => storedTemplate(obs, revision)));
        break;
      case 'restore-template': {
        const stored = storedTemplate(obs, action.revision);
        const diff = stored === null ? undefined : mergePatchDiff(templateOf(d), stored);
        if (diff !== undefined) user.template = diff;
        break;
      }
      case 'distribute': {
        if (read.state === 'ours' && read.revision !== action.target) {
          remove();
          break;
        }
        if (action.target !== view.templateRevision || removing) break;
        const k = action.distribution[action.target] ?? 0;
        if (!action.final) {
          canary.push(...growCanary(d, read, action.target, k, action.podMetadata));
          break;
        }
        if (spec(d).paused === true) {
          // A release's last batch is a batch too (Kruise scales the canary to it before Finalize):
          // the canary grows to k and its pods are Available before the user's Deployment rolls. A
          // rollback's or an undo's target is a revision the user's Deployment still holds: no canary.
          if (read.state === 'ours' || !holdsRevision(obs, action.target)) {
            const grow = growCanary(d, read, action.target, k, action.podMetadata);
            if (grow.length > 0 || read.state !== 'ours' || !canaryAvailable(read.canary, k)) {
              canary.push(...grow);
              break;
            }
          }
          // The finishing mark first: were the unpause seen without it, the pass after would hold again.
          if (read.state === 'ours' && !read.finishing) canary.push(markFinishing(read.canary));
          user.paused = false;
        } else if (read.state === 'ours' && rolledOut(d, view)) {
          remove();
        }
        break;
      }
    }
  }

  const writes: KubeWrite[] = [...canary];
  if (user.paused !== undefined || user.template !== undefined) {
    writes.push({
      verb: 'patch', ref: objectRef(d), patchType: 'merge', resourceVersion: d.metadata.resourceVersion,
      patch: { spec: { ...(user.paused === undefined ? {} : { paused: user.paused }), ...(user.template === undefined ? {} : { template: user.template }) } },
      reason: describeUserPatch(user),
    });
  }
  return [...writes, ...templateWrites];
}

/** Create the canary at k pods, or scale it up to k; a canary already that large is left alone. */
function growCanary(d: KubeObject, read: CanaryRead, target: string, k: number, podMetadata: Extract<Action, { type: 'distribute' }>['podMetadata']): KubeWrite[] {
  if (read.state === 'foreign') return []; // the name is someone else's: create nothing (the create would only fail)
  if (read.state === 'absent') {
    if (k <= 0) return [];
    return [{ verb: 'create', object: canaryObject(d, target, k, podMetadata), reason: `create Deployment ${d.metadata.name}-canary with ${k} pods of revision ${target}` }];
  }
  if (num(spec(read.canary).replicas, 1) >= k) return [];
  return [{
    verb: 'patch', ref: objectRef(read.canary), patchType: 'merge', resourceVersion: read.canary.metadata.resourceVersion,
    patch: { spec: { replicas: k } }, reason: `scale ${read.canary.metadata.name} to ${k}`,
  }];
}

function markFinishing(c: KubeObject): KubeWrite {
  return {
    verb: 'patch', ref: objectRef(c), patchType: 'merge', resourceVersion: c.metadata.resourceVersion,
    patch: { metadata: { annotations: { [CANARY_FINISHING]: 'true' } } },
    reason: `mark ${c.metadata.name} finishing: the user's Deployment is unpaused next, and its controller rolls it`,
  };
}

/** Scaled to 0 first (its pods go through their ReplicaSet, as in any scale-down), then deleted (its ReplicaSets by garbage collection). */
function removeCanary(c: KubeObject): KubeWrite[] {
  const scale: KubeWrite[] = num(spec(c).replicas, 1) > 0
    ? [{ verb: 'patch', ref: objectRef(c), patchType: 'merge', resourceVersion: c.metadata.resourceVersion, patch: { spec: { replicas: 0 } }, reason: `scale ${c.metadata.name} to 0` }]
    : [];
  return [...scale, { verb: 'delete', ref: objectRef(c), reason: `delete the canary Deployment ${c.metadata.name}` }];
}

/**
 * The user's Deployment, unpaused, has every replica on its template and available, as its own
 * controller reports it for the spec it has observed (Kruise's waitAllUpdatedAndReady, without its
 * maxUnavailable slack: the canary's pods go only once they are no longer needed).
 */
function rolledOut(d: KubeObject, view: WorkloadView): boolean {
  const st = status(d);
  const n = view.replicas;
  return num(st.observedGeneration, -1) >= num(d.metadata.generation) && num(st.updatedReplicas) === n && num(st.replicas) === n && num(st.availableReplicas) === n;
}

/** The canary has observed its spec and runs `k` Available pods. */
function canaryAvailable(c: KubeObject, k: number): boolean {
  return num(status(c).observedGeneration, -1) >= num(c.metadata.generation) && num(status(c).availableReplicas) >= k;
}

function holdsRevision(obs: Observation, revision: string): boolean {
  return storedTemplate(obs, revision) !== null;
}

/** The template a retained ReplicaSet of the user's Deployment holds for `revision` (the newest after a hash collision). */
function storedTemplate(obs: Observation, revision: string): unknown {
  const rs = ownedReplicaSets(obs).filter((r) => revisionId(templateOf(r)) === revision).sort((a, b) => revisionNumber(b) - revisionNumber(a))[0];
  return rs ? withoutHashLabel(templateOf(rs)) : null;
}

function describeUserPatch(user: { paused?: boolean; template?: unknown }): string {
  const parts: string[] = [];
  if (user.paused === true) parts.push('hold (pause)');
  if (user.paused === false) parts.push('hand back to the Deployment controller (unpause)');
  if (user.template !== undefined) parts.push('restore pod template');
  return parts.join(', ');
}
