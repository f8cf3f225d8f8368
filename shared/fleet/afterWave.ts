// What follows a wave once every member is done, before the next wave may open: a bake (soak time),
// the same gates a step has (Argo's AnalysisRun counting, shared/rollout/gates.ts), checked from the
// same moment, and an approval, which may be given while the bake and the gates run. A failed gate
// halts the fleet release (and rolls it back with rollbackOnFailure), whatever maxFailures says.
import { failureText, freshGateRuns, gateDueAt } from '../rollout/gates.ts';
import type { FleetDraft } from './draft.ts';
import { FLEET_EVENT } from './events.ts';
import { halt } from './release.ts';
import type { FleetRelease, WaveRun } from './types.ts';

export function enterAfterWave(d: FleetDraft, rel: FleetRelease, wave: WaveRun, index: number): void {
  const after = wave.spec.after;
  wave.state = 'AfterWave';
  wave.membersDoneAt = d.now.toISOString();
  const members = wave.members.filter((m) => m.status !== 'Left');
  const done = members.map((m) => `${m.cluster} ${m.status.toLowerCase()}`).join(', ');
  d.emit(FLEET_EVENT.WaveReleased, `wave ${index + 1}/${rel.waves.length} ${wave.spec.name} released (${done})`, { wave: wave.spec.name });
  if (after.gates.length > 0) {
    wave.gates = freshGateRuns(after.gates);
    d.emit(FLEET_EVENT.AnalysisStarted, `wave ${wave.spec.name}: checking ${after.gates.map((g) => g.name).join(', ')}`, { wave: wave.spec.name });
  }
  if (after.approval) d.emit(FLEET_EVENT.AwaitingApproval, `wave ${wave.spec.name} is waiting for approval (rollouts fleet approve ${d.spec.name})`, { wave: wave.spec.name });
}

/** 'done' once the bake has elapsed, every gate passed and the approval (if asked) was given. */
export function afterWave(d: FleetDraft, rel: FleetRelease, wave: WaveRun, index: number): 'done' | 'waiting' | 'failed' {
  const after = wave.spec.after;
  const from = wave.membersDoneAt ?? d.now.toISOString();
  let waiting = false;
  const bakeEnds = Date.parse(from) + after.bakeSeconds * 1000;
  if (d.now.getTime() < bakeEnds) {
    d.wakeAt(bakeEnds);
    waiting = true;
  }
  const runs = wave.gates ?? [];
  const failed = runs.find((r) => r.status === 'Failed');
  if (failed) {
    const gate = after.gates.find((g) => g.name === failed.name);
    halt(d, rel, `after-wave gate ${failed.name} of wave ${wave.spec.name} failed: ${failureText(failed, gate)}`, { wave: wave.spec.name });
    return 'failed';
  }
  for (const gate of after.gates) {
    const run = runs.find((r) => r.name === gate.name);
    if (!run || run.status === 'Passed') continue;
    waiting = true;
    const due = gateDueAt(from, gate, run);
    if (d.now.getTime() >= due) {
      d.invocations.push({
        type: 'check-gate', gate,
        context: { fleet: { name: d.spec.name }, releaseId: rel.id, wave: wave.spec.name, waveNumber: index + 1, clusters: wave.members.filter((m) => m.status !== 'Left').map((m) => m.cluster) },
      });
    } else {
      d.wakeAt(due);
    }
  }
  if (after.approval && wave.approvedBy === null) waiting = true;
  return waiting ? 'waiting' : 'done';
}
