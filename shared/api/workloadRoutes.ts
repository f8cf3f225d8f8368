// GET /v1/rollouts/{c}/{ns}/{name}/workload: the live workload behind a rollout, for the revision →
// ReplicaSet/ControllerRevision → pods tree of `rollouts get`. Read from the cluster on each call
// (never stored) with the workload driver's own observe, asked for the pods — one GET of the
// workload and LISTs of its revisions and pods. Exactly what the read-only ClusterRole serverless-rollouts-view
// (infra/k8s/rollouts-rbac.yaml, the drivers' rbac.view and, for a routed Rollout, the providers') allows. Only an API given cluster access
// (`deps.clusters`) can answer; others say so with a 503 that the CLI shows instead of the tree.
// A Rollout with trafficRoutings also gets its router and Services read, summarised exactly as the
// reconcile plans with them (trafficView, shared/traffic/observe.ts): what the router carries now,
// for the dashboard. The providers' `view` grants allow those reads.
import { NotFoundError } from '../errors.ts';
import type { RolloutKey } from '../rollout/types.ts';
import { observeTraffic, trafficView } from '../traffic/observe.ts';
import type { RolloutSpec } from '../rollout/types.ts';
import type { TrafficView } from '../rollout/trafficTypes.ts';
import type { ClusterClient } from '../ports.ts';
import type { Observation, WorkloadDriver } from '../workloads/driver.ts';
import { driverFor } from '../workloads/registry.ts';
import { HttpError, json } from './httpError.ts';
import type { RouteContext } from './routes.ts';
import type { ApiResponse } from './types.ts';
import { loadExisting } from './rolloutRoutes.ts';
import { workloadView, type WorkloadView } from './workloadViews.ts';
import { rolloutKeyString } from '../rollout/key.ts';

export type { WorkloadPod, WorkloadRevision } from './workloadViews.ts';

export interface WorkloadResponse extends WorkloadView {
  rollout: RolloutKey;
  /** The router now, for a Rollout with trafficRoutings; absent without. */
  traffic?: WorkloadTraffic;
}

export interface WorkloadTraffic {
  /** What the reconcile would read this instant (which of the spec's routings the router carries, what the Services select); null when it could not be read. */
  view: TrafficView | null;
  /** Why the router or the Services could not be read (the tree is still shown); null when they were. */
  error: string | null;
}

export async function rolloutWorkload({ params, deps }: RouteContext): Promise<ApiResponse> {
  if (!deps.clusters) {
    throw new HttpError(503, 'this API has no access to the clusters, so it cannot show the live workload; the rollout itself is at GET .../status');
  }
  const { key, spec } = await loadExisting(deps, params);
  const ref = spec.spec.workloadRef;
  const driver = driverFor(ref.kind);
  let observed: Observation;
  let client: ClusterClient;
  try {
    client = await deps.clusters.client(key.cluster);
    // Every pod, also where the counts need none (a Deployment at rest): the tree shows them.
    observed = await driver.observe(client, key.namespace, ref, deps.clock.now(), { pods: true });
  } catch (err) {
    throw new HttpError(502, `reading the workload of ${rolloutKeyString(key)} from cluster "${key.cluster}" failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  if (!observed.workload) throw new NotFoundError(`${ref.kind} ${key.namespace}/${ref.name} does not exist in cluster "${key.cluster}"`);
  const body: WorkloadResponse = { rollout: key, ...workloadView(driver, observed, deps.clock.now().getTime()) };
  if (spec.spec.trafficRouting) body.traffic = await readTraffic(client, spec.spec, driver, observed);
  return json(200, body);
}

/** The router and both Services, as the reconcile's pass reads them; a failed read is said, not thrown (the tree stands without it). */
async function readTraffic(client: ClusterClient, spec: RolloutSpec, driver: WorkloadDriver, observed: Observation): Promise<WorkloadTraffic> {
  try {
    const obs = await observeTraffic(client, spec);
    return { view: obs ? trafficView(spec, obs, driver.revisionMembers(observed), driver.revisionLabel ?? null) : null, error: null };
  } catch (err) {
    return { view: null, error: `reading the router of trafficRoutings[0] failed: ${err instanceof Error ? err.message : String(err)}` };
  }
}
