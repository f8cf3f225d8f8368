// What the watch-proxy watches for Deployments. Not pods: a Deployment's ReplicaSets carry
// replicas/ready/available in their status, which changes whenever a pod's readiness does, and the
// driver reads nothing else (it lists no pods); watching pods would multiply the traffic by the
// replica count for no information the reconcile uses.
import type { WatchDeclaration } from '../driver.ts';
import { controllingOwner, itself } from '../common/ownership.ts';

export const deploymentWatches: readonly WatchDeclaration[] = Object.freeze([
  { apiVersion: 'apps/v1', kind: 'Deployment', resource: 'deployments', workloadOf: itself },
  { apiVersion: 'apps/v1', kind: 'ReplicaSet', resource: 'replicasets', workloadOf: controllingOwner('Deployment') },
]);
