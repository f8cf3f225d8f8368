// The two pure steps around the calls the planner asked for (hooks.ts, gates.ts), run by the
// reconcile: `markStarted` records each hook call on STATE before it is made (so a crash or a
// duplicate pass sees it, and never starts the same attempt twice), and `recordResults` records
// what the calls answered, with one history event per outcome. The next plan reads them.
import { MAX_BACKOFF_SECONDS, type HookRecord, type Invocation, type InvocationResult } from './checkTypes.ts';
import { EVENT, rolloutEvent, type EventType } from './events.ts';
import { recordMeasurement } from './gates.ts';
import { hookKey } from './hooks.ts';
import { oneLine } from './message.ts';
import type { ReleaseState, RolloutEvent, RolloutSpec } from './types.ts';

/** What is kept of a target's answer (output, body, error) on STATE and in reasons. */
export const MAX_OUTPUT_CHARS = 300;

export function markStarted(state: ReleaseState, invocations: readonly Invocation[], now: Date): ReleaseState {
  const rel = state.release;
  const calls = invocations.filter((i) => i.type === 'run-hook');
  if (rel === null || calls.length === 0) return state;
  const next = structuredClone(state);
  const hooks = { ...(rel.hooks ?? {}) };
  for (const c of calls) {
    const key = hookKey(c.phase, c.pod);
    const prev = hooks[key];
    hooks[key] = {
      attempt: c.attempt, status: 'Started', at: now.toISOString(), retryAt: null,
      output: prev?.output ?? '', deliveries: (prev?.attempt === c.attempt ? prev.deliveries : 0) + 1,
    };
  }
  (next.release as NonNullable<ReleaseState['release']>).hooks = hooks;
  return next;
}

export function recordResults(spec: RolloutSpec, state: ReleaseState, results: readonly InvocationResult[], now: Date): { state: ReleaseState; events: RolloutEvent[] } {
  const next = structuredClone(state);
  const rel = next.release;
  const events: RolloutEvent[] = [];
  if (rel === null) return { state: next, events };
  const emit = (type: EventType, message: string) => events.push(rolloutEvent(spec, type, {
    releaseId: rel.id, phase: next.phase, stepIndex: rel.stepIndex, message, at: now, reason: next.message, cause: next.cause ?? null,
  }));
  for (const r of results) {
    if (r.type === 'run-hook') {
      const hook = spec.lifecycle?.[r.phase] ?? null;
      const key = hookKey(r.phase, r.pod);
      const record = rel.hooks?.[key];
      // Only the attempt that was started: an answer for anything else is stale (another pass moved on).
      if (hook === null || record === undefined || record.status !== 'Started' || record.attempt !== r.attempt) continue;
      const output = oneLine(r.outcome.output, MAX_OUTPUT_CHARS);
      let updated: HookRecord;
      if (r.outcome.result === 'succeeded') {
        updated = { ...record, status: 'Succeeded', at: r.at, output };
        emit(EVENT.HookSucceeded, `${r.phase} hook on pod ${r.pod} succeeded (attempt ${r.attempt})${output ? `: ${output}` : ''}`);
      } else if (r.outcome.retryable && r.attempt <= hook.retries) {
        const wait = Math.min(MAX_BACKOFF_SECONDS, hook.backoffSeconds * 2 ** (r.attempt - 1));
        const retryAt = new Date(Date.parse(r.at) + wait * 1000).toISOString();
        updated = { ...record, status: 'Waiting', at: r.at, retryAt, output };
        emit(EVENT.HookAttemptFailed, `${r.phase} hook on pod ${r.pod}: attempt ${r.attempt} of ${hook.retries + 1} failed: ${output}; retrying in ${wait}s`);
      } else {
        updated = { ...record, status: 'Failed', at: r.at, output };
        const why = r.outcome.retryable ? `after ${r.attempt} attempts` : `on attempt ${r.attempt} (the target refused: no retry)`;
        emit(EVENT.HookFailed, `${r.phase} hook on pod ${r.pod} failed ${why}: ${output}${rel.kind === 'rollback' ? '; the rollback goes on' : ''}`);
      }
      rel.hooks = { ...rel.hooks, [key]: updated };
      continue;
    }
    const gate = spec.steps[r.stepIndex]?.gates?.find((g) => g.name === r.gate);
    const run = rel.gates?.find((g) => g.name === r.gate);
    if (!gate || !run || run.status !== 'Running' || rel.stepIndex !== r.stepIndex || rel.stepState !== 'Analyzing') continue;
    const outcome = recordMeasurement(run, gate, r.measurement, oneLine(r.measurement.value, MAX_OUTPUT_CHARS), r.at);
    if (outcome.checkFailed !== null) emit(EVENT.GateCheckFailed, outcome.checkFailed);
    if (outcome.verdict !== null) emit(outcome.verdict.status === 'Passed' ? EVENT.GatePassed : EVENT.GateFailed, outcome.verdict.message);
  }
  return { state: next, events };
}
