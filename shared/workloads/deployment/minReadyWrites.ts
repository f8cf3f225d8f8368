// The MinReadySeconds strategy (seed 001; Kruise's proposal
// openkruise/rollouts:docs/proposals/20260315-deployment-minready-seconds-progressive-delivery.md): planned actions →
// writes. The Deployment never leaves RollingUpdate; the native controller replaces the pods. A
// release starts with ONE resourceVersion-guarded patch that snapshots the user's fields into the
// rollouts.kruise.io/original-* annotations, inflates minReadySeconds and progressDeadlineSeconds
// (new pods stay Ready-but-not-Available to the controller), sets the first batch's
// maxSurge/maxUnavailable (budget.ts) and unpauses. Every hand-back (end, abort, rollback, undo,
// deletion) is ONE patch restoring the exact original fields (unset stays unset) and removing the
// annotations; the at-rest hold (pause) only comes back after the native controller has finished,
// because a paused Deployment records no completion. Level-based: converged → [].
import { num, objectRef, spec, templateOf } from '../common/objects.ts';
import { mergePatchDiff } from '../common/mergePatch.ts';
import { templateChangeWrite } from '../common/templateChange.ts';
import type { KubeObject, KubeWrite } from '../../kube/types.ts';
import type { Action, Distribution, WorkloadView } from '../../rollout/types.ts';
import type { Observation } from '../driver.ts';
import { chooseBudget, type Budget, type BudgetInput } from './budget.ts';
import { resolveRollingBudget } from '../../rollout/arithmetic.ts';
import { INFLATED_MIN_READY_SECONDS, deploymentGuard, revisionNumber, strategyOf } from './deploymentObjects.ts';
import {
  droppedOriginals, readOriginals, restoredFields, takeOverPatch, type Originals,
} from './originals.ts';
import { revisionId, withoutHashLabel } from './revision.ts';
import { ownedReplicaSets } from './view.ts';
import { blueGreenPace } from './blueGreenPace.ts';

interface Patch {
  spec: Record<string, unknown>;
  annotations: Record<string, string | null>;
  reasons: string[];
}

