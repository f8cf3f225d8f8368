// Approval gates of the invariant watchers (bench/testbed/invariants.ts for Deployments,
// bench/testbed/soak/setWatcher.ts for StatefulSets): per image, the step the approvals reached
// (its replicas, resolved against the workload's N like the product's batch: shared/rollout/arithmetic.ts
// batchTarget), and what the user's scaling adds to it natively:
//  - 'proportional' (a Deployment the native controller moves, the MinReadySeconds strategy): a scale
//    gives the new ReplicaSet its proportional share (bench/testbed/proportionalScale.ts), worked out
//    by the watcher from the ReplicaSets at the scale, the image's own counted at most at its gate;
//  - 'strict' (the Partition strategy: Recreate, the native controller does not spread a scale): the
//    batch at the live N;
//  - 'aboveScaleUp' (a StatefulSet): a scale-up creates its pods at the highest ordinals, above the
//    partition, on the update revision (the StatefulSet controller's rule): the batch plus what the
//    replicas grew since their fewest while the gate held.
// A gate is judged when pods of its image are added (a ReplicaSet asking for more, a pod created):
// what a scale-down leaves for the controllers to take away was not added by anyone.
// A command's gates change only when the API accepts it: begin() keeps the gates as they were, the
// new ones are set before the command is sent (its pods may appear before the answer), and end()
// puts the old ones back if it was refused, reporting what broke them meanwhile.
import { batchTarget } from '../../shared/rollout/arithmetic.ts';
import type { IntOrPercent, WorkloadKind } from '../../shared/rollout/types.ts';

export type CapModel = 'proportional' | 'strict' | 'aboveScaleUp';

interface Gate {
  /** The approved step's replicas. */
  step: IntOrPercent;
  /** proportional: the pods the controller's shares gave the image so far (starts at the batch). */
  share?: number;
  /** aboveScaleUp: the fewest replicas since the gate was set. */
  fewest?: number;
}

/** Why a gate held what it held, for the coverage counts. */
export type GateRule = 'batch' | 'proportionalShare' | 'scaleUpAbovePartition';

export class ApprovalCaps {
  private gates = new Map<string, Gate>();
  /** The gates before a command in flight, and the breaches of them seen meanwhile. */
  private inFlight: { before: Map<string, Gate>; breaches: string[] } | null = null;

  constructor(private readonly kind: WorkloadKind, private readonly model: CapModel) {}

  /** From now on at most `step`'s batch of `image` (null: no gate), at `replicas` now. */
  set(image: string, step: IntOrPercent | null, replicas: number): void {
    if (step === null) {
      this.gates.delete(image);
      return;
    }
    const gate: Gate = { step };
    // What the controller's shares gave the image so far stays its (an approval only adds).
    if (this.model === 'proportional') gate.share = Math.max(batchTarget(this.kind, step, replicas), this.gates.get(image)?.share ?? 0);
    if (this.model === 'aboveScaleUp') gate.fewest = replicas;
    this.gates.set(image, gate);
  }

  /** Every gate off (an accepted undo may bring back any earlier image). */
  clear(): void {
    this.gates.clear();
  }

  images(): string[] {
    return [...new Set([...this.gates.keys(), ...(this.inFlight?.before.keys() ?? [])])];
  }

  /** A command is about to be sent: the gates now are what holds if it is refused. */
  begin(): void {
    this.inFlight = { before: new Map([...this.gates].map(([k, g]) => [k, { ...g }])), breaches: [] };
  }

  /** Its answer: refused ⇒ the gates before it again, and the breaches of them are returned. */
  end(accepted: boolean): string[] {
    const flight = this.inFlight;
    this.inFlight = null;
    if (!flight || accepted) return [];
    this.gates = flight.before;
    return flight.breaches;
  }

