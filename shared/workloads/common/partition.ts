// The partition style shared by the StatefulSet kinds, CloneSet and Advanced DaemonSet (Kruise's
// partitionstyle controls): the workload's own controller updates every pod (or node) beyond the
// partition, which says how many keep the old revision. Held at a partition no N reaches; a batch
// of k pods out of N lowers it to N − k; the hand-back puts the user's own value back.
// Two annotations make the workload carry what a lost STATE would forget:
//  - BATCH_PARTITION: the partition our current batch wrote. A batch of 100% writes 0 and is still
//    ours; a live partition below the record means someone else lowered it (not held);
//  - ORIGINAL_PARTITION: the user's partition before we first held the workload (JSON, `null` for
//    unset), restored exactly by the hand-back. Absent (a workload held by an older version): the
//    hand-back writes the field's default, 0.
import type { KubeObject, KubeWrite } from '../../kube/types.ts';
import type { Action } from '../../rollout/types.ts';
import { isRecord } from '../../json.ts';
import { mergePatchDiff } from './mergePatch.ts';
import { objectRef, templateOf } from './objects.ts';
import { templateChangeWrite } from './templateChange.ts';

export const BATCH_PARTITION = 'rollouts.serverless-rollouts.io/partition';
export const ORIGINAL_PARTITION = 'rollouts.serverless-rollouts.io/original-partition';

/** An int, or a percent string (CloneSet only). */
export type PartitionValue = number | string;

/** How one kind keeps its partition. */
export interface PartitionField {
  /** The live value; undefined when unset. */
  read(w: KubeObject): PartitionValue | undefined;
  /** The merge-patch fragment of spec that sets it (null unsets it). */
  spec(value: PartitionValue | null): Record<string, unknown>;
  /** Pods (nodes) a value keeps on old revisions out of `total`; unset keeps none. */
  kept(value: PartitionValue | undefined, total: number): number;
  /** The value that keeps exactly `keep` of `total`. */
  encode(keep: number, total: number): PartitionValue;
  /** The hold: keeps everything old whatever N becomes (a scale-up while held adds old pods). */
  readonly hold: PartitionValue;
  /** What the hand-back writes when no original was recorded: the field's default. */
  readonly fallback: PartitionValue | null;
}

/** spec.updateStrategy.rollingUpdate.partition, an int (StatefulSet, Advanced StatefulSet, Advanced DaemonSet). */
export function rollingUpdatePartition(hold: number): PartitionField {
  return {
    read: (w) => {
      const v = rollingUpdateOf(w).partition;
      return typeof v === 'number' ? v : undefined;
    },
    spec: (value) => ({ updateStrategy: { rollingUpdate: { partition: value } } }),
    kept: (value) => (typeof value === 'number' ? Math.max(0, value) : 0),
    encode: (keep) => keep,
    hold,
    fallback: 0,
  };
}

export function rollingUpdateOf(w: KubeObject): Record<string, unknown> {
  const s = w.spec?.updateStrategy;
  const r = isRecord(s) ? s.rollingUpdate : undefined;
  return isRecord(r) ? r : {};
}

/** A recorded partition: an int or "NN%"; undefined when absent or not one we could have written. */
export function recordedPartition(w: KubeObject): PartitionValue | undefined {
  return parsePartition(w.metadata.annotations?.[BATCH_PARTITION]);
}

function parsePartition(raw: string | undefined): PartitionValue | undefined {
  if (raw === undefined) return undefined;
  if (/^\d+$/.test(raw)) return Number(raw);
  return /^\d+%$/.test(raw) ? raw : undefined;
}

/** The user's partition before the hold: `{value}` (null = unset), or null when none was recorded (or it is unreadable). */
export function originalPartition(w: KubeObject): { value: PartitionValue | null } | null {
  const raw = w.metadata.annotations?.[ORIGINAL_PARTITION];
  if (raw === undefined) return null;
  try {
    const v: unknown = JSON.parse(raw);
    if (v === null || (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0)) return { value: v };
    if (typeof v === 'string' && /^\d+%$/.test(v)) return { value: v };
  } catch {
    // unreadable: treated as absent (the hand-back writes the default)
  }
  return null;
}

/**
 * Held: the live partition keeps at least what our batch asked (or, with no batch of ours, what
 * the hold keeps), judged at the live N.
 */
export function isPartitionHeld(w: KubeObject, field: PartitionField, total: number): boolean {
  return field.kept(field.read(w), total) >= field.kept(recordedPartition(w) ?? field.hold, total);
}

/** What one pass wants the partition, its record and the original record to be. */
export interface PartitionIntent {
  /** null: unset the field. */
  partition: PartitionValue | null;
  /** undefined: no record. */
  record: PartitionValue | undefined;
  /** The original record: kept as it is, saved now (the user's live value), or removed. */
  original: 'keep' | 'save' | 'drop';
}

/** Everything a partition-style pass writes, before kind-specific deletes. */
export interface PartitionPlan {
  want: PartitionIntent;
  /** A merge patch of spec.template putting a stored revision back (restore-template). */
  template: unknown;
  /** The pod-template change a command asked for (after the partition patch). */
  templateWrites: KubeWrite[];
  /** The batch to move, when this pass may move one (the template is observed and is the target). */
  batch: { target: string; desired: number; action: Extract<Action, { type: 'distribute' }> } | null;
}

export interface PartitionContext {
  field: PartitionField;
  /** N: replicas, or the nodes a DaemonSet schedules. */
  total: number;
  /** The controller has observed the latest spec and reports `updateRevision` for it. */
  observed: boolean;
  /** The revision the controller updates pods to ('' when unknown). */
  updateRevision: string;
  /** The stored pod template of a revision id, for restore-template. */
  storedTemplate(revision: string): Record<string, unknown> | null;
}

