// The Partition strategy: planned actions → the desired-state writes that move a paused Deployment
// one increment further by scaling its ReplicaSets. All Deployment changes of one pass are merged
// into one merge patch carrying the observed resourceVersion (a concurrent writer makes it fail
// with 409 and nothing after it is sent). ReplicaSet writes follow, each with its own
// resourceVersion. Already-converged → [].
import { num, objectRef, spec, status, templateOf } from '../common/objects.ts';
import { isRecord } from '../../json.ts';
import { templateChangeWrite } from '../common/templateChange.ts';
import type { KubeObject, KubeWrite } from '../../kube/types.ts';
import type { Action, WorkloadView } from '../../rollout/types.ts';
import type { Observation } from '../driver.ts';
import { DESIRED_REPLICAS, MAX_REPLICAS, ORIGINAL_STRATEGY, NOT_COPIED, REVISION, deploymentGuard, inTakeover, revisionNumber, strategyOf, userStrategy } from './deploymentObjects.ts';
import { mergePatchDiff } from '../common/mergePatch.ts';
import { nextMoves } from './moves.ts';
import { newReplicaSetName } from './replicaSetName.ts';
import { POD_TEMPLATE_HASH, revisionId, withoutHashLabel } from './revision.ts';
import { ownedReplicaSets } from './view.ts';

