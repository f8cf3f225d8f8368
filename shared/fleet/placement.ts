// Which clusters a fleet releases, and in which wave. Rules (docs/fleet.md, "Waves"):
//  - the fleet's clusters are the registered clusters its clusterSelector selects;
//  - waves take clusters in order, each from those the waves before it did not take: by selector,
//    by count or percent (ceil, at least one) in the wave's sorting order, or every cluster left;
//  - a cluster no wave takes goes to the last wave;
//  - at apply, selectors that select nothing, two waves whose selectors select the same cluster, and a
//    wave that would get no cluster are refused; at run time (a cluster registered later whose labels
//    make selectors overlap) the first wave that selects a cluster takes it, and the run goes on.
import type { FieldIssue } from '../errors.ts';
import { percentValue } from '../rollout/intOrPercent.ts';
import type { IntOrPercent } from '../rollout/types.ts';
import type { ClusterInfo } from './clusters.ts';
import { describeLabels, describeSelector, selects } from './labels.ts';
import type { FleetSpec, MemberRun, WaveSpec } from './types.ts';

export interface WaveAssignment {
  wave: WaveSpec;
  members: { cluster: ClusterInfo; placedBy: MemberRun['placedBy'] }[];
}

/** The registered clusters the fleet selects, by name. */
export function fleetClusters(spec: FleetSpec, registered: readonly ClusterInfo[]): ClusterInfo[] {
  return registered.filter((c) => selects(spec.clusterSelector, c.labels)).sort(byName);
}

function byName(a: ClusterInfo, b: ClusterInfo): number {
  return a.name.localeCompare(b.name, 'en');
}

/**
 * A wave's order: ascending by the sorting label, as integers when every value given is one (as
 * kubefleet reads sortingLabelKey), else as text; clusters without the label last; then by name.
 */
export function waveOrder(clusters: readonly ClusterInfo[], key: string | null): ClusterInfo[] {
  if (key === null) return [...clusters].sort(byName);
  const values = clusters.map((c) => c.labels[key]).filter((v): v is string => v !== undefined);
  const numeric = values.every((v) => /^-?\d+$/.test(v));
  return [...clusters].sort((a, b) => {
    const va = a.labels[key];
    const vb = b.labels[key];
    if (va === undefined || vb === undefined) return Number(va === undefined) - Number(vb === undefined) || byName(a, b);
    const order = numeric ? Number(va) - Number(vb) : va.localeCompare(vb, 'en');
    return order || byName(a, b);
  });
}

/** The fleet's clusters in waves, from scratch (a new fleet release). */
export function assignWaves(spec: FleetSpec, clusters: readonly ClusterInfo[]): WaveAssignment[] {
  let left = [...clusters].sort(byName);
  const out = spec.waves.map((wave): WaveAssignment => {
    const take = picks(wave, left);
    left = left.filter((c) => !take.includes(c));
    return { wave, members: take.map((cluster) => ({ cluster, placedBy: wave.pick.type === 'selector' ? 'selector' : 'order' })) };
  });
  const last = out[out.length - 1];
  if (last) last.members.push(...left.map((cluster) => ({ cluster, placedBy: 'last-wave' as const })));
  return out.map((a) => ({ ...a, members: inWaveOrder(a) }));
}

function inWaveOrder(a: WaveAssignment): WaveAssignment['members'] {
  const placedBy = new Map(a.members.map((m) => [m.cluster.name, m.placedBy]));
  return waveOrder(a.members.map((m) => m.cluster), a.wave.sortingLabelKey).map((cluster) => ({ cluster, placedBy: placedBy.get(cluster.name) ?? 'order' }));
}