/**
 * The partition intent of a list of planned actions. A new template never lands on a lowered
 * partition (the controller would roll it to every pod beyond the partition at once): set-template
 * raises it first, in the patch sent before the template. A batch never moves backwards within a
 * release: the partition only goes down from the one our last batch recorded (Kruise:
 * UpgradeBatch returns when current <= desired); a partition someone else lowered is no floor.
 */
export function planPartition(w: KubeObject, actions: readonly Action[], ctx: PartitionContext): PartitionPlan {
  const { field, total } = ctx;
  const live: PartitionIntent = { partition: field.read(w) ?? null, record: recordedPartition(w), original: 'keep' };
  const hold = (): PartitionIntent => ({ partition: field.hold, record: undefined, original: userValueIsLive(w, field) ? 'save' : 'keep' });
  let want = live;
  let template: unknown;
  let templateWrites: KubeWrite[] = [];
  let batch: PartitionPlan['batch'] = null;
  for (const action of actions) {
    switch (action.type) {
      case 'hold':
        want = hold();
        break;
      case 'release-hold': {
        const original = originalPartition(w);
        want = { partition: original ? original.value : field.fallback, record: undefined, original: 'drop' };
        break;
      }
      case 'set-template':
        want = hold();
        templateWrites = [templateChangeWrite(w, action.change, (revision) => ctx.storedTemplate(revision))];
        batch = null;
        break;
      case 'restore-template': {
        const stored = ctx.storedTemplate(action.revision);
        if (stored) template = mergePatchDiff(templateOf(w), stored);
        break;
      }
      case 'distribute': {
        if (!ctx.observed || action.target !== ctx.updateRevision || templateWrites.length > 0) break;
        const desired = action.distribution[action.target] ?? 0;
        const floor = field.kept(recordedPartition(w) ?? field.read(w), total);
        const keep = Math.max(0, Math.min(floor, total - desired));
        const value = field.encode(keep, total);
        want = { partition: value, record: value, original: want.original };
        batch = { target: action.target, desired, action };
        break;
      }
    }
  }
  return { want, template, templateWrites, batch };
}

/**
 * The live partition is the user's own, to be recorded before the hold replaces it: no batch of ours
 * is on the workload and it is not our hold value (we never write another value outside a batch
 * but the hand-back, which removes the record). So a value the user set since the last record —
 * their latest word — replaces it. Our hold value without a record (a workload held by an older
 * version) is not theirs: its hand-back writes the default.
 */
function userValueIsLive(w: KubeObject, field: PartitionField): boolean {
  return w.metadata.annotations?.[BATCH_PARTITION] === undefined && field.read(w) !== field.hold;
}

/**
 * The one merge patch of the workload for a partition plan (null when nothing changes), guarded by
 * the observed resourceVersion; `reason` names the change.
 */
export function partitionPatch(w: KubeObject, field: PartitionField, plan: PartitionPlan, reason: string): KubeWrite | null {
  const { want } = plan;
  const specPatch: Record<string, unknown> = {};
  const livePartition = field.read(w) ?? null;
  if (want.partition !== livePartition) Object.assign(specPatch, field.spec(want.partition));
  if (plan.template !== undefined) specPatch.template = plan.template;
  const annotations: Record<string, string | null> = {};
  const liveRecord = w.metadata.annotations?.[BATCH_PARTITION];
  const wantRecord = want.record === undefined ? undefined : String(want.record);
  if (wantRecord !== liveRecord) annotations[BATCH_PARTITION] = wantRecord ?? null;
  const liveOriginal = w.metadata.annotations?.[ORIGINAL_PARTITION];
  if (want.original === 'save' && liveOriginal !== JSON.stringify(livePartition)) annotations[ORIGINAL_PARTITION] = JSON.stringify(livePartition);
  if (want.original === 'drop' && liveOriginal !== undefined) annotations[ORIGINAL_PARTITION] = null;
  if (Object.keys(specPatch).length === 0 && Object.keys(annotations).length === 0) return null;
  return {
    verb: 'patch', ref: objectRef(w), patchType: 'merge', resourceVersion: w.metadata.resourceVersion,
    patch: {
      ...(Object.keys(annotations).length > 0 ? { metadata: { annotations } } : {}),
      ...(Object.keys(specPatch).length > 0 ? { spec: specPatch } : {}),
    },
    reason,
  };
}

/** Words for a partition change, for the write's reason. */
export function describePartition(w: KubeObject, field: PartitionField, plan: PartitionPlan, movesTo: string): string {
  const { want } = plan;
  const parts: string[] = [];
  if (want.partition !== (field.read(w) ?? null)) {
    if (want.partition === field.hold && want.record === undefined) parts.push(`hold (partition ${String(field.hold)})`);
    else if (want.original === 'drop') parts.push(`hand back to its controller (partition ${want.partition === null ? 'unset' : String(want.partition)}, ${originalPartition(w) ? 'the user\'s' : 'the default'})`);
    else parts.push(`partition ${String(want.partition)}: ${movesTo}`);
  }
  if (plan.template !== undefined) parts.push('restore pod template');
  if (parts.length > 0) return parts.join(', ');
  if (want.original === 'save') return `record the original partition ${JSON.stringify(field.read(w) ?? null)}`;
  return want.record === undefined ? `drop ${BATCH_PARTITION}` : `record batch partition ${String(want.record)}`;
}
