// Every rollout the API lists, across clusters: phase, step and the one-line reason.
import type { RolloutSummary } from '../../api/types.ts';
import { factsOfSummary, rolloutStatus } from '../../client/status.ts';
import { ICON } from '../../client/symbols.ts';
import { dashboardApi, rolloutPath } from './api.ts';
import { html } from './html.ts';
import { usePoll } from './usePoll.ts';

export function ListPage({ pollMs }: { pollMs: number }) {
  const list = usePoll(() => dashboardApi.list(), pollMs, []);
  const rollouts = [...(list.data?.rollouts ?? [])].sort((a, b) => keyText(a).localeCompare(keyText(b)));
  return html`
    <section>
      <h1>Rollouts</h1>
      ${list.error ? html`<p class="problem" role="alert">${ICON.warning} ${list.error}</p>` : null}
      ${list.data && rollouts.length === 0 ? html`<p class="empty">No rollouts yet: <code>rollouts apply -f examples/rollout.yaml</code></p>` : null}
      ${rollouts.length > 0 ? html`
        <table class="rollouts" data-testid="rollout-list">
          <thead><tr><th>Cluster</th><th>Namespace</th><th>Rollout</th><th>Workload</th><th>Status</th><th>Step</th><th>Reason</th></tr></thead>
          <tbody>
            ${rollouts.map((r) => ({ r, status: rolloutStatus(factsOfSummary(r)) })).map(({ r, status }) => html`
              <tr data-testid="rollout-row" data-rollout=${keyText(r)}>
                <td>${r.rollout.cluster}</td>
                <td>${r.rollout.namespace}</td>
                <td><a href=${`#/rollouts/${rolloutPath(r.rollout)}`}>${r.rollout.name}</a></td>
                <td>${r.workload.kind}/${r.workload.name}</td>
                <td class=${`phase phase-${status.word}`} data-testid="status" data-status=${status.word}>${status.text}</td>
                <td>${r.step ? `${r.step.index + 1}/${r.step.total}` : '-'}</td>
                <td class="reason" data-testid="reason">${r.message}</td>
              </tr>`)}
          </tbody>
        </table>` : null}
    </section>`;
}

function keyText(r: RolloutSummary): string {
  return `${r.rollout.cluster}/${r.rollout.namespace}/${r.rollout.name}`;
}