function picks(wave: WaveSpec, left: readonly ClusterInfo[]): ClusterInfo[] {
  const pick = wave.pick;
  switch (pick.type) {
    case 'selector':
      return left.filter((c) => selects(pick.selector, c.labels));
    case 'count':
      return waveOrder(left, wave.sortingLabelKey).slice(0, pick.count);
    case 'percent':
      return waveOrder(left, wave.sortingLabelKey).slice(0, left.length === 0 ? 0 : Math.max(1, Math.ceil((pick.percent * left.length) / 100)));
    case 'rest':
      return [...left];
  }
}

/** The wave a cluster that joins mid-run goes to: the first whose selector selects it, else the last. */
export function joinWave(waves: readonly WaveSpec[], cluster: ClusterInfo): { index: number; placedBy: MemberRun['placedBy'] } {
  const index = waves.findIndex((w) => w.pick.type === 'selector' && selects(w.pick.selector, cluster.labels));
  return index >= 0 ? { index, placedBy: 'selector' } : { index: waves.length - 1, placedBy: 'last-wave' };
}

/** Members at once in a wave of `n`: an int as is, a percent of n rounded down; at least 1 (kubefleet's maxConcurrency). */
export function resolveConcurrency(v: IntOrPercent, n: number): number {
  if (typeof v === 'number') return Math.max(1, v);
  return Math.max(1, Math.floor(((percentValue(v) ?? 100) * n) / 100));
}

/** Failed members a fleet release of `n` members tolerates: an int as is, a percent of n rounded down (OCM's maxFailures). */
export function resolveMaxFailures(v: IntOrPercent, n: number): number {
  if (typeof v === 'number') return v;
  return Math.floor(((percentValue(v) ?? 0) * n) / 100);
}

const NAMED = 5;

function listed(clusters: readonly ClusterInfo[]): string {
  const shown = clusters.slice(0, NAMED).map((c) => `${c.name}: ${describeLabels(c.labels)}`).join('; ');
  return clusters.length > NAMED ? `${shown}; and ${clusters.length - NAMED} more` : shown;
}

/**
 * What a FleetRollout cannot do with the clusters registered now, refused when it is applied: a
 * selector that selects nothing, two waves selecting the same cluster, a wave left with none.
 */
export function placementIssues(spec: FleetSpec, registered: readonly ClusterInfo[]): FieldIssue[] {
  const clusters = fleetClusters(spec, registered);
  if (clusters.length === 0) {
    const what = registered.length === 0 ? 'no cluster is registered (PUT /v1/clusters/<name> first)' : `none of the ${registered.length} registered clusters matches (${listed(registered)})`;
    return [{ path: 'spec.clusterSelector', reason: `selects no cluster (${describeSelector(spec.clusterSelector)}): ${what}` }];
  }
  const issues: FieldIssue[] = [];
  const reported = new Set<number>();
  spec.waves.forEach((wave, i) => {
    const pick = wave.pick;
    if (pick.type !== 'selector') return;
    const mine = clusters.filter((c) => selects(pick.selector, c.labels));
    if (mine.length === 0) {
      reported.add(i);
      issues.push({ path: `spec.waves[${i}].selector`, reason: `selects none of the fleet's ${clusters.length} clusters (${describeSelector(pick.selector)}; the fleet has ${listed(clusters)})` });
      return;
    }
    for (let j = 0; j < i; j += 1) {
      const earlier = spec.waves[j]?.pick;
      if (earlier?.type !== 'selector') continue;
      const both = mine.find((c) => selects(earlier.selector, c.labels));
      if (both) {
        reported.add(i);
        issues.push({ path: `spec.waves[${i}].selector`, reason: `also selects cluster ${both.name}, which spec.waves[${j}] ("${spec.waves[j]?.name}") selects: a cluster belongs to one wave; make the selectors exclusive` });
        return;
      }
    }
  });
  assignWaves(spec, clusters).forEach((a, i) => {
    if (a.members.length === 0 && !reported.has(i)) {
      issues.push({ path: `spec.waves[${i}]`, reason: `would get no cluster: the waves before it take all ${clusters.length} of the fleet's clusters` });
    }
  });
  return issues;
}
