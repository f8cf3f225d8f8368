// A fleet over simulated clusters, used ONLY by unit tests of the fleet core: each member is a real
// plan() over a WorkloadSim (test/support/sim/scenario.ts), the fleet is planFleet, and commands go
// from the fleet to its members the way the pipeline records them (a duplicate id is dropped). A
// cluster can be made unreachable (its member records so, as shared/reconcile/unreachable.ts does),
// registered or deregistered. Integration tests run the real pipeline instead.
import { parseFleetRollout } from '../../../shared/fleet/parse.ts';
import { planFleet } from '../../../shared/fleet/plan.ts';
import { initialFleetState } from '../../../shared/fleet/state.ts';
import type { ClusterInfo } from '../../../shared/fleet/clusters.ts';
import type { FleetCommand, FleetCommandBody, FleetInvocationResult, FleetPlanResult, FleetSpec, FleetState } from '../../../shared/fleet/types.ts';
import { recordFleetResults } from '../../../shared/fleet/results.ts';
import { unreachableReason } from '../../../shared/rollout/message.ts';
import type { Command, CommandBody, RolloutSpec } from '../../../shared/rollout/types.ts';
import { Driver } from './scenario.ts';
import { WorkloadSim } from './workloadSim.ts';

export const T0 = '2026-11-30T10:00:00.000Z';

export interface FleetDoc {
  waves?: unknown[];
  selector?: unknown;
  template?: Record<string, unknown>;
  spec?: Record<string, unknown>;
}

/** A valid FleetRollout for the workload default/web, changed by `opts`. */
export function fleetDocument(name = 'web', opts: FleetDoc = {}): Record<string, unknown> {
  return {
    apiVersion: 'rollouts.serverless-rollouts.io/v1alpha1',
    kind: 'FleetRollout',
    metadata: { name },
    spec: {
      workload: { namespace: 'default', kind: 'Deployment', name: 'web' },
      clusterSelector: opts.selector ?? { matchLabels: { env: 'prod' } },
      template: { spec: { deploymentStrategy: 'Partition', strategy: { canary: { steps: [{ replicas: '50%', pause: { duration: 0 } }, { replicas: '100%' }] } }, ...opts.template } },
      waves: opts.waves ?? [{ name: 'canary', selector: { matchLabels: { ring: 'canary' } }, after: { approval: true } }, { name: 'rest' }],
      ...opts.spec,
    },
  };
}

export function cluster(name: string, labels: Record<string, string> = {}, timeZone: string | null = null): ClusterInfo {
  return { name, labels: { env: 'prod', ...labels }, timeZone };
}

let seq = 0;
export function fleetCommand(body: FleetCommandBody, by = 'alice'): FleetCommand {
  return { ...body, id: `fc${++seq}`, at: T0, by } as FleetCommand;
}

export class FleetSim {
  now = new Date(T0);
  state: FleetState = initialFleetState();
  readonly members = new Map<string, Driver>();
  readonly down = new Set<string>();
  readonly results: FleetPlanResult[] = [];
  /** Every command the fleet sent, in order, with the fleet state it was sent from. */
  readonly sent: { command: Command; cluster: string; state: FleetState }[] = [];

  constructor(public spec: FleetSpec, public clusters: ClusterInfo[], readonly replicas = 4) {
    for (const c of clusters) this.addMember(c);
    this.members.forEach((m) => m.settle());
  }

  static of(doc: Record<string, unknown>, clusters: ClusterInfo[], replicas = 4): FleetSim {
    return new FleetSim(parseFleetRollout(doc), clusters, replicas);
  }

  private addMember(c: ClusterInfo, spec?: RolloutSpec): Driver {
    const d = new Driver(new WorkloadSim(this.replicas), spec ?? this.memberSpecOf(c));
    d.now = this.now;
    this.members.set(c.name, d);
    return d;
  }

  private memberSpecOf(c: ClusterInfo): RolloutSpec {
    const r = planFleet(this.spec, this.state, [], this.clusters, this.now, []);
    const spec = r.members.find((m) => m.cluster === c.name);
    if (!spec) throw new Error(`cluster ${c.name} is not selected by the fleet`);
    return spec;
  }

