// The reconcile's half of traffic routing (docs/traffic.md, "Phase B"): read the router objects the
// Rollout's provider names and the two Services, summarise them for the planner (TrafficView: which
// routings the router already carries, what the Services select), and turn the planner's
// set-services / set-traffic / restore-services into the provider's and services.ts's writes. The
// planner's orders (shared/rollout/routing.ts) need nothing more: everything is read from the objects
// each pass, so a pass after a crash or a lost STATE computes the same.
import type { KubeObject, KubeWrite, ObjectRef, OwnerReference } from '../kube/types.ts';
import { isRecord } from '../json.ts';
import type { ClusterClient } from '../ports.ts';
import { isRoutingAction } from '../rollout/routing.ts';
import { trafficKey, type StepTraffic, type TrafficRouting, type TrafficView } from '../rollout/trafficTypes.ts';
import type { Action, RolloutSpec } from '../rollout/types.ts';
import { TrafficObjectError, canaryServiceName, isOurs, type RouterObservation, type TrafficProviderUnit } from '../traffic/provider.ts';
import { providerOf } from '../traffic/registry.ts';
import { ORIGINAL_SELECTOR_ANNOTATION, canaryServiceWrites, narrowStableServiceWrites, removeCanaryServiceWrites, restoreStableServiceWrites } from '../traffic/services.ts';
import type { RevisionMembers } from '../workloads/driver.ts';

export interface TrafficObservation {
  routing: TrafficRouting;
  provider: TrafficProviderUnit;
  router: RouterObservation;
  /** The `<service>-canary` Service, whoever's it is; null when there is none. */
  canary: KubeObject | null;
}

function serviceRef(namespace: string, name: string): ObjectRef {
  return { apiVersion: 'v1', kind: 'Service', namespace, name };
}

/** The router objects and both Services, one GET each; null without trafficRoutings. */
export async function observeTraffic(cluster: ClusterClient, spec: RolloutSpec): Promise<TrafficObservation | null> {
  const routing = spec.trafficRouting;
  if (!routing) return null;
  const provider = providerOf(routing);
  const objects = new Map<string, KubeObject | null>();
  for (const ref of provider.objectsToRead(routing, spec.namespace)) objects.set(ref.name, await cluster.get(ref));
  const stableService = await cluster.get(serviceRef(spec.namespace, routing.service));
  const canary = await cluster.get(serviceRef(spec.namespace, canaryServiceName(routing)));
  return { routing, provider, router: { objects, stableService }, canary };
}

function selectorOf(service: KubeObject | null): Record<string, unknown> {
  const selector = service?.spec?.selector;
  return isRecord(selector) ? selector : {};
}

/** The routings a release of this spec may ask for: the user's own, and each step's. */
function candidates(spec: RolloutSpec): (StepTraffic | null)[] {
  return [null, ...spec.steps.flatMap((s) => (s.traffic ? [s.traffic] : []))];
}

/**
 * What the planner needs of the router and the Services. `label` is the pod label the driver's
 * revisions carry (null when its kind has none: the view says why routing cannot run).
 */
export function trafficView(spec: RolloutSpec, obs: TrafficObservation, members: readonly RevisionMembers[], label: string | null): TrafficView {
  const { routing, provider, router, canary } = obs;
  const routerName = `${provider.router.kind.toLowerCase()}/${provider.objectsToRead(routing, spec.namespace)[0]?.name ?? routing.service}`;
  const revisionValues: Record<string, string> = {};
  for (const m of members) {
    const value = label === null ? undefined : m.holder?.metadata.labels?.[label];
    if (value !== undefined) revisionValues[m.id] = value;
  }
  const view: TrafficView = {
    router: routerName, revisionLabel: label ?? '', revisionValues, converged: [], pending: {},
    stableNarrowedTo: null, canarySelects: null, problem: null,
  };
  const stable = router.stableService;
  if (label === null) return { ...view, problem: `a ${spec.workloadRef.kind}'s pods carry no revision label the Services could select` };
  if (stable === null) return { ...view, problem: `service/${routing.service} (trafficRoutings[0].service) not found in namespace ${spec.namespace}` };
  if (canary !== null && !isOurs(canary)) {
    return { ...view, problem: `service/${canary.metadata.name} exists and is not ours: rename it or delete it, the canary Service takes that name` };
  }
  const narrowed = stable.metadata.annotations?.[ORIGINAL_SELECTOR_ANNOTATION] !== undefined;
  const stableValue = selectorOf(stable)[label];
  view.stableNarrowedTo = narrowed && typeof stableValue === 'string' ? stableValue : null;
  const canaryValue = selectorOf(canary)[label];
  view.canarySelects = canary !== null && !canary.metadata.deletionTimestamp && typeof canaryValue === 'string' ? canaryValue : null;
  try {
    for (const traffic of candidates(spec)) {
      const key = trafficKey(traffic);
      const planned = provider.plan(router, routing, traffic);
      if (planned.writes.length > 0) continue;
      view.converged.push(key);
      if (planned.pending !== null) view.pending[key] = planned.pending;
    }
  } catch (err) {
    if (!(err instanceof TrafficObjectError)) throw err;
    return { ...view, converged: [], pending: {}, problem: err.message };
  }
  return view;
}

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
