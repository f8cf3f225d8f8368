// The port every traffic provider implements: to routing what shared/workloads/driver.ts is to a
// workload kind. A provider is the only place that knows its router's objects (an HTTPRoute, an
// Ingress with ingress-nginx canary annotations, an Ingress with AWS Load Balancer Controller
// actions): what to read and watch, the RBAC that takes, and the desired objects for a step, as
// pure data. docs/traffic.md says how the planner will use it.
import { TerminalError } from '../errors.ts';
import type { FieldIssue } from '../errors.ts';
import type { KubeObject, KubeWrite, ObjectRef } from '../kube/types.ts';
import type { StepTraffic, TrafficRouting } from '../rollout/trafficTypes.ts';
import type { RolloutSpec } from '../rollout/types.ts';
import type { ResourceAccess } from '../workloads/driver.ts';

/** The providers, as a Rollout's trafficRoutings[0] selects them (gateway, or ingress classType). */
export const PROVIDER_TYPES = ['gateway', 'nginx', 'aws-alb'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

/** A kind the provider reads or writes, e.g. gateway.networking.k8s.io/v1 HTTPRoute. */
export interface RouterResource {
  readonly apiVersion: string;
  readonly kind: string;
  /** The plural of the watch and RBAC paths, e.g. "httproutes". */
  readonly resource: string;
}

/**
 * A resource whose events may concern a rollout's routing: the watch-proxy watches it in every
 * namespace with a routed rollout and maps each event through `routingOf` to the rollouts whose
 * trafficRoutings name that object (a route, an Ingress, a Service).
 */
export interface TrafficWatch extends RouterResource {
  /** The name a Rollout's trafficRouting uses for this object (the stable Ingress for a canary Ingress), or null when it is none of ours. */
  routingOf(obj: KubeObject): string | null;
}

/** The RBAC a provider needs, in the shape the workload drivers declare theirs (shared/workloads/rbac.ts). */
export interface ProviderRbac {
  /** What its reads and writes take (ClusterRole serverless-rollouts). */
  readonly reconcile: readonly ResourceAccess[];
  /** What the API's read-only routes read (ClusterRole serverless-rollouts-view): get and list. */
  readonly view: readonly ResourceAccess[];
}

/** What a pass read of the router: the objects `objectsToRead` named, each null when it does not exist. */
export interface RouterObservation {
  readonly objects: ReadonlyMap<string, KubeObject | null>;
  /** The stable Service (its ports name the target port a provider may need). */
  readonly stableService: KubeObject | null;
}

/** The writes that bring the router to a step, and what they leave to wait for. */
export interface RouterPlan {
  /** Desired-state writes, in order, each carrying the resourceVersion it was computed from; [] when converged. */
  readonly writes: KubeWrite[];
  /**
   * Why the traffic is not live at the proxy yet though nothing is left to write (a Gateway that
   * has not accepted the route's generation), naming the object; null when it is, as far as the
   * provider can tell (the grace period covers the rest).
   */
  readonly pending: string | null;
}

export interface TrafficProviderUnit {
  readonly type: ProviderType;
  /** The router object's kind (what `objectsToRead` names). */
  readonly router: RouterResource;
  readonly watches: readonly TrafficWatch[];
  readonly rbac: ProviderRbac;
  /** Limits of this router on the steps' matches and header modifiers, on the Rollout fields they concern. */
  specIssues(spec: RolloutSpec): FieldIssue[];
  /** The router objects a pass reads, by name in the Rollout's namespace. */
  objectsToRead(routing: TrafficRouting, namespace: string): ObjectRef[];
  /**
   * Pure: the writes that make the router send `traffic` to the canary Service, or, with null, put
   * back exactly what the user had (the original routing). Level-based: run again on the result,
   * it returns no writes. Throws TrafficObjectError when the router objects cannot carry it.
   */
  plan(observed: RouterObservation, routing: TrafficRouting, traffic: StepTraffic | null): RouterPlan;
}

/** A router object that cannot carry the routing (missing, not routing to the stable Service, a name taken by someone else). */
export class TrafficObjectError extends TerminalError {}

/** Annotations of ours on router objects and Services. */
export const ANNOTATION_PREFIX = 'rollouts.serverless-rollouts.io';
/** Label on objects we create (canary Service, canary Ingress), so that a name taken by someone else is never ours to change. */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'serverless-rollouts';

export function isOurs(obj: KubeObject | null): boolean {
  return obj?.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY;
}

/** What a canary Service's (and a canary Ingress's) name adds to the stable one's. */
export const CANARY_SUFFIX = '-canary';

/** The stable Service's `-canary` twin (Kruise's getCanaryServiceName). */
export function canaryServiceName(routing: TrafficRouting): string {
  return `${routing.service}${CANARY_SUFFIX}`;
}

export function refOf(obj: KubeObject, namespace: string): ObjectRef {
  return { apiVersion: obj.apiVersion, kind: obj.kind, namespace: obj.metadata.namespace ?? namespace, name: obj.metadata.name };
}
