// The Deployment driver, partition style: held with spec.paused, pods moved by scaling ReplicaSets.
import type { ClusterClient } from '../../reconcile/ports.ts';
import type { WorkloadRef } from '../../rollout/types.ts';
import type { Observation, WorkloadDriver } from '../driver.ts';
import { selectorString, spec } from '../common/objects.ts';
import { deploymentView } from './view.ts';
import { deploymentWrites } from './writes.ts';
import { deploymentWatches } from './watches.ts';

async function observe(cluster: ClusterClient, namespace: string, ref: WorkloadRef): Promise<Observation> {
  const workload = await cluster.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: ref.name });
  if (!workload) return { namespace, ref, workload: null, children: [], pods: [] };
  const selector = selectorString(spec(workload).selector);
  // Pods are not listed: ReplicaSet status carries every count the planner needs (one LIST saved per reconcile).
  const children = await cluster.list('apps/v1', 'ReplicaSet', namespace, selector);
  return { namespace, ref, workload, children, pods: [] };
}

export const deploymentDriver: WorkloadDriver = {
  kind: 'Deployment',
  watches: deploymentWatches,
  observe,
  view: deploymentView,
  writes: deploymentWrites,
};
