// A fleet pass's reads and writes of its members: each member's STATE as its own reconcile stored it
// (what planFleet reads), and the member Rollouts' SPECs as the fleet wants them (written when they
// differ, each member enqueued), and members no longer wanted asked to go (a delete command: the
// member hands its workload back as any deleted Rollout does).
import { isDeepStrictEqual } from 'node:util';
import pMap from 'p-map';
import { ConflictError } from '../../errors.ts';
import { mayDropMember } from '../../fleet/leave.ts';
import { memberKey } from '../../fleet/member.ts';
import type { FleetSpec, MemberObservation } from '../../fleet/types.ts';
import type { LoadedRollout } from '../../ports.ts';
import type { RolloutKey, RolloutSpec } from '../../rollout/types.ts';
import type { ReconcileDeps } from '../deps.ts';

/** Member loads in flight at once (one Query each). */
const LOAD_CONCURRENCY = 8;

export interface FleetMembers {
  /** Per cluster: the member as stored (SPEC null when it has none). */
  loaded: Map<string, LoadedRollout>;
  observations: MemberObservation[];
}

/** Every member the fleet has or should have: the clusters it selects or planned, and those stored under its name. */
export async function loadMembers(deps: ReconcileDeps, spec: FleetSpec, clusters: readonly string[]): Promise<FleetMembers> {
  const stored = (await deps.store.listRollouts({ namespace: spec.workload.namespace })).filter((k) => k.name === spec.name).map((k) => k.cluster);
  const names = [...new Set([...clusters, ...stored])].sort();
  const loaded = new Map<string, LoadedRollout>();
  await pMap(names, async (cluster) => loaded.set(cluster, await deps.store.load(memberKey(spec, cluster))), { concurrency: LOAD_CONCURRENCY });
  const observations = names.map((cluster) => {
    const m = loaded.get(cluster) as LoadedRollout;
    // A member of this fleet only: a Rollout of the same name that is not the fleet's is not observed as one.
    const ours = m.spec?.spec.fleet?.name === spec.name;
    return { cluster, state: ours && m.state.version > 0 ? m.state.state : null };
  });
  return { loaded, observations };
}

export interface MemberWrites {
  /** Members created or changed. */
  written: RolloutKey[];
  /** Members asked to go (no longer selected, or their cluster deregistered). */
  removed: RolloutKey[];
  /** Members the fleet could not write, with why (another Rollout manages the workload there). */
  refused: { member: RolloutKey; reason: string }[];
}

/** The document `rollouts get` shows for a member: it names the fleet that owns it. */
export function memberDocument(fleet: string, spec: RolloutSpec): Record<string, unknown> {
  return {
    apiVersion: spec.apiVersion,
    kind: 'Rollout',
    metadata: { name: spec.name, namespace: spec.namespace },
    ownedBy: { kind: 'FleetRollout', name: fleet },
  };
}

/** Writes each wanted member whose SPEC differs; asks each member of this fleet that is not wanted to go. */
export async function writeMembers(deps: ReconcileDeps, spec: FleetSpec, wanted: readonly RolloutSpec[], members: FleetMembers): Promise<MemberWrites> {
  const out: MemberWrites = { written: [], removed: [], refused: [] };
  const wantedClusters = new Set(wanted.map((w) => w.cluster));
  for (const want of wanted) {
    const current = members.loaded.get(want.cluster) ?? null;
    const key = memberKey(spec, want.cluster);
    if (current?.spec && current.spec.spec.fleet?.name !== spec.name) {
      out.refused.push({ member: key, reason: `a Rollout ${key.namespace}/${key.name} not owned by this fleet exists in cluster ${key.cluster}` });
      continue;
    }
    if (current?.spec && sameJson(current.spec.spec, want)) continue;
    try {
      await deps.store.putSpec(key, want, memberDocument(spec.name, want), current?.spec?.specVersion ?? 0);
    } catch (err) {
      // Another Rollout manages the workload (WorkloadClaimedError), or a concurrent pass wrote first: the next pass sees it.
      if (err instanceof ConflictError) {
        out.refused.push({ member: key, reason: err.message });
        continue;
      }
      throw err;
    }
    out.written.push(key);
    await deps.queue?.enqueue(key, { reason: 'fleet' });
  }
  for (const [cluster, m] of members.loaded) {
    if (wantedClusters.has(cluster) || m.spec?.spec.fleet?.name !== spec.name) continue;
    // Mid-release under a permit: it finishes first, and its end brings the fleet back here (shared/fleet/leave.ts).
    if (!mayDropMember(m.state.version > 0 ? m.state.state : null)) continue;
    const key = memberKey(spec, cluster);
    const id = `fleet-${spec.name}-leave-${m.spec.specVersion}`;
    await deps.store.recordCommand(key, { type: 'delete', id, at: deps.clock.now().toISOString(), by: `fleet:${spec.name}` });
    out.removed.push(key);
    await deps.queue?.enqueue(key, { reason: 'fleet' });
  }
  return out;
}

function sameJson(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b)));
}
