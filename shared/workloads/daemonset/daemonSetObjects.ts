// Typed reads of the native DaemonSet (apps/v1) and OpenKruise's Advanced DaemonSet
// (apps.kruise.io/v1alpha1), from wire-format JSON. Both schedule one pod per eligible node (N is
// status.desiredNumberScheduled), keep their templates in ControllerRevisions labelled with the
// template hash, and label each pod with that hash (controller-revision-hash). Both create every
// new pod — on a node that joins, or in place of a deleted one — from their CURRENT template.
import type { KubeObject } from '../../kube/types.ts';
import { isRecord } from '../../json.ts';
import { scaledValue } from '../../rollout/arithmetic.ts';
import { asIntOrPercent } from '../../rollout/intOrPercent.ts';
import { num, spec, status } from '../common/objects.ts';
import { rollingUpdateOf } from '../common/partition.ts';
import { REVISION_LABEL, podRevisionLabel } from '../common/revisions.ts';

/**
 * A native DaemonSet held by OnDelete: the user's spec.updateStrategy before the switch, as JSON,
 * restored exactly by the hand-back (the same idea as Kruise Rollout's native-DaemonSet proposal,
 * which keeps the original strategy in an annotation while it deletes pods batch by batch).
 */
export const ORIGINAL_UPDATE_STRATEGY = 'rollouts.serverless-rollouts.io/original-update-strategy';

export function updateStrategyOf(ds: KubeObject): Record<string, unknown> {
  const s = spec(ds).updateStrategy;
  return isRecord(s) ? s : {};
}

export function strategyType(ds: KubeObject): string {
  const t = updateStrategyOf(ds).type;
  return typeof t === 'string' ? t : 'RollingUpdate';
}

export type OriginalStrategy = { state: 'absent' } | { state: 'ok'; strategy: Record<string, unknown> } | { state: 'broken'; problem: string };

export function originalStrategy(ds: KubeObject): OriginalStrategy {
  const raw = ds.metadata.annotations?.[ORIGINAL_UPDATE_STRATEGY];
  if (raw === undefined) return { state: 'absent' };
  try {
    const v: unknown = JSON.parse(raw);
    if (isRecord(v) && (v.type === 'RollingUpdate' || v.type === 'OnDelete')) return { state: 'ok', strategy: v };
  } catch {
    // reported below
  }
  return { state: 'broken', problem: `annotation ${ORIGINAL_UPDATE_STRATEGY} is not an updateStrategy of a DaemonSet (${raw.slice(0, 80)}); put back the JSON of your spec.updateStrategy, or delete the rollout` };
}

/** The user's strategy: what the hold annotation keeps while we hold by OnDelete, else the live one. */
export function userStrategy(ds: KubeObject): Record<string, unknown> {
  const original = originalStrategy(ds);
  return original.state === 'ok' ? original.strategy : updateStrategyOf(ds);
}

/** N: the nodes that should run the daemon pod. */
export function desiredNumberScheduled(ds: KubeObject): number {
  return num(status(ds).desiredNumberScheduled);
}

/** A ControllerRevision's id, as the pods carry it: its hash label (its name is "<daemonset>-<hash>"). */
export function revisionHash(cr: KubeObject): string {
  return cr.metadata.labels?.[REVISION_LABEL] ?? cr.metadata.name.slice(cr.metadata.name.lastIndexOf('-') + 1);
}

export const podRevision = podRevisionLabel;

export function nodeOf(pod: KubeObject): string {
  const n = spec(pod).nodeName;
  return typeof n === 'string' ? n : '';
}

/** Node name, last first: the order Kruise's Advanced DaemonSet updates nodes, and our batches delete in. */
export function byNodeDescending(a: KubeObject, b: KubeObject): number {
  return nodeOf(b).localeCompare(nodeOf(a)) || b.metadata.name.localeCompare(a.metadata.name);
}

/**
 * k8s updatedDesiredNodeCounts (Kruise's the same): maxUnavailable and maxSurge of a rolling update
 * both round up against N; both 0 (or an OnDelete strategy, which has neither) allow one unavailable.
 */
export function daemonSetBudget(strategy: Record<string, unknown>, total: number): { maxUnavailable: number; maxSurge: number } {
  const r = isRecord(strategy.rollingUpdate) ? strategy.rollingUpdate : {};
  const rolling = strategy.type === undefined || strategy.type === 'RollingUpdate';
  const maxSurge = rolling ? scaledValue(asIntOrPercent(r.maxSurge, 0), total, true) : 0;
  let maxUnavailable = rolling ? scaledValue(asIntOrPercent(r.maxUnavailable, 1), total, true) : 1;
  if (maxUnavailable === 0 && maxSurge === 0) maxUnavailable = 1;
  return { maxUnavailable: Math.min(maxUnavailable, total), maxSurge };
}


/** Kruise's Advanced DaemonSet: spec.updateStrategy.rollingUpdate.paused. */
export function isPaused(ds: KubeObject): boolean {
  return rollingUpdateOf(ds).paused === true;
}