  /**
   * `count` pods of `image` were just added: a breach of the gates now, or (a command in flight)
   * of the gates before it, kept until its answer. `what` describes it.
   */
  judge(image: string, count: number, replicas: number, what: (cap: number) => string): string | null {
    const cap = this.of(image, replicas);
    if (cap !== undefined && count > cap) return what(cap);
    if (this.inFlight) {
      const before = capOf(this.inFlight.before.get(image), this.kind, this.model, replicas);
      if (before !== undefined && count > before) this.inFlight.breaches.push(`${what(before)} (while a command was in flight that the API then refused)`);
    }
    return null;
  }

  /**
   * The workload's replicas changed from `from` to `to`. `shareOf(image, podsNow)` is the size the
   * controller gives the image's ReplicaSet counted at `podsNow` (proportional model).
   */
  scaled(from: number, to: number, shareOf: (image: string, podsNow: number) => number | undefined): void {
    if (!Number.isFinite(to) || from === to) return;
    for (const gates of [this.gates, this.inFlight?.before]) {
      for (const [image, gate] of gates ?? []) {
        if (gate.fewest !== undefined) gate.fewest = Math.min(gate.fewest, to);
        if (gate.share !== undefined) {
          const now = Math.max(batchTarget(this.kind, gate.step, from), gate.share);
          gate.share = shareOf(image, now) ?? now;
        }
      }
    }
  }

  /** The gate of `image` at `replicas` now. */
  of(image: string, replicas: number): number | undefined {
    return capOf(this.gates.get(image), this.kind, this.model, replicas);
  }

  /** Which rule gives the gate of `image` its size now (the batch itself, or what scaling added). */
  ruleOf(image: string, replicas: number): GateRule | undefined {
    const gate = this.gates.get(image);
    if (!gate) return undefined;
    const batch = batchTarget(this.kind, gate.step, replicas);
    if ((capOf(gate, this.kind, this.model, replicas) as number) <= batch) return 'batch';
    return this.model === 'proportional' ? 'proportionalShare' : 'scaleUpAbovePartition';
  }
}

function capOf(gate: Gate | undefined, kind: WorkloadKind, model: CapModel, replicas: number): number | undefined {
  if (!gate) return undefined;
  const batch = batchTarget(kind, gate.step, replicas);
  if (model === 'proportional') return Math.max(batch, gate.share ?? 0);
  if (model === 'aboveScaleUp') return batch + Math.max(0, replicas - (gate.fewest ?? replicas));
  return batch;
}

/**
 * A watcher that holds approval gates: the test (or the soak's driver) sets them and brackets each
 * command; the watcher judges each pod added against them and keeps what broke them.
 */
export abstract class GatedWatcher {
  readonly violations: string[] = [];
  protected abstract readonly caps: ApprovalCaps;
  /** The workload's replicas now, the N a gate's step resolves against. */
  protected abstract replicas(): number;

  /**
   * An approval gate: from now on no pod of `image` is added beyond `max` (plus what the user's
   * scaling gives it natively). Raise it before sending the approval that allows more; Infinity lifts it.
   */
  capPods(image: string, max: number): void {
    this.capStep(image, Number.isFinite(max) ? max : null);
  }

  /** A gate at a step's replicas (resolved against the live N like the product's batch); null: none. */
  capStep(image: string, replicas: IntOrPercent | null): void {
    this.caps.set(image, replicas, this.replicas());
  }

  /** A command is about to be sent: the gates now hold again if the API refuses it. */
  beginCommand(): void {
    this.caps.begin();
  }

  /** The command's answer. */
  endCommand(accepted: boolean): void {
    this.violations.push(...this.caps.end(accepted));
  }

  /** Drops every gate (an accepted undo may bring back any earlier image). */
  clearCaps(): void {
    this.caps.clear();
  }

  /** Throws with every recorded breach. */
  assertClean(): void {
    if (this.violations.length > 0) throw new Error(`invariants broken:\n  ${this.violations.join('\n  ')}`);
  }
}
