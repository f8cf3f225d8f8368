// Wire-format CloneSet, Advanced StatefulSet and DaemonSet (native and Advanced) objects, with their
// ControllerRevisions and pods, for the exact-patch unit tests of their drivers' writes: shaped like
// what the test control plane's apiserver (with kruise-manager v1.8.3) returns.
import type { KubeObject } from '../../../shared/kube/types.ts';
import type { Observation } from '../../../shared/workloads/driver.ts';
import { template } from './statefulSetFixtures.ts';

export const V1 = 'web-7d4b9c8f6';
export const V2 = 'web-5f8d7c6b9';
const IMAGES: Record<string, string> = { [V1]: 'web:v1', [V2]: 'web:v2' };

export interface WorkloadOptions {
  apiVersion: string;
  kind: string;
  image?: string;
  replicas?: number;
  updateStrategy?: Record<string, unknown>;
  annotations?: Record<string, string>;
  status?: Record<string, unknown>;
}

export function workload(o: WorkloadOptions): KubeObject {
  const replicas = o.replicas ?? 4;
  return {
    apiVersion: o.apiVersion, kind: o.kind,
    metadata: { name: 'web', namespace: 'ns', uid: 'web-uid', resourceVersion: '100', generation: 3, labels: { app: 'web' }, ...(o.annotations ? { annotations: o.annotations } : {}) },
    spec: {
      ...(o.kind === 'DaemonSet' ? {} : { replicas }),
      selector: { matchLabels: { app: 'web' } },
      template: template(o.image ?? 'web:v2'),
      updateStrategy: o.updateStrategy ?? { type: 'RollingUpdate' },
    },
    status: {
      observedGeneration: 3, replicas, readyReplicas: replicas, availableReplicas: replicas, updatedReplicas: 0, updatedReadyReplicas: 0,
      currentRevision: V1, updateRevision: V2,
      desiredNumberScheduled: replicas, currentNumberScheduled: replicas, numberReady: replicas, numberAvailable: replicas, updatedNumberScheduled: 0,
      ...o.status,
    },
  };
}

export function revision(owner: KubeObject, name: string, number: number): KubeObject {
  return {
    apiVersion: 'apps/v1', kind: 'ControllerRevision',
    metadata: {
      name, namespace: 'ns', uid: `${name}-uid`, resourceVersion: `rv-${name}`,
      labels: { app: 'web', 'controller-revision-hash': name.slice(4), 'controller.kubernetes.io/hash': name.slice(4) },
      ownerReferences: [{ apiVersion: owner.apiVersion, kind: owner.kind, name: 'web', uid: 'web-uid', controller: true }],
    },
    data: { spec: { template: { $patch: 'replace', ...template(IMAGES[name] ?? 'web:?') } } },
    revision: number,
  } as KubeObject;
}

/** Pods web-0… on the given revisions; a DaemonSet's pods each on node-<i>. */
export function pods(owner: KubeObject, ...revisions: string[]): KubeObject[] {
  return revisions.map((rev, i) => ({
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name: `web-${i}`, namespace: 'ns', uid: `pod-${i}`, resourceVersion: `rv-pod-${i}`, creationTimestamp: '2026-01-01T00:00:00Z',
      labels: { app: 'web', 'controller-revision-hash': owner.kind === 'CloneSet' ? rev : rev.slice(4), 'pod-template-generation': '1' },
      ownerReferences: [{ apiVersion: owner.apiVersion, kind: owner.kind, name: 'web', uid: 'web-uid', controller: true }],
    },
    spec: { nodeName: `node-${i}`, containers: [{ name: 'app', image: IMAGES[rev] ?? 'web:?' }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
  }));
}

export function observation(w: KubeObject, revisionNumbers: Record<string, number> = { [V1]: 1, [V2]: 2 }, podList: KubeObject[] = []): Observation {
  return {
    namespace: 'ns', ref: { apiVersion: w.apiVersion, kind: w.kind, name: 'web' }, workload: w,
    children: Object.entries(revisionNumbers).map(([name, n]) => revision(w, name, n)), pods: podList, now: new Date('2026-01-01T01:00:00Z'),
  } as Observation;
}
