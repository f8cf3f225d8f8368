// Wire-format StatefulSet / ControllerRevision / Pod objects for driver unit tests, shaped like
// what the kube-apiserver 1.34 of the test control plane returns.
import type { KubeObject } from '../../../shared/kube/types.ts';
import type { Observation } from '../../../shared/workloads/driver.ts';
import { BATCH_PARTITION } from '../../../shared/workloads/statefulset/statefulSetObjects.ts';

export const V1 = 'web-7d4b9c8f6';
export const V2 = 'web-5f8d7c6b9';
export const V3 = 'web-6c9f8b7d5';
const IMAGES: Record<string, string> = { [V1]: 'web:v1', [V2]: 'web:v2', [V3]: 'web:v3' };

export function template(image: string) {
  return {
    metadata: { labels: { app: 'web' } },
    spec: { containers: [{ name: 'app', image, resources: {}, imagePullPolicy: 'IfNotPresent' }], restartPolicy: 'Always', securityContext: {} },
  };
}

export interface SetOptions {
  replicas?: number;
  image?: string;
  /** spec.updateStrategy.rollingUpdate.partition; null = no rollingUpdate at all. */
  partition?: number | null;
  /** Our batch-partition annotation. */
  record?: string;
  strategyType?: string;
  maxUnavailable?: number | string;
  generation?: number;
  observedGeneration?: number;
  currentRevision?: string;
  updateRevision?: string;
  status?: Record<string, unknown>;
  selector?: unknown;
  deleting?: boolean;
}

export function statefulSet(o: SetOptions = {}): KubeObject {
  const replicas = o.replicas ?? 5;
  const rollingUpdate = o.partition === null ? undefined : { partition: o.partition ?? 32767, ...(o.maxUnavailable !== undefined ? { maxUnavailable: o.maxUnavailable } : {}) };
  return {
    apiVersion: 'apps/v1', kind: 'StatefulSet',
    metadata: {
      name: 'web', namespace: 'ns', uid: 'sts-uid', resourceVersion: '100', generation: o.generation ?? 3, labels: { app: 'web' },
      ...(o.record !== undefined ? { annotations: { [BATCH_PARTITION]: o.record } } : {}),
      ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: {
      replicas, serviceName: 'web', podManagementPolicy: 'OrderedReady',
      selector: o.selector ?? { matchLabels: { app: 'web' } },
      template: template(o.image ?? 'web:v2'),
      updateStrategy: o.strategyType === 'OnDelete' ? { type: 'OnDelete' } : { type: o.strategyType ?? 'RollingUpdate', ...(rollingUpdate ? { rollingUpdate } : {}) },
    },
    status: {
      observedGeneration: o.observedGeneration ?? o.generation ?? 3, replicas, readyReplicas: replicas, currentReplicas: replicas,
      currentRevision: o.currentRevision ?? V1, updateRevision: o.updateRevision ?? V2, availableReplicas: replicas, ...o.status,
    },
  };
}

export function revision(name: string, number: number, image = IMAGES[name] ?? 'web:?'): KubeObject {
  return {
    apiVersion: 'apps/v1', kind: 'ControllerRevision',
    metadata: {
      name, namespace: 'ns', uid: `${name}-uid`, resourceVersion: `rv-${name}`,
      labels: { app: 'web', 'controller.kubernetes.io/hash': name.slice(4) },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'sts-uid', controller: true }],
    },
    // The controller stores the template as a strategic merge patch that replaces it whole.
    data: { spec: { template: { $patch: 'replace', ...template(image) } } },
    revision: number,
  } as KubeObject;
}

export function pod(ordinal: number, rev: string, o: { ready?: boolean; terminating?: boolean } = {}): KubeObject {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name: `web-${ordinal}`, namespace: 'ns', uid: `pod-${ordinal}`, resourceVersion: `rv-pod-${ordinal}`,
      labels: { app: 'web', 'controller-revision-hash': rev, 'statefulset.kubernetes.io/pod-name': `web-${ordinal}` },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'sts-uid', controller: true }],
      ...(o.terminating ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: { containers: [{ name: 'app', image: IMAGES[rev] ?? 'web:?' }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }] },
  };
}

/** Pods web-0… on the given revisions, in ordinal order. */
export function pods(...revisions: string[]): KubeObject[] {
  return revisions.map((rev, i) => pod(i, rev));
}

export function observation(set: KubeObject | null, children: KubeObject[] = [revision(V1, 1), revision(V2, 2)], podList: KubeObject[] = []): Observation {
  return { namespace: 'ns', ref: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web' }, workload: set, children, pods: podList, now: new Date() };
}

export const STS_REF = { apiVersion: 'apps/v1', kind: 'StatefulSet', namespace: 'ns', name: 'web' };
