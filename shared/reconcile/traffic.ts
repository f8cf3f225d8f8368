// The reconcile's half of traffic routing (docs/traffic.md, "Phase B"): read the router objects the
// Rollout's provider names and the two Services, summarise them for the planner (TrafficView: which
// routings the router already carries, what the Services select; shared/traffic/observe.ts, shared
// with the API's workload route), and turn the planner's
// set-services / set-traffic / restore-services into the provider's and services.ts's writes. The
// planner's orders (shared/rollout/routing.ts) need nothing more: everything is read from the objects
// each pass, so a pass after a crash or a lost STATE computes the same.
import type { KubeObject, KubeWrite, OwnerReference } from '../kube/types.ts';
import { isRoutingAction } from '../rollout/routing.ts';
import type { Action } from '../rollout/types.ts';
import type { TrafficObservation } from '../traffic/observe.ts';
import { canaryServiceWrites, narrowStableServiceWrites, removeCanaryServiceWrites, restoreStableServiceWrites } from '../traffic/services.ts';

// The reading half lives in the traffic layer, shared with the API's workload route.
export { observeTraffic, trafficView, type TrafficObservation } from '../traffic/observe.ts';

/** The owner of the canary Service: the workload, so that deleting the workload takes it along. */
export function canaryOwner(workload: KubeObject | null): OwnerReference | null {
  if (!workload?.metadata.uid) return null;
  return { apiVersion: workload.apiVersion, kind: workload.kind, name: workload.metadata.name, uid: workload.metadata.uid };
}

/** The writes of the routing actions, in order. Level-based: on a converged router and Services, []. */
export function trafficWrites(obs: TrafficObservation, actions: readonly Action[], label: string, owner: OwnerReference | null): KubeWrite[] {
  const { routing, provider, router, canary } = obs;
  const stable = router.stableService;
  const writes: KubeWrite[] = [];
  for (const a of actions) {
    if (a.type === 'set-traffic') writes.push(...provider.plan(router, routing, a.traffic).writes);
    if (stable === null) continue;
    if (a.type === 'set-services') {
      writes.push(...narrowStableServiceWrites(stable, { label: a.label, stable: a.stable, canary: a.canary ?? '' }));
      if (a.canary !== null) writes.push(...canaryServiceWrites(stable, canary, routing, { label: a.label, stable: a.stable, canary: a.canary }, owner));
    }
    if (a.type === 'restore-services') writes.push(...restoreStableServiceWrites(stable, label), ...removeCanaryServiceWrites(canary));
  }
  return writes;
}

/** The actions that move pods or hand the workload over: routing actions before the first go first. */
const MOVES = new Set<Action['type']>(['distribute', 'restore-template', 'release-hold', 'set-template', 'replace-first']);

/**
 * The plan's actions split for the applier: the routing actions the planner put before any pod
 * move (they are written first), the driver's, and the routing actions after them (a step's
 * Services and weight, behind the distribute that keeps its batch).
 */
export function splitActions(actions: readonly Action[]): { before: Action[]; driver: Action[]; after: Action[] } {
  const firstMove = actions.findIndex((a) => MOVES.has(a.type));
  const cut = firstMove === -1 ? actions.length : firstMove;
  return {
    before: actions.slice(0, cut).filter(isRoutingAction),
    driver: actions.filter((a) => !isRoutingAction(a)),
    after: actions.slice(cut).filter(isRoutingAction),
  };
}
