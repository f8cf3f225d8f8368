// A step's gates: once its batch is ready, each gate is checked every `interval` (the first after
// `initialDelay`) until it has `count` successful checks; more than `failureLimit` failed checks, or
// more than `consecutiveErrorLimit` checks in a row that could not be made, fail the release. An
// inconclusive check (no data) counts for nothing: the step waits and says so. These are Argo's
// AnalysisRun semantics (count, interval, failureLimit, consecutiveErrorLimit) with one difference:
// Argo's `count` is the number of measurements, ours the number of successful ones, so a gate
// never passes on fewer good checks than it asks for (Flagger likewise needs every check to pass).
// The planner only decides which checks are due (Invocations) and reads their recorded outcome
// (results.ts); the calls themselves are made by the reconcile (shared/adapters/checks).
import type { CallContext, Gate, GateMeasurement, GateRun } from './checkTypes.ts';
import type { Draft } from './draft.ts';
import { EVENT } from './events.ts';
import { failRelease } from './failure.ts';
import type { Release, Step } from './types.ts';

export function gatesOf(step: Step | undefined): Gate[] {
  return step?.gates ?? [];
}

/** The batch is ready: its gates start from nothing. */
export function startAnalysis(d: Draft, rel: Release, gates: Gate[]): void {
  rel.stepState = 'Analyzing';
  rel.gates = freshGateRuns(gates);
  d.emit(EVENT.AnalysisStarted, `step ${rel.stepIndex + 1}: checking ${gates.map((g) => g.name).join(', ')}`);
}

/**
 * Where the analysis stands: 'passed' when every gate has passed, 'failed' when one failed (the
 * release has been failed, or is rolling back), 'waiting' otherwise, with the due checks emitted.
 */
export function analyze(d: Draft, rel: Release, gates: Gate[]): 'passed' | 'failed' | 'waiting' {
  const runs = rel.gates ?? [];
  const failed = runs.find((r) => r.status === 'Failed');
  if (failed) {
    const gate = gates.find((g) => g.name === failed.name);
    failRelease(d, rel, `gate ${failed.name} failed at step ${rel.stepIndex + 1}: ${failureText(failed, gate)}`, {
      kind: 'Gate', object: `gate/${failed.name}`, field: null, detail: failed.lastValue ?? '', since: failed.lastAt, until: null,
    });
    return 'failed';
  }
  let waiting = false;
  for (const gate of gates) {
    const run = runs.find((r) => r.name === gate.name);
    if (!run || run.status === 'Passed') continue;
    waiting = true;
    const due = gateDueAt(rel.stepReadyAt ?? rel.stepStartedAt, gate, run);
    if (d.now.getTime() >= due) {
      d.invocations.push({ type: 'check-gate', gate, context: callContext(d, rel) });
    } else {
      // The persisted wake-up covers a lost requeue; the requeue keeps short intervals short.
      d.wakeAt(new Date(due));
      d.requeueAt(new Date(due));
    }
  }
  return waiting ? 'waiting' : 'passed';
}

/** When a gate's next check is due: `interval` after the last one, the first `initialDelay` after its analysis began. */
export function gateDueAt(analysisFrom: string, gate: Gate, run: GateRun): number {
  if (run.lastAt !== null) return Date.parse(run.lastAt) + gate.intervalSeconds * 1000;
  return Date.parse(analysisFrom) + gate.initialDelaySeconds * 1000;
}

/** Every gate of an analysis starting from nothing. */
export function freshGateRuns(gates: readonly Gate[]): GateRun[] {
  return gates.map((g): GateRun => ({ name: g.name, successes: 0, failures: 0, consecutiveErrors: 0, lastResult: null, lastValue: null, lastAt: null, status: 'Running' }));
}

/**
 * One check's outcome counted on its gate's run (Argo's AnalysisRun counting): what to say about
 * the check itself (a failed check), and the gate's verdict when this check decided it.
 */