export function minReadyWrites(obs: Observation, actions: Action[], view: WorkloadView): KubeWrite[] {
  const d = obs.workload;
  if (!d || !view.exists) return [];
  const read = readOriginals(d);
  const originals = read.state === 'ok' ? read.originals : null;
  // Only a deleted rollout hands back a Deployment whose annotations are broken (a Degraded release
  // touches nothing else): what can be read is restored, the rest goes back to the Kubernetes
  // defaults rather than staying inflated forever.
  const restorable = read.state === 'ok' ? read.originals : read.state === 'broken' ? read.salvaged : null;
  const owned = ownedReplicaSets(obs);
  const patch: Patch = { spec: {}, annotations: {}, reasons: [] };
  let drains: KubeWrite[] = [];
  /** The pause that follows this pass's drains when they complete the batch (see below). */
  let pauseAfterDrains: KubeWrite | null = null;
  const templateWrites: KubeWrite[] = [];
  let handBack = false;
  let restored: { revision: string; template: unknown } | null = null;

  for (const action of actions) {
    switch (action.type) {
      case 'hold':
        if (spec(d).paused !== true && read.state === 'absent') {
          patch.spec.paused = true;
          patch.reasons.push('hold (pause)');
        }
        break;
      case 'release-hold':
        handBack = true;
        break;
      case 'set-template':
        // Mid-release the live budget was sized for the batch being replaced: paused, the native
        // controller rolls nothing of the new template until the next pass paces its step 1
        // (which unpauses in the same patch that sets that step's budget).
        if (spec(d).paused !== true) {
          patch.spec.paused = true;
          patch.reasons.push('hold (pause) while the pod template changes');
        }
        templateWrites.push(templateChangeWrite(d, action.change, (revision) => {
          const rs = newestOf(owned, revision);
          return rs ? withoutHashLabel(templateOf(rs)) : null;
        }));
        break;
      case 'restore-template': {
        // Abort, rollback, undo: the template goes back and the native controller rolls it with the
        // user's own fields, in one patch (a template restored under inflated fields would make the
        // stable pods unavailable to the controller, and it would stall).
        const rs = newestOf(owned, action.revision);
        if (!rs) break; // the planner reports a revision that is no longer retained
        restored = { revision: action.revision, template: mergePatchDiff(templateOf(d), withoutHashLabel(templateOf(rs))) };
        handBack = true;
        break;
      }
      case 'distribute':
        if (action.final) handBack = true;
        else if (read.state !== 'broken' && action.target === view.templateRevision && action.rollingStyle === 'BlueGreen') {
          // The new revision beside the old, which loses no pod: no drain, no pause (blueGreenPace.ts).
          const paced = blueGreenPace(d, originals, view, action.target, action.distribution[action.target] ?? 0);
          Object.assign(patch.spec, paced.spec);
          Object.assign(patch.annotations, paced.annotations);
          patch.reasons.push(...paced.reasons);
        } else if (read.state !== 'broken' && action.target === view.templateRevision) {
          const paced = pace(d, originals, view, action.target, action.distribution);
          Object.assign(patch.spec, paced.spec);
          Object.assign(patch.annotations, paced.annotations);
          patch.reasons.push(...paced.reasons);
          // Old pods go only once the controller acts on this very budget: its informers deliver
          // Deployments and ReplicaSets on separate watches, so a drain sent with (or before the
          // controller has observed) a lowered maxSurge can meet the old, larger one, and the
          // controller fills the drained room with new pods beyond the batch. The next pass drains.
          const drained = paced.spec.strategy === undefined && !paced.budget.hold && view.observed ? drainPlan(view, owned, action.target, action.distribution, paced.budget) : null;
          drains = drained?.writes ?? [];
          // Drained, the batch stands complete: the pause the next pass would send (pace's hold)
          // goes in this one, after the drains, so a release waiting for approval is at rest as
          // soon as its batch is: its later passes write nothing (issue 26; test/integration/pipeline.noop.test.ts).
          // Pausing before the drains land would let the controller scale the ReplicaSets down
          // proportionally itself (more pods than N + maxSurge), hence last and guarded like them.
          if (drained !== null && drains.length > 0 && spec(d).paused !== true && holdsAfter(d, view, action.target, action.distribution[action.target] ?? 0, drained.after)) {
            pauseAfterDrains = pauseWrite(d);
          }
        }
        break;
    }
  }

  if (handBack) {
    // A hand-back replaces whatever pacing this pass computed (a rollback ends the batch).
    const back = handBackPatch(d, restorable);
    patch.spec = back.spec;
    patch.annotations = back.annotations;
    patch.reasons = back.reasons;
    drains = uninflatedOldReplicaSets(owned, restorable, restored?.revision ?? revisionId(templateOf(d)));
  }
  if (restored !== null && restored.template !== undefined) {
    patch.spec.template = restored.template;
    patch.reasons.unshift('restore pod template');
  }

  const writes: KubeWrite[] = [];
  if (Object.keys(patch.spec).length > 0 || Object.keys(patch.annotations).length > 0) {
    writes.push({
      verb: 'patch', ref: objectRef(d), patchType: 'merge', resourceVersion: d.metadata.resourceVersion,
      patch: {
        ...(Object.keys(patch.annotations).length > 0 ? { metadata: { annotations: patch.annotations } } : {}),
        ...(Object.keys(patch.spec).length > 0 ? { spec: patch.spec } : {}),
      },
      reason: patch.reasons.join(', ') || 'update annotations',
    });
  }
  // Drains are sized for the N this pass read: without a Deployment patch to carry the guard, a
  // no-op one goes first (deploymentObjects.ts).
  if (writes.length === 0 && drains.length > 0 && !handBack) writes.push(deploymentGuard(d));
  const pause = pauseAfterDrains !== null && !handBack && templateWrites.length === 0 ? [pauseAfterDrains] : [];
  // The Deployment first: a lowered maxSurge must land before old pods go, or the controller would
  // fill their room with more new pods than the batch (budget.ts). A requested template change last.
  return [...writes, ...drains, ...pause, ...templateWrites];
}

