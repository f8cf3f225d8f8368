// A pure, in-memory StatefulSet seen pod by pod, used ONLY by planner unit tests of pod hooks,
// gates and per-pod timeouts: pods web-0…web-(N−1), a partition the planner's distribute lowers,
// and a controller that replaces the highest old ordinal at or above the partition one at a time
// (maxUnavailable 1) when `settle` runs. Calls are answered by a scripted `answer` function, and the
// loop around plan is the reconcile's: plan → markStarted → calls → recordResults. Integration
// tests use the real control plane instead.
import type { Invocation, InvocationResult } from '../../../shared/rollout/checkTypes.ts';
import { plan } from '../../../shared/rollout/plan.ts';
import { markStarted, recordResults } from '../../../shared/rollout/results.ts';
import { initialState } from '../../../shared/rollout/state.ts';
import type { Action, PlanResult, PodView, ReleaseState, RolloutEvent, RolloutSpec, WorkloadView } from '../../../shared/rollout/types.ts';

export interface SimPod { name: string; ordinal: number; revision: string; ready: boolean; since: string; gone: boolean }

export class PodSetSim {
  template = 'v1';
  partition: number;
  pods: SimPod[];
  /** Pods of these revisions never become Ready. */
  readonly neverReady = new Set<string>();
  held = true;

  /**
   * How the apiserver writes a pod's times (`since`): milliseconds by default; a real
   * creationTimestamp has whole seconds (`wholeSeconds`).
   */
  constructor(readonly replicas: number, now: Date, readonly stamp: (at: Date) => string = (at) => at.toISOString()) {
    this.partition = replicas;
    this.pods = Array.from({ length: replicas }, (_, i) => ({ name: `web-${i}`, ordinal: i, revision: 'v1', ready: true, since: stamp(now), gone: false }));
  }

  view(): WorkloadView {
    const live = this.pods.filter((p) => !p.gone);
    const ids = [...new Set([this.template, ...live.map((p) => p.revision)])];
    const stable = ids.find((id) => id !== this.template);
    const revisions = ids.map((id, i) => {
      const mine = live.filter((p) => p.revision === id);
      // Like the controller: the update revision from the partition up, the current one below it.
      const desired = stable === undefined ? this.replicas : id === this.template ? this.replicas - this.partition : id === stable ? this.partition : 0;
      return { id, number: ids.length - i, images: { app: id }, desired, current: mine.length, ready: mine.filter((p) => p.ready).length, available: mine.filter((p) => p.ready).length };
    });
    const pods: PodView[] = live.map((p) => ({ name: p.name, revision: p.revision, ready: p.ready, phase: p.ready ? 'Running' : 'Pending', condition: p.ready ? null : 'Ready False (ContainersNotReady: containers with unready status: [app])', since: p.since, containers: ['app'] }));
    return {
      kind: 'StatefulSet', exists: true, replicas: this.replicas, templateRevision: this.template, revisions, held: this.held, observed: true,
      nativeComplete: live.length === this.replicas && live.every((p) => p.revision === this.template && p.ready),
      maxSurge: 0, maxUnavailable: 1, problems: [], strategy: null, nextAvailableAt: null,
      toReplace: live.filter((p) => p.revision !== this.template).sort((a, b) => b.ordinal - a.ordinal).map((p) => p.name),
      blocked: null, pods,
    };
  }

  apply(actions: Action[]): void {
    for (const a of actions) {
      if (a.type === 'hold') {
        this.held = true;
        this.partition = this.replicas;
      }
      if (a.type === 'release-hold') this.held = false;
      if (a.type === 'restore-template') this.template = a.revision;
      if (a.type === 'distribute' && a.target === this.template) {
        // Never backwards within a release, as the partition drivers do.
        this.partition = Math.min(this.partition, this.replicas - (a.distribution[a.target] ?? 0));
      }
    }
    if (!this.held) this.partition = 0;
  }

