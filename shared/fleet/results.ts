// What after-wave gate calls answered, recorded on the fleet's STATE by the pipeline before the
// next plan (as shared/rollout/results.ts records a step's), with one history event per outcome.
import { recordMeasurement } from '../rollout/gates.ts';
import { oneLine } from '../rollout/message.ts';
import { MAX_OUTPUT_CHARS } from '../rollout/results.ts';
import { FLEET_EVENT, fleetEvent, type FleetEventType } from './events.ts';
import type { FleetEvent, FleetInvocationResult, FleetSpec, FleetState } from './types.ts';

export function recordFleetResults(spec: FleetSpec, state: FleetState, results: readonly FleetInvocationResult[], now: Date): { state: FleetState; events: FleetEvent[] } {
  const next = structuredClone(state);
  const events: FleetEvent[] = [];
  const rel = next.release;
  if (rel === null) return { state: next, events };
  for (const r of results) {
    const wave = rel.waves.find((w) => w.spec.name === r.wave && w.state === 'AfterWave');
    const gate = wave?.spec.after.gates.find((g) => g.name === r.gate);
    const run = wave?.gates?.find((g) => g.name === r.gate);
    // Only a running gate of a wave still after its release: an answer for anything else is stale.
    if (!wave || !gate || !run || run.status !== 'Running' || rel.state !== 'Progressing') continue;
    const emit = (type: FleetEventType, message: string) => events.push(fleetEvent(spec.name, type, {
      releaseId: rel.id, phase: next.phase, wave: wave.spec.name, message, at: now, reason: next.message, cause: next.cause,
    }));
    const outcome = recordMeasurement(run, gate, r.measurement, oneLine(r.measurement.value, MAX_OUTPUT_CHARS), r.at);
    if (outcome.checkFailed !== null) emit(FLEET_EVENT.GateCheckFailed, outcome.checkFailed);
    if (outcome.verdict !== null) emit(outcome.verdict.status === 'Passed' ? FLEET_EVENT.GatePassed : FLEET_EVENT.GateFailed, outcome.verdict.message);
  }
  return { state: next, events };
}