/** One pass of a batch: take over (first pass) or keep the inflation, and set this pass's budget. */
function pace(d: KubeObject, originals: Originals | null, view: WorkloadView, target: string, distribution: Distribution): Patch & { budget: Budget } {
  const budget = chooseBudget(budgetInput(d, view, target, distribution[target] ?? 0));
  const out: Patch & { budget: Budget } = { ...takeOverPatch(d, originals), budget };
  if (budget.hold) {
    // The batch stands where it should; no valid budget would keep the controller from adding to it.
    if (spec(d).paused !== true) {
      out.spec.paused = true;
      out.reasons.push('pause: the batch is complete, nothing moves until the next one');
    }
    return out;
  }
  const live = strategyOf(d).rollingUpdate ?? {};
  if (live.maxSurge !== budget.maxSurge || live.maxUnavailable !== budget.maxUnavailable) {
    out.spec.strategy = { rollingUpdate: { maxSurge: budget.maxSurge, maxUnavailable: budget.maxUnavailable } };
    out.reasons.push(`batch budget maxSurge ${budget.maxSurge}, maxUnavailable ${budget.maxUnavailable}`);
  }
  if (spec(d).paused === true) {
    out.spec.paused = false;
    out.reasons.push('unpause (the native controller moves the pods)');
  }
  return out;
}

function budgetInput(d: KubeObject, view: WorkloadView, target: string, wanted: number): BudgetInput {
  const mine = view.revisions.find((r) => r.id === target);
  const others = view.revisions.filter((r) => r.id !== target);
  const live = strategyOf(d).rollingUpdate;
  return {
    liveMaxUnavailable: spec(d).paused === true ? 0 : resolveRollingBudget(view.replicas, live?.maxSurge, live?.maxUnavailable).maxUnavailable,
    replicas: view.replicas,
    userMaxSurge: view.maxSurge,
    userMaxUnavailable: view.maxUnavailable,
    target: wanted,
    newDesired: mine?.desired ?? 0,
    newAvailable: Math.min(mine?.available ?? 0, mine?.desired ?? 0),
    oldDesired: sum(others.map((r) => r.desired)),
    oldAvailable: sum(others.map((r) => Math.min(r.available, r.desired))),
  };
}

/** The old revisions' spec.replicas after this pass's drains, by revision. */
type DrainedTo = Map<string, number>;

/**
 * Old pods below what the controller may remove (N − maxUnavailable) are ours to scale down: the
 * not-Available ones first (free), then abandoned revisions before the stable one.
 */
function drainPlan(view: WorkloadView, owned: KubeObject[], target: string, distribution: Distribution, budget: Budget): { writes: KubeWrite[]; after: DrainedTo } {
  const others = view.revisions.filter((r) => r.id !== target && r.desired > 0);
  let excess = sum(others.map((r) => r.desired)) - budget.oldTarget;
  if (excess <= 0 || budget.oldTarget >= view.replicas - budget.maxUnavailable) return { writes: [], after: new Map() };
  const stable = Object.keys(distribution).find((id) => id !== target) ?? null;
  const next = new Map(others.map((r) => [r.id, r.desired]));
  for (const r of others) {
    const free = Math.min(excess, Math.max(0, r.desired - r.available));
    next.set(r.id, (next.get(r.id) ?? 0) - free);
    excess -= free;
  }
  for (const r of [...others].sort((a, b) => Number(a.id === stable) - Number(b.id === stable) || a.number - b.number)) {
    const paid = Math.min(excess, next.get(r.id) ?? 0);
    next.set(r.id, (next.get(r.id) ?? 0) - paid);
    excess -= paid;
  }
  const writes: KubeWrite[] = [];
  const after: DrainedTo = new Map();
  for (const r of others) {
    const replicas = next.get(r.id) ?? r.desired;
    if (replicas === r.desired) continue;
    const rs = newestOf(owned, r.id);
    if (!rs) continue;
    writes.push(scaleDown(rs, replicas));
    after.set(r.id, replicas);
  }
  return { writes, after };
}

