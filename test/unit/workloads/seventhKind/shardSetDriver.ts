// A seventh workload kind, whole in this folder: `ShardSet` (example.io/v1), a made-up controller
// that keeps spec.replicas pods and replaces the pods at or above spec.partition (highest ordinal
// first) with its template's revision, like a StatefulSet. Its driver declares its identity and
// capabilities (`type`), its permissions, its view and its writes; nothing outside this folder and
// the registry call of seventhKind.test.ts knows the kind. Its controller is ./shardSetController.ts.
import type { KubeObject, KubeWrite } from '../../../../shared/kube/types.ts';
import type { ClusterClient } from '../../../../shared/ports.ts';
import type { Action, RevisionView, WorkloadKind, WorkloadRef, WorkloadView } from '../../../../shared/rollout/types.ts';
import type { WorkloadType } from '../../../../shared/rollout/workloadType.ts';
import { TEMPLATE_CHANGE_REASON, type Observation, type RevisionMembers, type WorkloadDriver } from '../../../../shared/workloads/driver.ts';

export const SHARDSET_KIND = 'ShardSet' as WorkloadKind;
export const SHARDSET_API_VERSION = 'example.io/v1';

export const SHARDSET_TYPE: WorkloadType = {
  apiVersion: SHARDSET_API_VERSION,
  kind: 'ShardSet',
  counts: 'replicas',
  onDelete: false,
  strategies: [],
  scaledByUs: [],
  preUpdate: { when: 'always' },
  percentKeepsOldPod: false,
  blueGreen: false,
  canaryWorkload: false,
  runsBlueGreen: false,
  routesTraffic: false,
};

/** Its pods carry their revision in this label; a revision is the template's image. */
export const REVISION_LABEL = 'example.io/revision';

export function revisionOfImage(image: string): string {
  return `r-${image.replace(/[^a-z0-9]+/g, '-')}`;
}

interface ShardSetSpec {
  replicas: number;
  /** Pods below this ordinal keep the old revision; absent: the controller updates every pod. */
  partition?: number;
  template: { spec: { containers: { name: string; image: string }[] } };
}

const specOf = (o: KubeObject): ShardSetSpec => (o as unknown as { spec: ShardSetSpec }).spec;
const imageOf = (o: KubeObject): string => specOf(o).template.spec.containers[0]?.image ?? '';
const podRevision = (p: KubeObject): string => p.metadata.labels?.[REVISION_LABEL] ?? '';
const isReady = (p: KubeObject): boolean => (p as unknown as { status?: { ready?: boolean } }).status?.ready === true;

function view(obs: Observation): WorkloadView {
  const set = obs.workload;
  const none: WorkloadView = {
    kind: SHARDSET_KIND, exists: false, replicas: 0, templateRevision: '', revisions: [], held: false, observed: true, nativeComplete: false,
    maxSurge: 0, maxUnavailable: 1, problems: [], strategy: null, nextAvailableAt: null, toReplace: [], blocked: null,
  };
  if (!set) return none;
  const { replicas, partition } = specOf(set);
  const template = revisionOfImage(imageOf(set));
  const ids = [...new Set([template, ...obs.pods.map(podRevision)])];
  const old = ids.find((id) => id !== template);
  const onTarget = replicas - Math.min(partition ?? 0, replicas);
  const revisions: RevisionView[] = ids.map((id, i) => {
    const mine = obs.pods.filter((p) => podRevision(p) === id);
    const ready = mine.filter(isReady).length;
    const desired = old === undefined ? replicas : id === template ? onTarget : id === old ? replicas - onTarget : 0;
    const image = id === template ? imageOf(set) : (mine[0]?.metadata.annotations?.image ?? '');
    return { id, number: ids.length - i, images: { app: image }, desired, current: mine.length, ready, available: ready };
  });
  return {
    ...none, exists: true, replicas, templateRevision: template, templateImages: { app: imageOf(set) }, revisions,
    held: partition !== undefined,
    nativeComplete: obs.pods.length === replicas && obs.pods.every((p) => podRevision(p) === template && isReady(p)),
    toReplace: obs.pods.filter((p) => podRevision(p) !== template).map((p) => p.metadata.name).sort().reverse(),
  };
}