export function recordMeasurement(run: GateRun, gate: Gate, measurement: GateMeasurement, value: string, at: string): { checkFailed: string | null; verdict: { status: 'Passed' | 'Failed'; message: string } | null } {
  run.lastAt = at;
  run.lastResult = measurement.result;
  run.lastValue = value;
  let checkFailed: string | null = null;
  switch (measurement.result) {
    case 'pass':
      run.successes += 1;
      run.consecutiveErrors = 0;
      break;
    case 'fail':
      run.failures += 1;
      run.consecutiveErrors = 0;
      checkFailed = `gate ${gate.name}: check ${run.successes + run.failures} failed (${run.failures} of ${gate.failureLimit} tolerated): ${value}`;
      break;
    case 'error':
      run.consecutiveErrors += 1;
      break;
    case 'inconclusive':
      run.consecutiveErrors = 0;
      break;
  }
  if (run.failures > gate.failureLimit || run.consecutiveErrors > gate.consecutiveErrorLimit) {
    run.status = 'Failed';
    const why = run.failures > gate.failureLimit ? `${run.failures} failed checks` : `${run.consecutiveErrors} checks in a row could not be made`;
    return { checkFailed, verdict: { status: 'Failed', message: `gate ${gate.name} failed: ${why}; last value: ${value}` } };
  }
  if (run.successes >= gate.count) {
    run.status = 'Passed';
    return { checkFailed, verdict: { status: 'Passed', message: `gate ${gate.name} passed: ${run.successes} successful check${run.successes === 1 ? '' : 's'}; last value: ${value}` } };
  }
  return { checkFailed, verdict: null };
}

export function failureText(run: GateRun, gate: Gate | undefined): string {
  const last = run.lastValue ?? 'no value';
  if (run.lastResult === 'error') return `${run.consecutiveErrors} checks in a row could not be made (consecutiveErrorLimit ${gate?.consecutiveErrorLimit ?? '?'}); last: ${last}`;
  return `${run.failures} failed checks (failureLimit ${gate?.failureLimit ?? '?'}); last value: ${last}`;
}

/** What a gate call tells its target. */
export function callContext(d: Draft, rel: Release): CallContext {
  return { rollout: { cluster: d.spec.cluster, namespace: d.spec.namespace, name: d.spec.name }, releaseId: rel.id, step: rel.stepIndex + 1, revision: rel.targetRevision };
}

/** "gate errors: 1/3 checks passed, last value 0.07 (fails the check), 1 failed of 2 tolerated"; for the reason. */
export function analysisText(rel: Release, gates: Gate[]): { text: string; gate: GateRun | null } {
  return gateRunsText(rel.gates ?? [], gates);
}

/** The same for any analysis (a step's, a fleet wave's). */
export function gateRunsText(all: readonly GateRun[], gates: readonly Gate[]): { text: string; gate: GateRun | null } {
  const runs = all.filter((r) => r.status === 'Running');
  const first = runs[0] ?? null;
  if (first === null) return { text: 'gates passed', gate: null };
  const gate = gates.find((g) => g.name === first.name);
  const last = first.lastResult === null ? 'first check pending'
    : first.lastResult === 'inconclusive' ? `inconclusive, waiting for data (${first.lastValue ?? 'no data'})`
      : first.lastResult === 'error' ? `check could not be made (${first.lastValue ?? ''}), ${first.consecutiveErrors} in a row`
        : `last value ${first.lastValue ?? ''}${first.lastResult === 'fail' ? ' (fails the condition)' : ''}`;
  const failures = first.failures > 0 ? `, ${first.failures} failed of ${gate?.failureLimit ?? 0} tolerated` : '';
  const more = runs.length > 1 ? `; ${runs.length - 1} more gate${runs.length > 2 ? 's' : ''} running` : '';
  return { text: `analyzing: gate ${first.name} ${first.successes}/${gate?.count ?? '?'} checks passed, ${last}${failures}${more}`, gate: first };
}