/** Whether the budget of the pass after these drains holds (the batch complete, no old pod to drain): pace() would pause then. */
function holdsAfter(d: KubeObject, view: WorkloadView, target: string, wanted: number, drained: DrainedTo): boolean {
  const revisions = view.revisions.map((r) => {
    const desired = drained.get(r.id);
    // The ReplicaSet controller removes not-Available pods first (budget.ts): what stays Available is capped by what stays.
    return desired === undefined ? r : { ...r, desired, available: Math.min(r.available, desired) };
  });
  return chooseBudget(budgetInput(d, { ...view, revisions }, target, wanted)).hold;
}

/** Pause, behind the same check of the Deployment's generation as the drains before it (deploymentObjects.ts). */
function pauseWrite(d: KubeObject): KubeWrite {
  const generation = d.metadata.generation ?? 0;
  return {
    verb: 'patch', ref: objectRef(d), patchType: 'json', precondition: true,
    patch: [{ op: 'test', path: '/metadata/generation', value: generation }, { op: 'add', path: '/spec/paused', value: true }],
    reason: 'pause: drained, the batch is complete, nothing moves until the next one',
  };
}

function scaleDown(rs: KubeObject, replicas: number): KubeWrite {
  return {
    verb: 'patch', ref: objectRef(rs), patchType: 'merge', resourceVersion: rs.metadata.resourceVersion,
    patch: { spec: { replicas } }, reason: `scale ${rs.metadata.name} down to ${replicas} (beyond the controller's maxUnavailable, within the Available pods)`,
  };
}

/** Restore the user's fields (none when nothing was taken over) and remove the annotations in one patch; unpause. */
function handBackPatch(d: KubeObject, originals: Originals | null): Patch {
  const out: Patch = { spec: {}, annotations: droppedOriginals(d), reasons: [] };
  if (originals !== null) {
    Object.assign(out.spec, restoredFields(originals));
    out.reasons.push('hand back: restore the user\'s minReadySeconds, progressDeadlineSeconds, maxSurge and maxUnavailable');
  }
  if (spec(d).paused === true) {
    out.spec.paused = false;
    out.reasons.push('unpause (hand back to the Deployment controller)');
  }
  return out;
}

/**
 * ReplicaSets other than the one the controller will treat as new that still carry the inflated
 * minReadySeconds (a release interrupted by a new template left one behind): the controller only
 * syncs the field onto the new ReplicaSet, so their pods would stay unavailable to it forever.
 */
function uninflatedOldReplicaSets(owned: KubeObject[], originals: Originals | null, current: string): KubeWrite[] {
  const minReadySeconds = originals?.minReadySeconds ?? 0;
  return owned
    .filter((rs) => num(spec(rs).minReadySeconds) === INFLATED_MIN_READY_SECONDS && revisionId(templateOf(rs)) !== current && num(spec(rs).replicas) > 0)
    .map((rs) => ({
      verb: 'patch' as const, ref: objectRef(rs), patchType: 'merge' as const, resourceVersion: rs.metadata.resourceVersion,
      patch: { spec: { minReadySeconds } }, reason: `give ${rs.metadata.name} back the user's minReadySeconds (${minReadySeconds})`,
    }));
}

function newestOf(owned: KubeObject[], revision: string): KubeObject | undefined {
  return owned.filter((rs) => revisionId(templateOf(rs)) === revision).sort((a, b) => revisionNumber(b) - revisionNumber(a))[0];
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
