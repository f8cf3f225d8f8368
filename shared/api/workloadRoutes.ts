// GET /v1/rollouts/{c}/{ns}/{name}/workload: the live workload behind a rollout, for the revision →
// ReplicaSet/ControllerRevision → pods tree of `rollouts get`. Read from the cluster on each call
// (never stored) with the workload driver's own observe, asked for the pods — one GET of the
// workload and LISTs of its revisions and pods. Exactly what the read-only ClusterRole serverless-rollouts-view
// (infra/k8s/rollouts-rbac.yaml, the drivers' rbac.view) allows. Only an API given cluster access
// (`deps.clusters`) can answer; others say so with a 503 that the CLI shows instead of the tree.
import { NotFoundError } from '../errors.ts';
import type { RolloutKey } from '../rollout/types.ts';
import type { Observation } from '../workloads/driver.ts';
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
}

export async function rolloutWorkload({ params, deps }: RouteContext): Promise<ApiResponse> {
  if (!deps.clusters) {
    throw new HttpError(503, 'this API has no access to the clusters, so it cannot show the live workload; the rollout itself is at GET .../status');
  }
  const { key, spec } = await loadExisting(deps, params);
  const ref = spec.spec.workloadRef;
  const driver = driverFor(ref.kind);
  let observed: Observation;
  try {
    const client = await deps.clusters.client(key.cluster);
    // Every pod, also where the counts need none (a Deployment at rest): the tree shows them.
    observed = await driver.observe(client, key.namespace, ref, deps.clock.now(), { pods: true });
  } catch (err) {
    throw new HttpError(502, `reading the workload of ${rolloutKeyString(key)} from cluster "${key.cluster}" failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  if (!observed.workload) throw new NotFoundError(`${ref.kind} ${key.namespace}/${ref.name} does not exist in cluster "${key.cluster}"`);
  const body: WorkloadResponse = { rollout: key, ...workloadView(driver, observed, deps.clock.now().getTime()) };
  return json(200, body);
}
