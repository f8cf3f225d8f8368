// Every FleetRollout the API lists: its workload, phase, release and the one-line reason naming its blocker.
import { ICON } from '../../client/symbols.ts';
import { dashboardApi } from './api.ts';
import { fleetPhaseText } from './fleetParts.ts';
import { html } from './html.ts';
import { usePoll } from './usePoll.ts';

export function FleetListPage({ pollMs }: { pollMs: number }) {
  const list = usePoll(() => dashboardApi.fleets(), pollMs, []);
  const fleets = [...(list.data?.fleets ?? [])].sort((a, b) => a.name.localeCompare(b.name));
  return html`
    <section>
      <h1>Fleets</h1>
      ${list.error ? html`<p class="problem" role="alert">${ICON.warning} ${list.error}</p>` : null}
      ${list.data && fleets.length === 0 ? html`<p class="empty">No fleets yet: <code>rollouts fleet apply -f fleet.yaml</code> (docs/fleet.md)</p>` : null}
      ${fleets.length > 0 ? html`
        <table class="fleets" data-testid="fleet-list">
          <thead><tr><th>Fleet</th><th>Workload</th><th>Status</th><th>Release</th><th>Reason</th></tr></thead>
          <tbody>
            ${fleets.map((f) => html`
              <tr data-testid="fleet-row" data-fleet=${f.name}>
                <td><a href=${`#/fleets/${encodeURIComponent(f.name)}`}>${f.name}</a></td>
                <td>${f.workload.kind} ${f.workload.namespace}/${f.workload.name}</td>
                <td class=${`phase phase-${f.phase}`} data-testid="status" data-status=${f.phase}>${fleetPhaseText(f.phase)}</td>
                <td>${f.releaseId ?? '-'}</td>
                <td class="reason" data-testid="reason">${f.message || '-'}</td>
              </tr>`)}
          </tbody>
        </table>` : null}
    </section>`;
}
