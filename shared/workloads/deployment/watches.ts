// What the watch-proxy watches for Deployments. Not pods: a Deployment's ReplicaSets carry
// replicas/ready/available in their status, which changes whenever a pod's readiness does, and the
// driver reads nothing else (it lists no pods); watching pods would multiply the traffic by the
// replica count for no information the reconcile uses. A CanaryWorkload release's `<name>-canary`
// Deployment and its ReplicaSets belong to `<name>` (canaryObjects.ts): its label, and the annotation
// the Deployment controller copies onto its ReplicaSets, name it.
import type { KubeObject } from '../../kube/types.ts';
import type { WatchDeclaration } from '../driver.ts';
import { controllingOwner, itself } from '../common/ownership.ts';
import { CANARY_LABEL, CANARY_OF } from './canaryObjects.ts';

const owningDeployment = controllingOwner('Deployment');

export const deploymentWatches: readonly WatchDeclaration[] = Object.freeze([
  { apiVersion: 'apps/v1', kind: 'Deployment', resource: 'deployments', workloadOf: (d: KubeObject) => d.metadata?.labels?.[CANARY_LABEL] ?? itself(d) },
  { apiVersion: 'apps/v1', kind: 'ReplicaSet', resource: 'replicasets', workloadOf: (rs: KubeObject) => rs.metadata?.annotations?.[CANARY_OF] ?? owningDeployment(rs) },
]);
