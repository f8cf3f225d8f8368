// GET /v1/rollouts/{c}/{ns}/{name}/workload: the live workload behind a rollout, for the revision →
// ReplicaSet → pods tree of `rollouts get`. Read from the cluster on each call (never stored) with
// the workload driver's own observe — for a Deployment one GET and one LIST of ReplicaSets, plus one
// LIST of pods by the same selector; for a StatefulSet one GET and LISTs of ControllerRevisions and
// pods. Exactly what the read-only ClusterRole serverless-rollouts-view (infra/k8s/rollouts-rbac.yaml)
// allows. Only an API given cluster access (`deps.clusters`) can answer; others say so with a 503
// that the CLI shows instead of the tree.
import { NotFoundError } from '../errors.ts';
import type { KubeObject } from '../kube/types.ts';
import type { RolloutKey } from '../rollout/types.ts';
import { selectorString, spec as specOf } from '../workloads/common/objects.ts';
import { deploymentDriver } from '../workloads/deployment/driver.ts';
import type { Observation } from '../workloads/driver.ts';
import { statefulSetDriver } from '../workloads/statefulset/driver.ts';
import { HttpError, json } from './httpError.ts';
import type { RouteContext } from './routes.ts';
import type { ApiResponse } from './types.ts';
import { loadExisting } from './rolloutRoutes.ts';
import { deploymentWorkload, statefulSetWorkload, type WorkloadView } from './workloadViews.ts';
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
  if (ref.kind !== 'Deployment' && ref.kind !== 'StatefulSet') throw new HttpError(501, `showing a ${ref.kind} is not supported yet`);
  let observed: Observation;
  let pods: KubeObject[] = [];
  try {
    const client = await deps.clusters.client(key.cluster);
    const now = deps.clock.now();
    if (ref.kind === 'StatefulSet') observed = await statefulSetDriver.observe(client, key.namespace, ref, now);
    else {
      observed = await deploymentDriver.observe(client, key.namespace, ref, now);
      // The Deployment driver mostly lists no pods (ReplicaSet counts suffice to plan); the tree needs them.
      const selector = observed.workload ? selectorString(specOf(observed.workload).selector) : '';
      pods = observed.pods;
      if (pods.length === 0 && selector !== '') pods = await client.list('v1', 'Pod', key.namespace, selector);
    }
  } catch (err) {
    throw new HttpError(502, `reading the workload of ${rolloutKeyString(key)} from cluster "${key.cluster}" failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  if (!observed.workload) throw new NotFoundError(`${ref.kind} ${key.namespace}/${ref.name} does not exist in cluster "${key.cluster}"`);
  const now = deps.clock.now().getTime();
  const view = ref.kind === 'StatefulSet' ? statefulSetWorkload(observed, now) : deploymentWorkload(observed, pods, now);
  const body: WorkloadResponse = { rollout: key, ...view };
  return json(200, body);
}