/** Hold with a partition of every pod, move by lowering it, hand back by removing it. Level-based. */
function writes(obs: Observation, actions: Action[], seen?: WorkloadView): KubeWrite[] {
  const set = obs.workload;
  if (!set) return [];
  const v = seen ?? view(obs);
  const { replicas, partition } = specOf(set);
  let want: number | undefined = partition;
  let template: string | null = null;
  for (const a of actions) {
    if (a.type === 'hold') want = replicas;
    if (a.type === 'release-hold') want = undefined;
    if (a.type === 'distribute' && a.target === v.templateRevision) want = Math.min(want ?? replicas, replicas - (a.distribution[a.target] ?? 0));
    if (a.type === 'set-template' && a.change.type === 'images') template = a.change.images.app ?? null;
  }
  const patch: Record<string, unknown> = {};
  if (want !== partition) patch.partition = want ?? null;
  if (template !== null && template !== imageOf(set)) patch.template = { spec: { containers: [{ name: 'app', image: template }] } };
  if (Object.keys(patch).length === 0) return [];
  const ref = { apiVersion: SHARDSET_API_VERSION, kind: 'ShardSet', namespace: obs.namespace, name: set.metadata.name };
  return [{ verb: 'patch', ref, patchType: 'merge', patch: { spec: patch }, resourceVersion: set.metadata.resourceVersion, reason: 'shardset release' }];
}

async function observe(cluster: ClusterClient, namespace: string, ref: WorkloadRef, now: Date): Promise<Observation> {
  const workload = await cluster.get({ apiVersion: SHARDSET_API_VERSION, kind: 'ShardSet', namespace, name: ref.name });
  const pods = workload ? await cluster.list('v1', 'Pod', namespace, `example.io/shardset=${ref.name}`) : [];
  return { namespace, ref, workload, children: [], pods, now };
}

function revisionMembers(obs: Observation): RevisionMembers[] {
  return view(obs).revisions.map((r) => ({ id: r.id, holder: null, pods: obs.pods.filter((p) => podRevision(p) === r.id) }));
}

export const shardSetDriver: WorkloadDriver = {
  kind: SHARDSET_KIND,
  type: SHARDSET_TYPE,
  workload: { apiVersion: SHARDSET_API_VERSION, kind: 'ShardSet', resource: 'shardsets' },
  reads: [{ apiVersion: 'v1', kind: 'Pod', resource: 'pods' }],
  watches: [{ apiVersion: SHARDSET_API_VERSION, kind: 'ShardSet', resource: 'shardsets', workloadOf: (o) => o.metadata.name }],
  rbac: {
    reconcile: [{ apiGroup: 'example.io', resource: 'shardsets', verbs: ['get', 'list', 'watch', 'patch'] }, { apiGroup: '', resource: 'pods', verbs: ['list'] }],
    view: [{ apiGroup: 'example.io', resource: 'shardsets', verbs: ['get'] }, { apiGroup: '', resource: 'pods', verbs: ['list'] }],
  },
  summary: { counts: 'spec.replicas', readiness: 'pods Ready', hold: 'spec.partition = N', batch: 'partition = N − batch', restore: 'no partition' },
  revisionHolder: 'ShardSet',
  revisionMembers,
  observe,
  view,
  writes,
  podTemplate: (o) => specOf(o).template as unknown as Record<string, unknown>,
  templateChange: (workload, change) => {
    if (change.type !== 'images') throw new Error('a ShardSet takes image changes only');
    const ref = { apiVersion: SHARDSET_API_VERSION, kind: 'ShardSet', namespace: workload.metadata.namespace ?? '', name: workload.metadata.name };
    const containers = Object.entries(change.images).map(([name, image]) => ({ name, image }));
    return { verb: 'patch', ref, patchType: 'merge', patch: { spec: { template: { spec: { containers } } } }, reason: TEMPLATE_CHANGE_REASON };
  },
  acceptsTemplatePatch: false,
  podViews: (obs) => obs.pods.map((p) => ({
    name: p.metadata.name, revision: podRevision(p), ready: isReady(p), phase: 'Running', condition: null, since: '', containers: ['app'],
  })),
};
