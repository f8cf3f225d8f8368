// The mutable working copy one `planFleet` call builds up: the next state, the member commands, the
// gate calls, the events and the wake-ups, with what the pass read (members, clusters, now).
import type { CommandBody } from '../rollout/types.ts';
import type { ClusterInfo } from './clusters.ts';
import { fleetEvent, type FleetEventType } from './events.ts';
import { MISSING_MEMBER, memberKey, viewMember, type MemberView } from './member.ts';
import type { FleetEvent, FleetInvocation, MemberBlocker, FleetRelease, FleetSpec, FleetState, MemberCommand, MemberObservation } from './types.ts';

export class FleetDraft {
  readonly state: FleetState;
  readonly memberCommands: MemberCommand[] = [];
  readonly invocations: FleetInvocation[] = [];
  readonly events: FleetEvent[] = [];
  private readonly wakeTimes: number[] = [];
  private readonly observed: Map<string, MemberObservation>;
  /** The command being applied: the events it causes carry its id. */
  commandId: string | null = null;
  /** Why members whose turn came did not start this pass (waves.ts); the fleet's reason names the first. */
  readonly blockers = new Map<string, MemberBlocker>();

  constructor(
    readonly spec: FleetSpec,
    state: FleetState,
    members: readonly MemberObservation[],
    readonly clusters: readonly ClusterInfo[],
    readonly now: Date,
  ) {
    this.state = structuredClone(state);
    this.observed = new Map(members.map((m) => [m.cluster, m]));
  }

  get release(): FleetRelease | null {
    return this.state.release;
  }

  /** A member's STATE read for the running fleet release (MISSING_MEMBER when it has none). */
  member(cluster: string): MemberView {
    const o = this.observed.get(cluster);
    return o ? viewMember(o.state, this.state.release?.ref ?? null) : MISSING_MEMBER;
  }

  cluster(name: string): ClusterInfo | undefined {
    return this.clusters.find((c) => c.name === name);
  }

  emit(type: FleetEventType, message: string, opts: { wave?: string | null; cluster?: string | null; by?: string | null } = {}): void {
    const rel = this.state.release ?? this.state.lastRelease;
    const by = opts.by ?? null;
    this.events.push(fleetEvent(this.spec.name, type, {
      releaseId: rel?.id ?? null, phase: this.state.phase, wave: opts.wave ?? null, cluster: opts.cluster ?? null, message, at: this.now, by,
      commandId: by === null ? null : this.commandId,
    }));
  }

  /** A command for the member in `cluster`; `id` is deterministic, so a retried pass sends the same one. */
  send(cluster: string, body: CommandBody, id: string, by: string): void {
    this.memberCommands.push({ member: memberKey(this.spec, cluster), command: { ...body, id, at: this.now.toISOString(), by } });
  }

  wakeAt(at: Date | number): void {
    const t = typeof at === 'number' ? at : at.getTime();
    if (t > this.now.getTime()) this.wakeTimes.push(t);
  }

  earliestWake(): string | null {
    return this.wakeTimes.length === 0 ? null : new Date(Math.min(...this.wakeTimes)).toISOString();
  }

  /** Who the fleet's member commands come from: the fleet release's requester, else the fleet itself. */
  get principal(): string {
    return this.state.release?.requestedBy ?? `fleet/${this.spec.name}`;
  }
}