export function partitionWrites(obs: Observation, actions: Action[], view: WorkloadView): KubeWrite[] {
  const d = obs.workload;
  if (!d) return [];
  const owned = ownedReplicaSets(obs);
  const rsById = new Map<string, KubeObject>();
  for (const rs of [...owned].sort((a, b) => revisionNumber(b) - revisionNumber(a))) {
    const id = revisionId(templateOf(rs));
    if (!rsById.has(id)) rsById.set(id, rs);
  }
  const deploymentPatch: { spec: Record<string, unknown>; annotations: Record<string, string | null> } = { spec: {}, annotations: {} };
  const replicaSetWrites: KubeWrite[] = [];
  const templateWrites: KubeWrite[] = [];
  const beforeTemplate: KubeWrite[] = [];
  const activeNow = new Map(view.revisions.map((r) => [r.id, r.desired]));
  let handingBack = false;

  for (const action of actions) {
    switch (action.type) {
      case 'hold':
        if (spec(d).paused !== true) deploymentPatch.spec.paused = true;
        break;
      case 'release-hold':
        // Hand back in one patch: never unpaused while still on Recreate (the native controller would
        // kill every stable pod at once), so the user's strategy comes back with the unpause.
        if (spec(d).paused === true) deploymentPatch.spec.paused = false;
        handingBack = true;
        break;
      case 'set-template':
        templateWrites.push(templateChangeWrite(d, action.change, (revision) => {
          const rs = rsById.get(revision);
          return rs ? withoutHashLabel(templateOf(rs)) : null;
        }));
        break;
      case 'restore-template': {
        const rs = rsById.get(action.revision);
        const diff = rs ? mergePatchDiff(templateOf(d), withoutHashLabel(templateOf(rs))) : undefined;
        if (diff !== undefined) deploymentPatch.spec.template = diff;
        // The template makes that ReplicaSet the controller's "new" one at once: at N with its
        // desired-replicas annotation it is "saturated", and the controller would scale every other
        // ReplicaSet to 0 itself, before our first move strips the annotation (soak). Strip it first.
        if (rs && diff !== undefined && hasReplicaAnnotations(rs)) beforeTemplate.push(stripReplicaAnnotations(rs));
        break;
      }
      case 'distribute': {
        const stable = Object.entries(action.distribution)
          .filter(([id]) => id !== action.target)
          .sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
        const moves = nextMoves({
          total: view.replicas, maxSurge: view.maxSurge, maxUnavailable: view.maxUnavailable,
          target: action.target, stable, distribution: action.distribution,
          revisions: view.revisions.map((r) => ({ id: r.id, desired: r.desired, available: r.available })),
        });
        if (!view.observed) {
          // No move until the controllers have observed every ReplicaSet and the Deployment: moves
          // are sized by the pods the ReplicaSets report, and while kube-controller-manager is down
          // those reports stand still, so each pass would scale further down on pods about to go,
          // all of it landing at once when the controller comes back (soak: 2 Available of 4 under
          // maxUnavailable 1). Only a scale-down the controller has not carried out yet is taken
          // back where the current N still needs those pods (the user scaled up meanwhile): it would
          // otherwise remove them late (soak: 3 Available of 4 under maxUnavailable 0). Only within
          // N + maxSurge: the other ReplicaSets may ask for pods the controller has not created yet,
          // and it creates them all on its return (soak: a take-back to 4 asked for 7 of 5 + 1).
          let asked = sumOf(activeNow.values());
          for (const [id, replicas] of moves) {
            const rs = rsById.get(id);
            const wanted = rs ? num(spec(rs).replicas) : 0;
            const running = rs ? num(status(rs).replicas) : 0;
            const to = Math.min(replicas, running, wanted + Math.max(0, view.replicas + view.maxSurge - asked));
            if (rs && to > wanted) {
              replicaSetWrites.push(scaleReplicaSet(rs, to, id === action.target));
              asked += to - wanted;
            }
          }
          break;
        }
        // A foreign object holds the new ReplicaSet's name: the view reports it; create nothing.
        if (!rsById.has(action.target) && (obs.others ?? []).some((o) => o.metadata.name === newReplicaSetName(d, owned, action.target))) break;
        for (const [id, replicas] of orderMoves(activeNow, moves, view.replicas, view.replicas + view.maxSurge)) {
          activeNow.set(id, replicas);
          const rs = rsById.get(id);
          if (rs) replicaSetWrites.push(scaleReplicaSet(rs, replicas, id === action.target));
          else if (id === view.templateRevision && replicas > 0) replicaSetWrites.push(createReplicaSet(d, owned, id, replicas));
        }
        break;
      }
    }
  }

  // Two or more active ReplicaSets under a paused RollingUpdate Deployment make the native controller
  // rescale them proportionally (Kubernetes' pkg/controller/deployment/sync.go, scale); Recreate makes it leave them alone. So while pods
  // of several revisions run, the Deployment is on Recreate and the user's strategy is kept in an
  // annotation; it comes back as soon as one revision is left (and always before the hold is released).
  const active = [...activeNow.values()].filter((n) => n > 0).length;
  const observedActive = view.revisions.filter((r) => r.desired > 0).length;
  if (active >= 2 && !inTakeover(d) && !handingBack) {
    deploymentPatch.spec.strategy = { type: 'Recreate', rollingUpdate: null };
    deploymentPatch.annotations[ORIGINAL_STRATEGY] = JSON.stringify(strategyOf(d));
  } else if (inTakeover(d) && (handingBack || (active <= 1 && observedActive <= 1))) {
    // Only once the cluster itself shows a single active ReplicaSet: restoring RollingUpdate in the
    // same pass as the last scale-down would let the native controller rescale the pair in between
    // (caught by the integration watcher).
    deploymentPatch.spec.strategy = { ...userStrategy(d) };
    deploymentPatch.annotations[ORIGINAL_STRATEGY] = null;
    for (const rs of owned) if (rs.metadata.annotations?.[ORIGINAL_STRATEGY] !== undefined) replicaSetWrites.unshift(dropAnnotation(rs));
  }

  const writes: KubeWrite[] = [];
  const hasSpec = Object.keys(deploymentPatch.spec).length > 0;
  const hasAnnotations = Object.keys(deploymentPatch.annotations).length > 0;
  if (hasSpec || hasAnnotations) {
    writes.push({
      verb: 'patch', ref: objectRef(d), patchType: 'merge', resourceVersion: d.metadata.resourceVersion,
      patch: { ...(hasAnnotations ? { metadata: { annotations: deploymentPatch.annotations } } : {}), ...(hasSpec ? { spec: deploymentPatch.spec } : {}) },
      reason: describePatch(deploymentPatch.spec, deploymentPatch.annotations),
    });
  }
  // ReplicaSet moves are sized for the N this pass read: without a Deployment patch to carry the
  // guard, a no-op one goes first (deploymentObjects.ts).
  if (writes.length === 0 && replicaSetWrites.some((w) => w.verb === 'create' || isScale(w))) writes.push(deploymentGuard(d));
  // Unpausing hands the Deployment to its controller: that write goes last, after every ReplicaSet write.
  const releasing = deploymentPatch.spec.paused === false;
  return releasing ? [...beforeTemplate, ...replicaSetWrites, ...writes, ...templateWrites] : [...beforeTemplate, ...writes, ...replicaSetWrites, ...templateWrites];
}

