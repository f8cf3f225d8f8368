// Reading a Rollout's routing: the router objects its provider names and the two Services, one GET
// each, summarised as the planner needs them (TrafficView: which of the spec's routings the router
// already carries, what the Services select). In the traffic layer so that the reconcile, which plans
// with it (shared/reconcile/traffic.ts), and the API's workload route, which shows it
// (shared/api/workloadRoutes.ts), read the router the one same way (scripts/layers.mjs: services do
// not import one another). Everything is read from the objects themselves, so any reader after a
// crash or a lost STATE sees the same.
import type { KubeObject, ObjectRef } from '../kube/types.ts';
import { isRecord } from '../json.ts';
import type { ClusterClient } from '../ports.ts';
import { trafficKey, type StepTraffic, type TrafficRouting, type TrafficView } from '../rollout/trafficTypes.ts';
import type { RolloutSpec } from '../rollout/types.ts';
import type { RevisionMembers } from '../workloads/driver.ts';
import { TrafficObjectError, canaryServiceName, isOurs, type RouterObservation, type TrafficProviderUnit } from './provider.ts';
import { providerOf } from './registry.ts';
import { ORIGINAL_SELECTOR_ANNOTATION } from './services.ts';

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