  /** One controller step: a replaced pod comes back (Ready unless never-ready), or the next old one at or above the partition goes. */
  settle(now: Date): void {
    const back = this.pods.find((p) => p.gone);
    if (back) {
      Object.assign(back, { gone: false, revision: this.template, ready: !this.neverReady.has(this.template), since: this.stamp(now) });
      return;
    }
    if (this.pods.some((p) => !p.ready)) return; // maxUnavailable 1
    const next = this.pods.filter((p) => p.ordinal >= this.partition && p.revision !== this.template).sort((a, b) => b.ordinal - a.ordinal)[0];
    if (next) next.gone = true;
  }
}

/** The reconcile loop around the pure planner, over the PodSetSim. */
export class HookLoop {
  state: ReleaseState = initialState();
  now = new Date('2026-11-30T10:00:00.000Z');
  readonly sim: PodSetSim;
  readonly calls: Invocation[] = [];
  readonly events: RolloutEvent[] = [];
  lastPlan: PlanResult | null = null;

  constructor(
    public spec: RolloutSpec, replicas: number, public answer: (call: Invocation, now: Date) => InvocationResult | null,
    opts: { start?: Date; stamp?: (at: Date) => string } = {},
  ) {
    if (opts.start) this.now = opts.start;
    this.sim = new PodSetSim(replicas, this.now, opts.stamp);
  }

  /** One pass. `crashAfterCalls`: the calls are made, and the process dies before their outcome is recorded. */
  pass(opts: { crashAfterCalls?: boolean; crashBeforeCalls?: boolean } = {}): PlanResult {
    const planned = plan(this.spec, this.state, this.sim.view(), this.now);
    this.lastPlan = planned;
    this.events.push(...planned.events);
    this.sim.apply(planned.actions);
    this.state = planned.nextState;
    if (planned.invocations.length > 0) {
      this.state = markStarted(this.state, planned.invocations, this.now);
      if (opts.crashBeforeCalls) return planned;
      const results = planned.invocations.map((c) => {
        this.calls.push(c);
        return this.answer(c, this.now);
      }).filter((r): r is InvocationResult => r !== null);
      if (opts.crashAfterCalls) return planned;
      const recorded = recordResults(this.spec, this.state, results, this.now);
      this.state = recorded.state;
      this.events.push(...recorded.events);
    }
    return planned;
  }

  /** Passes with the controller settling in between, `seconds` apart, until `done` or the bound. */
  run(done: (l: HookLoop) => boolean, opts: { seconds?: number; maxPasses?: number; settle?: boolean } = {}): void {
    for (let i = 0; i < (opts.maxPasses ?? 200); i += 1) {
      if (done(this)) return;
      this.pass();
      if (opts.settle ?? true) this.sim.settle(this.now);
      this.now = new Date(this.now.getTime() + (opts.seconds ?? 5) * 1000);
    }
    if (!done(this)) throw new Error(`not done after ${opts.maxPasses ?? 200} passes: ${JSON.stringify(this.state.release ?? this.state.phase)} ${this.state.message}`);
  }

  hookCalls(phase?: string): string[] {
    return this.calls.filter((c) => c.type === 'run-hook' && (phase === undefined || c.phase === phase)).map((c) => (c.type === 'run-hook' ? `${c.phase} ${c.pod} #${c.attempt}` : ''));
  }
}

/** A Kubernetes creationTimestamp: RFC 3339 with whole seconds (the fraction is dropped). */
export function wholeSeconds(at: Date): string {
  return `${at.toISOString().slice(0, 19)}Z`;
}

/** Answers every hook call with success and every gate check with `pass`. */
export function succeedAll(call: Invocation, now: Date): InvocationResult {
  if (call.type === 'run-hook') return { type: 'run-hook', phase: call.phase, pod: call.pod, attempt: call.attempt, outcome: { result: 'succeeded', output: 'ok' }, at: now.toISOString() };
  return { type: 'check-gate', gate: call.gate.name, stepIndex: call.context.step - 1, measurement: { result: 'pass', value: '0.01' }, at: now.toISOString() };
}