/**
 * The order of one pass's ReplicaSet writes. Each write lands alone, and the native controller acts
 * between two of them, so every prefix must be a state we can stand behind:
 * - never a lone active ReplicaSet this pass does not bring to N: the native controller resizes a
 *   lone active ReplicaSet to spec.replicas, paused or not (moves.ts). Soak: a restart scaled the
 *   interrupted revision to 0 before creating the new one, the controller sized the stable
 *   ReplicaSet to N in between, and the ReplicaSets asked for N + 1 until the next batch move;
 * - among those, the lowest peak of pods asked for, so never above N + maxSurge when some order
 *   allows it. Soak: a rollback's stable ReplicaSet coming back from 0 beside an interrupted one,
 *   with the new revision's to create; "ups first" asked for N + maxSurge + 1 between two writes,
 *   where stable up, interrupted down, new up never passes N + maxSurge.
 * Ties go to downs before ups (the pods being replaced leave before new ones arrive). A pass has a
 * handful of moves (one per revision still running); past MAX_SEARCHED the two plain orders are
 * compared instead of every permutation.
 * When no such order stays within N + maxSurge (`bound`), the ups are trimmed to fit and the rest
 * comes in a later pass. Soak: from a lone ReplicaSet at N, a move "new up 2, old down 1" must write
 * the up first, and asked for N + 2 with maxSurge 1; trimmed, the new one gets 1 pod this pass.
 */
function orderMoves(activeNow: ReadonlyMap<string, number>, moves: ReadonlyMap<string, number>, total: number, bound: number): [string, number][] {
  const order = leastPeakOrder(activeNow, moves, total);
  const limit = Math.max(bound, sumOf(activeNow.values()));
  if (peakAskedFor(activeNow, order) <= limit) return order;
  const trimmed = trimUps(activeNow, order, limit);
  return leavesLoneBelowItsMove(activeNow, trimmed, total) || endsLoneBelowN(activeNow, trimmed, total) ? order : trimmed;
}

/** After every write, one active ReplicaSet not at N: the native controller would size it (untrimmed, the last move brought it to N). */
function endsLoneBelowN(activeNow: ReadonlyMap<string, number>, ordered: [string, number][], total: number): boolean {
  const active = [...new Map([...activeNow, ...ordered])].filter(([, n]) => n > 0);
  return active.length === 1 && active[0]![1] !== total;
}

/** Each up of the order cut to keep the pods asked for within `limit`; moves left with nothing to do dropped. */
function trimUps(activeNow: ReadonlyMap<string, number>, ordered: [string, number][], limit: number): [string, number][] {
  const now = new Map(activeNow);
  const trimmed: [string, number][] = [];
  for (const [id, replicas] of ordered) {
    const before = now.get(id) ?? 0;
    const to = replicas > before ? Math.max(before, Math.min(replicas, limit - (sumOf(now.values()) - before))) : replicas;
    if (to === before) continue;
    now.set(id, to);
    trimmed.push([id, to]);
  }
  return trimmed;
}

function sumOf(values: Iterable<number>): number {
  let sum = 0;
  for (const n of values) sum += n;
  return sum;
}

function leastPeakOrder(activeNow: ReadonlyMap<string, number>, moves: ReadonlyMap<string, number>, total: number): [string, number][] {
  const grows = (id: string, n: number) => Number(n > (activeNow.get(id) ?? 0));
  const downsFirst = [...moves].sort(([a, x], [b, y]) => grows(a, x) - grows(b, y));
  const upsFirst = [...moves].sort(([a, x], [b, y]) => grows(b, y) - grows(a, x));
  const candidates = downsFirst.length <= MAX_SEARCHED ? permutations(downsFirst) : [downsFirst, upsFirst];
  let best: { order: [string, number][]; peak: number } | undefined;
  for (const order of candidates) {
    if (leavesLoneBelowItsMove(activeNow, order, total)) continue;
    const peak = peakAskedFor(activeNow, order);
    if (!best || peak < best.peak) best = { order, peak };
  }
  return best?.order ?? upsFirst;
}

const MAX_SEARCHED = 6;

/** Every order of the list, the list's own first, then in lexicographic order of positions. */
function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}

/** The most pods the ReplicaSets ask for after any one of the writes, in this order. */
function peakAskedFor(activeNow: ReadonlyMap<string, number>, ordered: [string, number][]): number {
  const now = new Map(activeNow);
  let peak = 0;
  for (const [id, replicas] of ordered) {
    now.set(id, replicas);
    peak = Math.max(peak, sumOf(now.values()));
  }
  return peak;
}

/** Some write but the last leaves at most one ReplicaSet active, which the native controller would size otherwise than this pass does. */
function leavesLoneBelowItsMove(activeNow: ReadonlyMap<string, number>, ordered: [string, number][], total: number): boolean {
  const now = new Map(activeNow);
  const final = new Map([...activeNow, ...ordered]);
  return ordered.slice(0, -1).some(([id, replicas]) => {
    now.set(id, replicas);
    const active = [...now].filter(([, n]) => n > 0);
    return active.length === 0 || (active.length === 1 && active[0]![1] !== total && final.get(active[0]![0]) !== total);
  });
}

function isScale(w: KubeWrite): boolean {
  return w.verb === 'patch' && isRecord(w.patch) && isRecord(w.patch.spec) && 'replicas' in w.patch.spec;
}

