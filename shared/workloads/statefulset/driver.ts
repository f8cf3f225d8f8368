// The StatefulSet driver, partition style (Kruise: highest ordinal first): held at partition 32767,
// batches moved by lowering the partition; the native controller replaces the pods.
import type { ClusterClient } from '../../reconcile/ports.ts';
import type { WorkloadRef } from '../../rollout/types.ts';
import type { Observation, WorkloadDriver } from '../driver.ts';
import { selectorString, spec, templateOf } from '../common/objects.ts';
import { NATIVE_API_VERSION, statefulSetView } from './view.ts';
import { statefulSetWrites } from './writes.ts';
import { statefulSetWatches } from './watches.ts';

/** One GET and two LISTs by the set's selector: its ControllerRevisions (revisions) and pods (counts). */
async function observe(cluster: ClusterClient, namespace: string, ref: WorkloadRef, now?: Date): Promise<Observation> {
  const none: Observation = { namespace, ref, workload: null, children: [], pods: [], ...(now ? { now } : {}) };
  // A Kruise Advanced StatefulSet has no typed binding here: the view reports it unsupported.
  if (ref.apiVersion !== NATIVE_API_VERSION) return none;
  const workload = await cluster.get({ apiVersion: NATIVE_API_VERSION, kind: 'StatefulSet', namespace, name: ref.name });
  if (!workload) return none;
  const selector = selectorString(spec(workload).selector);
  // An empty selector would list the whole namespace: the view reports it and nothing moves.
  if (selector === '') return { ...none, workload };
  const [children, pods] = await Promise.all([
    cluster.list('apps/v1', 'ControllerRevision', namespace, selector),
    cluster.list('v1', 'Pod', namespace, selector),
  ]);
  return { ...none, workload, children, pods };
}

export const statefulSetDriver: WorkloadDriver = {
  kind: 'StatefulSet',
  watches: statefulSetWatches,
  observe,
  podTemplate: templateOf,
  view: statefulSetView,
  writes: statefulSetWrites,
};
