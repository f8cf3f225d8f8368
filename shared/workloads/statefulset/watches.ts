// What the watch-proxy watches for StatefulSets: the set itself, and nothing else. A template
// change (`kubectl set image`, GitOps, our release command) modifies it, and so does every step of
// a batch: the StatefulSet controller rewrites its status (currentRevision/updateRevision,
// updatedReplicas, readyReplicas, availableReplicas after minReadySeconds) whenever one of its
// pods is replaced or turns ready. ControllerRevisions only appear with a template change (already
// an event of the set), and pods would multiply the events by the replica count.
import type { WatchDeclaration } from '../driver.ts';
import { itself } from '../common/ownership.ts';

export const statefulSetWatches: readonly WatchDeclaration[] = Object.freeze([
  { apiVersion: 'apps/v1', kind: 'StatefulSet', resource: 'statefulsets', workloadOf: itself },
]);
