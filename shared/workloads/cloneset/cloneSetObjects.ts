// Typed reads of an OpenKruise CloneSet (apps.kruise.io/v1alpha1) and its partition, from wire JSON.
// CloneSet's spec.updateStrategy.partition counts the pods kept on OLD revisions, as an int or a
// percent of spec.replicas (Kruise util.CalculatePartitionReplicas: a percent rounds up, and one
// other than "100%" leaves at least one pod to update when replicas > 1).
import type { KubeObject } from '../../kube/types.ts';
import { isRecord } from '../../json.ts';
import { percentValue } from '../../rollout/intOrPercent.ts';
import { status } from '../common/objects.ts';
import type { PartitionField, PartitionValue } from '../common/partition.ts';
import { podRevisionLabel } from '../common/revisions.ts';

export const CLONESET_API_VERSION = 'apps.kruise.io/v1alpha1';

export function updateStrategyOf(cs: KubeObject): Record<string, unknown> {
  const s = cs.spec?.updateStrategy;
  return isRecord(s) ? s : {};
}

function keptBy(value: PartitionValue | undefined, total: number): number {
  if (typeof value === 'number') return Math.max(0, Math.min(value, total));
  if (typeof value !== 'string') return 0;
  const p = percentValue(value);
  if (p === null) return 0;
  let kept = Math.ceil((p * total) / 100);
  if (total > 1 && kept === total && value !== '100%') kept = total - 1;
  return Math.max(0, Math.min(kept, total));
}

/**
 * The partition as Kruise Rollout writes it for a percent plan (ParseIntegerAsPercentageIfPossible),
 * but only when the percent keeps exactly `keep` pods at this N, so a batch is exact: a percent keeps
 * the share of old pods when an HPA scales the CloneSet while nothing reconciles (an int would let
 * every new pod start on the new revision). Otherwise the int.
 */
function encode(keep: number, total: number): PartitionValue {
  if (keep >= total) return '100%';
  if (keep <= 0) return 0;
  const percent = `${Math.floor((keep * 100) / total)}%`;
  return keptBy(percent, total) === keep ? percent : keep;
}

export const CLONESET_PARTITION: PartitionField = {
  read: (cs) => {
    const v = updateStrategyOf(cs).partition;
    return typeof v === 'number' || typeof v === 'string' ? v : undefined;
  },
  spec: (value) => ({ updateStrategy: { partition: value } }),
  kept: keptBy,
  encode,
  hold: '100%',
  fallback: 0,
};

export function updateRevisionOf(cs: KubeObject): string {
  const v = status(cs).updateRevision;
  return typeof v === 'string' ? v : '';
}

export function currentRevisionOf(cs: KubeObject): string {
  const v = status(cs).currentRevision;
  return typeof v === 'string' ? v : '';
}

/**
 * The revision (ControllerRevision name) of a CloneSet pod: its controller-revision-hash is the
 * revision's name, or only its hash with Kruise's CloneSetShortHash feature gate (clonesetutils.
 * EqualToRevisionHash compares the last "-" segment).
 */
export function podRevisionIn(revisionNames: readonly string[]): (pod: KubeObject) => string {
  const byHash = new Map(revisionNames.map((name) => [shortHash(name), name]));
  return (pod) => {
    const label = podRevisionLabel(pod);
    return revisionNames.includes(label) ? label : (byHash.get(shortHash(label)) ?? label);
  };
}

function shortHash(revision: string): string {
  return revision.slice(revision.lastIndexOf('-') + 1);
}
