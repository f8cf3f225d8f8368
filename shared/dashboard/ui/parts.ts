// Pieces of the rollout page: the reason with its cause, the steps, the revision → pod tree, history.
import type { WorkloadResponse } from '../../api/workloadRoutes.ts';
import { batchProgress, revisionTags, secondsLeft, stepStatus } from '../../client/progress.ts';
import { factsOfState, rolloutStatus, stepStateLabel } from '../../client/status.ts';
import { ICON, formatAge } from '../../client/symbols.ts';
import type { HistoryEntry } from '../../ports.ts';
import { instant } from '../../rollout/message.ts';
import type { ReleaseState, RolloutSpec, Step } from '../../rollout/types.ts';
import { html } from './html.ts';
import { stepTrafficText } from './trafficModel.ts';

export function StatusLine({ spec, state, now }: { spec: RolloutSpec; state: ReleaseState; now: Date }) {
  const cause = state.cause ?? null;
  const left = secondsLeft(cause?.until, now);
  const status = rolloutStatus(factsOfState(state, spec));
  return html`
    <div class="status">
      <span class=${`badge phase-${status.word}`} data-testid="status" data-status=${status.word}>${status.text}</span>
      <p class="reason" data-testid="reason">${state.message || '-'}</p>
      ${cause ? html`
        <dl class="cause" data-testid="cause">
          <dt>Cause</dt><dd data-testid="cause-kind">${cause.kind}</dd>
          ${cause.object ? html`<dt>Object</dt><dd>${cause.object}${cause.field ? ` (${cause.field})` : ''}</dd>` : null}
          ${cause.since ? html`<dt>Since</dt><dd>${instant(cause.since)} (${formatAge((now.getTime() - Date.parse(cause.since)) / 1000)} ago)</dd>` : null}
          ${cause.until ? html`<dt>Until</dt><dd data-testid="until">${instant(cause.until)}${left !== null ? ` (${formatAge(left)} left)` : ''}</dd>` : null}
        </dl>` : null}
    </div>`;
}

export function Progress({ spec, state, workload }: { spec: RolloutSpec; state: ReleaseState; workload: WorkloadResponse | null }) {
  const p = batchProgress(spec, state, workload);
  if (!p) return null;
  const percent = p.batch === 0 ? 100 : Math.round((p.moved / p.batch) * 100);
  return html`
    <div class="progress" data-testid="progress">
      <span>Step ${p.step}/${p.steps}: ${p.moved} of ${p.batch} pods moved</span>
      <div class="bar"><div class="fill" style=${`width:${percent}%`}></div></div>
    </div>`;
}

function pauseText(step: Step): string {
  if (step.pause.type === 'approval') return 'then wait for approval';
  if (step.pause.type === 'timed') return `then pause ${step.pause.seconds}s`;
  return '';
}

export function Steps({ spec, state, replicas, now }: { spec: RolloutSpec; state: ReleaseState; replicas: number | null; now: Date }) {
  return html`
    <ol class="steps" data-testid="steps">
      ${spec.steps.map((step, i) => {
        const status = stepStatus(state, i);
        const mark = status === 'done' ? ICON.ok : status === 'current' ? (state.release?.stepState === 'StepPaused' ? ICON.paused : ICON.progressing) : ICON.waiting;
        return html`
          <li class=${`step step-${status}`} data-testid=${`step-${i + 1}`} data-status=${status}>
            <span class="mark">${mark}</span>
            <span>Step ${i + 1}: ${String(step.replicas)}${replicas === null ? '' : ` of ${replicas} pods`}${spec.trafficRouting
              ? html`, <span class="step-traffic" data-testid="step-traffic">traffic ${stepTrafficText(step)}</span>`
              : null} ${pauseText(step)}</span>
            ${status === 'current' ? html`<span class="now" data-testid="step-now">${stepStateLabel(spec, state, now)}</span>` : null}
          </li>`;
      })}
    </ol>`;
}

export function RevisionTree({ workload, state, error, now, fetchedAt }: { workload: WorkloadResponse | null; state: ReleaseState; error: string | null; now: Date; fetchedAt: string }) {
  if (!workload) return html`<p class="problem">No revision tree: ${error ?? 'the workload could not be read'}</p>`;
  const tags = revisionTags(state);
  const elapsed = Math.max(0, (now.getTime() - Date.parse(fetchedAt)) / 1000);
  return html`
    <ul class="tree" data-testid="revisions">
      ${workload.revisions.map((r) => html`
        <li class="revision" data-testid="revision" data-revision=${r.number}>
          <div class="revision-head">
            <strong>revision ${r.number}</strong> <code>${r.holder}</code>
            ${tags[r.id] ? html`<span class=${`tag tag-${tags[r.id]}`}>${tags[r.id]}</span>` : null}
            <span class="images">${Object.values(r.images).join(', ')}</span>
            <span class="counts">${r.available}/${r.desired} available</span>
          </div>
          <ul class="pods">
            ${r.pods.map((p) => html`
              <li class=${`pod ${p.ready ? 'pod-ready' : 'pod-waiting'}`} data-testid="pod" data-image=${Object.values(r.images)[0] ?? ''}>
                <span>${p.ready ? ICON.ok : ICON.progressing}</span> ${p.name}
                <span class="pod-status">${p.reason ?? p.phase}</span>
                <span class="age">${formatAge(p.ageSeconds + elapsed)}</span>
              </li>`)}
          </ul>
        </li>`)}
    </ul>`;
}

export function History({ entries }: { entries: HistoryEntry[] }) {
  const latest = [...entries].reverse().slice(0, 40);
  return html`
    <table class="history" data-testid="history">
      <thead><tr><th>Time</th><th>Release</th><th>Event</th><th>Step</th><th>By</th><th>Reason</th></tr></thead>
      <tbody>
        ${latest.map((h) => html`
          <tr>
            <td>${instant(h.at)}</td><td>${h.releaseId}</td><td>${h.type}</td>
            <td>${h.stepIndex === null ? '-' : h.stepIndex + 1}</td><td>${h.by ?? '-'}</td>
            <td title=${h.message}>${h.reason ?? h.message}</td>
          </tr>`)}
      </tbody>
    </table>`;
}
