// Typed reads of the StatefulSet, ControllerRevision and Pod fields the StatefulSet driver uses,
// from wire-format JSON. The generic reads (spec, status, num, images, selector) are the
// Deployment driver's; only what is particular to StatefulSets lives here.
import type { KubeObject } from '../../kube/types.ts';
import { isControlledBy, num, spec, status } from '../common/objects.ts';
import { isRecord } from '../../json.ts';

/**
 * The hold: Kruise's MaxInt16 rather than spec.replicas, so pods a scale-up adds while held are
 * still created from the current revision (the controller creates ordinals below the partition
 * from currentRevision).
 */
export const HELD_PARTITION = 32767;
/**
 * The partition the current batch asked for, while a release moves pods. A partition can be 0 for
 * a batch of 100% and still be ours; without this record a StatefulSet is held only at
 * HELD_PARTITION. A live partition below the record means someone else lowered it.
 */
export const BATCH_PARTITION = 'rollouts.serverless-rollouts.io/partition';
/** Pod label the StatefulSet controller sets to the name of the pod's ControllerRevision. */
export const REVISION_LABEL = 'controller-revision-hash';

export type UpdateStrategyType = 'RollingUpdate' | 'OnDelete' | string;

export function updateStrategyType(set: KubeObject): UpdateStrategyType {
  const s = spec(set).updateStrategy;
  const type = isRecord(s) ? s.type : undefined;
  return typeof type === 'string' ? type : 'RollingUpdate'; // the apiserver's default
}

function rollingUpdate(set: KubeObject): Record<string, unknown> {
  const s = spec(set).updateStrategy;
  const r = isRecord(s) ? s.rollingUpdate : undefined;
  return isRecord(r) ? r : {};
}

/** spec.updateStrategy.rollingUpdate.partition; 0 when unset (the apiserver's default). */
export function partitionOf(set: KubeObject): number {
  return num(rollingUpdate(set).partition, 0);
}

export function maxUnavailableOf(set: KubeObject): unknown {
  return rollingUpdate(set).maxUnavailable;
}

/** The batch partition we recorded, or undefined when there is none (or it is not a number we wrote). */
export function recordedPartition(set: KubeObject): number | undefined {
  const raw = set.metadata.annotations?.[BATCH_PARTITION];
  if (raw === undefined || !/^\d+$/.test(raw)) return undefined;
  return Number(raw);
}

export function updateRevisionOf(set: KubeObject): string {
  const v = status(set).updateRevision;
  return typeof v === 'string' ? v : '';
}

export function currentRevisionOf(set: KubeObject): string {
  const v = status(set).currentRevision;
  return typeof v === 'string' ? v : '';
}

/** The controller has observed the latest spec: its status (updateRevision included) describes it. */
export function isObserved(set: KubeObject): boolean {
  return num(status(set).observedGeneration, -1) >= num(set.metadata.generation);
}

/**
 * The pod template a ControllerRevision stores. The controller saves it as a strategic merge patch
 * `{spec: {template: {..., $patch: replace}}}`; nulls (creationTimestamp) are dropped so a merge
 * diff against the live template does not carry them.
 */
export function storedTemplate(cr: KubeObject): Record<string, unknown> | null {
  const data = (cr as KubeObject & { data?: unknown }).data;
  const specPart = isRecord(data) ? data.spec : undefined;
  const template = isRecord(specPart) ? specPart.template : undefined;
  if (!isRecord(template)) return null;
  const { $patch: _replace, ...rest } = template;
  return withoutNulls(rest) as Record<string, unknown>;
}

export function revisionNumberOf(cr: KubeObject): number {
  return num((cr as KubeObject & { revision?: unknown }).revision, 0);
}

/** ControllerRevisions of this StatefulSet (the controller adopts matching orphans, so they count too). */
export function ownedRevisions(set: KubeObject, children: KubeObject[]): KubeObject[] {
  return children.filter(
    (cr) => cr.kind === 'ControllerRevision' && !cr.metadata.deletionTimestamp &&
      (isControlledBy(cr, set) || !(cr.metadata.ownerReferences ?? []).some((r) => r.controller)),
  );
}

/** Pods of this StatefulSet: controlled by it, or orphans named like its pods (it would adopt them). */
export function ownedPods(set: KubeObject, pods: KubeObject[]): KubeObject[] {
  return pods.filter(
    (p) => isControlledBy(p, set) ||
      (!(p.metadata.ownerReferences ?? []).some((r) => r.controller) && ordinalOf(p, set.metadata.name) !== null),
  );
}

/** `<set>-<ordinal>` → ordinal; null for a pod not named like one of the set's. */
export function ordinalOf(pod: KubeObject, setName: string): number | null {
  const name = pod.metadata.name;
  if (!name.startsWith(`${setName}-`)) return null;
  const rest = name.slice(setName.length + 1);
  return /^\d+$/.test(rest) ? Number(rest) : null;
}

export function podRevision(pod: KubeObject): string {
  return pod.metadata.labels?.[REVISION_LABEL] ?? '';
}

export function isTerminating(pod: KubeObject): boolean {
  return pod.metadata.deletionTimestamp !== undefined;
}

/** PodReady is True. Kruise counts StatefulSet batches this way: no minReadySeconds. */
export function isPodReady(pod: KubeObject): boolean {
  const conditions = status(pod).conditions;
  return Array.isArray(conditions) && conditions.some((c) => isRecord(c) && c.type === 'Ready' && c.status === 'True');
}

function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = withoutNulls(v);
  return out;
}
