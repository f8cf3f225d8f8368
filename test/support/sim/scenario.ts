// Helpers to drive plan() against the WorkloadSim in unit tests.
import { plan } from '../../../shared/rollout/plan.ts';
import { initialState } from '../../../shared/rollout/state.ts';
import type { Command, CommandBody, PlanResult, ReleaseState, RolloutSpec, Step, WorkloadView } from '../../../shared/rollout/types.ts';
import { WorkloadSim } from './workloadSim.ts';

export function rolloutSpec(overrides: Partial<RolloutSpec> = {}): RolloutSpec {
  return {
    apiVersion: 'rollouts.serverless-rollouts.io/v1alpha1', cluster: 'local', namespace: 'default', name: 'web',
    workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
    paused: false,
    steps: steps('1', '50%', '100%'),
    failureThreshold: null, progressDeadlineSeconds: null, rollbackOnFailure: false, windows: [], startAt: null,
    // The simulator moves pods like the Partition driver (nextMoves).
    deploymentStrategy: 'Partition',
    onDeletePolicy: null,
    ...overrides,
  };
}

/** "1", "50%" → approval pauses (Kruise default), the literal last "100%" never pauses; "50%:30s", "1:none" too. */
export function steps(...items: string[]): Step[] {
  return items.map((item, i) => {
    const [r, p] = item.split(':') as [string, string | undefined];
    const replicas = (r.endsWith('%') ? r : Number(r)) as Step['replicas'];
    const last = i === items.length - 1 && r === '100%';
    const pause: Step['pause'] =
      p === undefined ? (last ? { type: 'none' } : { type: 'approval' }) : p === 'none' ? { type: 'none' } : p === 'approval' ? { type: 'approval' } : { type: 'timed', seconds: Number(p.replace('s', '')) };
    return { replicas, pause };
  });
}

let commandSeq = 0;
export function command(body: CommandBody, id = `c${++commandSeq}`): Command {
  return { ...body, id, at: '2026-11-29T10:00:00.000Z', by: 'tester' } as Command;
}

export class Driver {
  state: ReleaseState = initialState();
  now = new Date('2026-11-30T10:00:00.000Z');
  readonly results: PlanResult[] = [];
  /** The observation the last plan was computed from. */
  lastView: WorkloadView | null = null;

  constructor(readonly sim: WorkloadSim, public spec: RolloutSpec) {}

  /** One reconcile: plan, apply actions to the simulated cluster. */
  step(commands: Command[] = []): PlanResult {
    this.state = { ...this.state, commands: [...this.state.commands, ...commands] };
    this.lastView = this.sim.view();
    const result = plan(this.spec, this.state, this.lastView, this.now);
    this.sim.apply(result.actions);
    this.state = result.nextState;
    this.results.push(result);
    return result;
  }

  /** Reconcile and let pods settle until nothing changes any more (bounded). */
  settle(commands: Command[] = [], maxPasses = 60): PlanResult {
    this.step(commands);
    for (let i = 0; i < maxPasses; i += 1) {
      this.sim.settle();
      const before = JSON.stringify([this.state, this.sim.view()]);
      const result = this.step();
      if (JSON.stringify([this.state, this.sim.view()]) === before && result.events.length === 0) return result;
    }
    throw new Error(`did not settle in ${maxPasses} passes: ${JSON.stringify(this.state)}`);
  }

  advance(seconds: number): void {
    this.now = new Date(this.now.getTime() + seconds * 1000);
  }

  eventTypes(): string[] {
    return this.results.flatMap((r) => r.events.map((e) => e.type));
  }
}

export function setup(replicas = 10, spec = rolloutSpec()): Driver {
  const d = new Driver(new WorkloadSim(replicas), spec);
  d.settle();
  return d;
}
