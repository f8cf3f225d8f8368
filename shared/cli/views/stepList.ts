// The steps of a rollout with the current one marked and what it is doing, as kubectl-kruise's
// `describe rollout` lists them: done steps ✔, the current one with its state, the rest plain.
import { stepTarget } from '../../rollout/arithmetic.ts';
import { stepPauseLabel } from '../../rollout/spec.ts';
import type { ReleaseState, RolloutSpec } from '../../rollout/types.ts';
import { describeTraffic } from '../../rollout/trafficTypes.ts';
import { formatTable } from '../table.ts';
import { ICON } from '../../client/symbols.ts';
import { stepStatus } from '../../client/progress.ts';
import { stepStateLabel } from '../../client/status.ts';

function currentMark(state: ReleaseState): string {
  const rel = state.release;
  if (!rel) return ' ';
  if (rel.failure) return ICON.bad;
  if (state.userPaused || rel.stepState === 'StepPaused') return ICON.paused;
  if (rel.stepState === 'StepReady') return ICON.ok;
  return ICON.progressing;
}

/** "Steps:" and one line per step; `replicas` is the workload's N (for the pod counts). */
export function renderSteps(spec: RolloutSpec, state: ReleaseState, replicas: number | null, now: Date): string {
  const rel = state.release?.kind === 'release' ? state.release : null;
  const rows = spec.steps.map((step, i) => {
    let mark = ' ';
    let note = '';
    const status = stepStatus(state, i);
    if (status === 'done') mark = ICON.ok;
    else if (status === 'current') {
      mark = currentMark(state);
      note = `◀ ${stepStateLabel(spec, state, now)}`;
    }
    // The pods step i asks of the new revision, as the planner counts them (never fewer than an earlier step's).
    const pods = replicas === null ? '' : `${stepTarget(spec, i, replicas)}/${replicas}`;
    const pause = step.pause.type === 'none' ? '' : `pause: ${stepPauseLabel(step.pause)}`;
    // A routed Rollout shows what each step sends to the canary (none: the user's own routing).
    if (spec.trafficRouting) return [mark, `${i + 1}.`, `replicas: ${step.replicas}`, pods, `traffic: ${step.traffic ? describeTraffic(step.traffic) : 'original'}`, pause, note];
    return [mark, `${i + 1}.`, `replicas: ${step.replicas}`, pods, pause, note];
  });
  const lines = formatTable(rows).split('\n').map((l) => `  ${l}`.trimEnd());
  if (rel?.finalizing) lines.push(`  ${ICON.progressing} finishing: every pod to the new revision, then handing back to the Deployment controller`);
  if (state.release && state.release.kind !== 'release') lines.push(`  ${ICON.progressing} ${state.message}`);
  return `Steps:\n${lines.join('\n')}`;
}
