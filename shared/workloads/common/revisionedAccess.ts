// What the driver of a revisioned workload (StatefulSet, DaemonSet, CloneSet and their Kruise
// siblings) reads besides the workload, and the access that takes: its ControllerRevisions (the pod
// templates, shared/workloads/common/revisions.ts) and its pods.
import type { DriverRbac, KubeVerb, WorkloadDriver } from '../driver.ts';

export const REVISIONED_READS: WorkloadDriver['reads'] = [
  { apiVersion: 'apps/v1', kind: 'ControllerRevision', resource: 'controllerrevisions' },
  { apiVersion: 'v1', kind: 'Pod', resource: 'pods' },
];

/**
 * The workload's own resource (`apiGroup`/`resource`) with its revisions and pods; `podVerbs`: what
 * the reconcile does to pods (list, and delete where the driver replaces pods itself).
 */
export function revisionedRbac(apiGroup: string, resource: string, podVerbs: readonly KubeVerb[]): DriverRbac {
  return {
    reconcile: [
      { apiGroup, resource, verbs: ['get', 'list', 'watch', 'patch'] },
      { apiGroup: 'apps', resource: 'controllerrevisions', verbs: ['list'] },
      { apiGroup: '', resource: 'pods', verbs: podVerbs },
    ],
    view: [
      { apiGroup, resource, verbs: ['get'] },
      { apiGroup: 'apps', resource: 'controllerrevisions', verbs: ['list'] },
      { apiGroup: '', resource: 'pods', verbs: ['list'] },
    ],
    // Pod hooks: exec hooks run in the pods (the order of replacement is the controller's own).
    hooks: [{ apiGroup: '', resource: 'pods/exec', verbs: ['get', 'create'] }],
  };
}
