// Wire-format Deployment/ReplicaSet objects for driver unit tests.
import type { KubeObject } from '../../../shared/kube/types.ts';
import type { Observation } from '../../../shared/workloads/driver.ts';
import { revisionId } from '../../../shared/workloads/deployment/revision.ts';

export function template(image: string, extraLabels: Record<string, string> = {}) {
  return { metadata: { labels: { app: 'web', ...extraLabels } }, spec: { containers: [{ name: 'app', image, resources: {} }], restartPolicy: 'Always' } };
}

export function deployment(over: { image?: string; replicas?: number; paused?: boolean; strategy?: unknown; annotations?: Record<string, string>; selector?: unknown } = {}): KubeObject {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: { name: 'web', namespace: 'ns', uid: 'dep-uid', resourceVersion: '100', generation: 2, annotations: over.annotations ?? {} },
    spec: {
      replicas: over.replicas ?? 10, paused: over.paused ?? true,
      selector: over.selector ?? { matchLabels: { app: 'web' } },
      strategy: over.strategy ?? { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: template(over.image ?? 'web:v2'),
    },
    status: { observedGeneration: 2, replicas: 10, updatedReplicas: 0, availableReplicas: 10 },
  };
}

export function replicaSet(name: string, image: string, r: { replicas: number; available?: number; revision?: number; hash?: string; annotations?: Record<string, string> }): KubeObject {
  const hash = r.hash ?? revisionId(template(image));
  return {
    apiVersion: 'apps/v1', kind: 'ReplicaSet',
    metadata: {
      name, namespace: 'ns', uid: `${name}-uid`, resourceVersion: `rv-${name}`, generation: 1,
      annotations: { 'deployment.kubernetes.io/revision': String(r.revision ?? 1), ...r.annotations },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'dep-uid', controller: true }],
    },
    spec: { replicas: r.replicas, selector: { matchLabels: { app: 'web', 'pod-template-hash': hash } }, template: template(image, { 'pod-template-hash': hash }) },
    status: { observedGeneration: 1, replicas: r.replicas, readyReplicas: r.available ?? r.replicas, availableReplicas: r.available ?? r.replicas },
  };
}

export function observation(workload: KubeObject | null, children: KubeObject[]): Observation {
  return { namespace: 'ns', ref: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, workload, children, pods: [], now: new Date() };
}

export const V1 = revisionId(template('web:v1'));
export const V2 = revisionId(template('web:v2'));