  member(name: string): Driver {
    const d = this.members.get(name);
    if (!d) throw new Error(`no member ${name}`);
    return d;
  }

  /** One fleet pass: plan, deliver the member commands, apply the member specs it wants. */
  fleetStep(commands: FleetCommand[] = []): FleetPlanResult {
    this.state = { ...this.state, commands: [...this.state.commands, ...commands] };
    const observations = [...this.members.entries()].map(([cluster, d]) => ({ cluster, state: d.state }));
    const r = planFleet(this.spec, this.state, observations, this.clusters, this.now);
    this.results.push(r);
    for (const spec of r.members) {
      const existing = this.members.get(spec.cluster);
      if (existing) existing.spec = spec;
      else this.addMember(this.clusters.find((c) => c.name === spec.cluster) as ClusterInfo, spec).settle();
    }
    for (const { member, command } of r.memberCommands) {
      this.sent.push({ command, cluster: member.cluster, state: this.state });
      const d = this.members.get(member.cluster);
      if (!d || d.state.commands.some((c) => c.id === command.id) || d.state.appliedCommandIds.includes(command.id)) continue;
      d.state = { ...d.state, commands: [...d.state.commands, command] };
    }
    this.state = r.nextState;
    return r;
  }

  /** One pass of each member (an unreachable one records that it is), then its pods catch up. */
  membersStep(): void {
    for (const [name, d] of this.members) {
      d.now = this.now;
      if (this.down.has(name)) {
        const why = unreachableReason(d.spec, d.state.cause, 'connect ECONNREFUSED 10.0.0.1:443', this.now);
        d.state = { ...d.state, message: why.message, cause: why.cause };
        continue;
      }
      if (!this.clusters.some((c) => c.name === name)) continue;
      d.step();
      d.sim.settle();
    }
  }

  /** Fleet and members until nothing changes (bounded). */
  settle(commands: FleetCommand[] = [], maxRounds = 40): FleetPlanResult {
    this.fleetStep(commands);
    for (let i = 0; i < maxRounds; i += 1) {
      const before = JSON.stringify([this.state, [...this.members.values()].map((m) => [m.state, m.sim.view()])]);
      this.membersStep();
      const r = this.fleetStep();
      if (JSON.stringify([this.state, [...this.members.values()].map((m) => [m.state, m.sim.view()])]) === before) return r;
    }
    throw new Error(`fleet did not settle in ${maxRounds} rounds: ${this.state.message}`);
  }

  advance(seconds: number): void {
    this.now = new Date(this.now.getTime() + seconds * 1000);
  }

  /** Send a member command as a person would (`rollouts approve` on one cluster). */
  memberCommand(cluster: string, body: CommandBody, id = `m${++seq}`): void {
    const d = this.member(cluster);
    d.state = { ...d.state, commands: [...d.state.commands, { ...body, id, at: T0, by: 'bob' } as Command] };
  }

  /** A GitOps sync: the same new image in every reachable member cluster at once. */
  syncImage(image: string, clusters = [...this.members.keys()]): void {
    for (const c of clusters) this.member(c).sim.setImage(image);
  }

  recordGate(results: Omit<FleetInvocationResult, 'at' | 'type'>[]): void {
    this.state = recordFleetResults(this.spec, this.state, results.map((r) => ({ ...r, type: 'check-gate' as const, at: this.now.toISOString() })), this.now).state;
  }

  events(): string[] {
    return this.results.flatMap((r) => r.events.map((e) => e.type));
  }

  /** Pods on `revision` in each member cluster. */
  counts(revision: string): Record<string, number> {
    return Object.fromEntries([...this.members].map(([name, d]) => [name, d.sim.count(revision)]));
  }

  statuses(): Record<string, string> {
    const rel = this.state.release ?? this.state.lastRelease;
    return Object.fromEntries((rel?.waves ?? []).flatMap((w) => w.members.map((m) => [m.cluster, m.status])));
  }
}