function hasReplicaAnnotations(rs: KubeObject): boolean {
  const a = rs.metadata.annotations ?? {};
  return a[DESIRED_REPLICAS] !== undefined || a[MAX_REPLICAS] !== undefined;
}

function stripReplicaAnnotations(rs: KubeObject): KubeWrite {
  return {
    verb: 'patch', ref: objectRef(rs), patchType: 'merge', resourceVersion: rs.metadata.resourceVersion,
    patch: { metadata: { annotations: { [DESIRED_REPLICAS]: null, [MAX_REPLICAS]: null } } },
    reason: `drop ${DESIRED_REPLICAS} from ${rs.metadata.name}, the revision going back (it would read as saturated)`,
  };
}


/**
 * Scale one ReplicaSet. The target of a rollback/undo is an older ReplicaSet the native controller
 * made, so it carries desired-replicas: once it reaches N available the controller would call it
 * "saturated" and scale every other ReplicaSet to 0 itself, ignoring the budget. Without the
 * annotation it never does (the controller tolerates its absence), so it goes with the first scale.
 */
function scaleReplicaSet(rs: KubeObject, replicas: number, isTarget: boolean): KubeWrite {
  const annotations = rs.metadata.annotations ?? {};
  const strip = isTarget && (annotations[DESIRED_REPLICAS] !== undefined || annotations[MAX_REPLICAS] !== undefined);
  return {
    verb: 'patch', ref: objectRef(rs), patchType: 'merge', resourceVersion: rs.metadata.resourceVersion,
    patch: { ...(strip ? { metadata: { annotations: { [DESIRED_REPLICAS]: null, [MAX_REPLICAS]: null } } } : {}), spec: { replicas } },
    reason: `scale ${rs.metadata.name} to ${replicas}`,
  };
}

function dropAnnotation(rs: KubeObject): KubeWrite {
  return {
    verb: 'patch', ref: objectRef(rs), patchType: 'merge', resourceVersion: rs.metadata.resourceVersion,
    patch: { metadata: { annotations: { [ORIGINAL_STRATEGY]: null } } }, reason: `drop ${ORIGINAL_STRATEGY} from ${rs.metadata.name}`,
  };
}

/** What the native controller would create for this template (Kubernetes' pkg/controller/deployment/sync.go, getNewReplicaSet), so it adopts it as its own. */
function createReplicaSet(d: KubeObject, owned: KubeObject[], hash: string, replicas: number): KubeWrite {
  const template = templateOf(d);
  const meta = isRecord(template.metadata) ? template.metadata : {};
  const labels = { ...(isRecord(meta.labels) ? (meta.labels as Record<string, string>) : {}), [POD_TEMPLATE_HASH]: hash };
  const selector = isRecord(spec(d).selector) ? spec(d).selector as Record<string, unknown> : {};
  const matchLabels = { ...(isRecord(selector.matchLabels) ? selector.matchLabels : {}), [POD_TEMPLATE_HASH]: hash };
  const annotations: Record<string, string> = {};
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) if (!NOT_COPIED.has(k)) annotations[k] = v;
  if (!inTakeover(d)) annotations[ORIGINAL_STRATEGY] = JSON.stringify(strategyOf(d)); // the takeover patch adds it to the Deployment now
  annotations[REVISION] = String(Math.max(0, ...owned.map(revisionNumber)) + 1);
  // No desired-/max-replicas annotations: without them the native controller never sees the new
  // ReplicaSet as "saturated" and never scales old ReplicaSets down behind our back.
  const name = newReplicaSetName(d, owned, hash);
  return {
    verb: 'create',
    reason: `create ReplicaSet ${name} for the new revision with ${replicas} pods`,
    object: {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name, namespace: d.metadata.namespace, labels, annotations,
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: d.metadata.name, uid: d.metadata.uid ?? '', controller: true }],
      },
      spec: {
        replicas,
        minReadySeconds: spec(d).minReadySeconds ?? 0,
        selector: { ...selector, matchLabels },
        template: { ...template, metadata: { ...meta, labels } },
      },
    },
  };
}


function describePatch(specPatch: Record<string, unknown>, annotations: Record<string, string | null>): string {
  const parts: string[] = [];
  if (specPatch.paused === true) parts.push('hold (pause)');
  if (specPatch.paused === false) parts.push('hand back to the Deployment controller (unpause)');
  if (specPatch.template) parts.push('restore pod template');
  if (specPatch.strategy) parts.push(annotations[ORIGINAL_STRATEGY] ? 'switch to Recreate while several revisions run' : 'restore the user strategy');
  return parts.join(', ') || 'update annotations';
}
