// One FleetRollout: its phase and the blocker it names (wave, cluster, the member's own cause), the
// fleet's buttons, the waves × clusters grid of the release running (or the last one) with each
// member's status, step and reason linking to its rollout page, and the fleet's history; refreshed
// every poll without reloading the page.
import { ICON } from '../../client/symbols.ts';
import { instant } from '../../rollout/message.ts';
import { dashboardApi } from './api.ts';
import { FleetActions } from './fleetActions.ts';
import { FleetGrid, FleetStatusLine, MemberList, fleetWorkloadText, releaseTitle } from './fleetParts.ts';
import { html } from './html.ts';
import { useNow, usePoll } from './usePoll.ts';

export function FleetPage({ name, pollMs }: { name: string; pollMs: number }) {
  const detail = usePoll(() => dashboardApi.fleet(name), pollMs, [name]);
  const now = useNow();
  const d = detail.data;
  const s = d?.fleet.state;
  const rel = s ? (s.release ?? s.lastRelease) : null;
  return html`
    <section>
      <p class="crumbs"><a href="#/fleets">Fleets</a> / ${name}</p>
      <h1>${name}</h1>
      ${detail.error ? html`<p class="problem" role="alert">${ICON.warning} ${detail.error}</p>` : null}
      ${d && s ? html`
        <${FleetStatusLine} phase=${s.phase} message=${s.message} cause=${s.cause} now=${now} />
        <p class="meta">${fleetWorkloadText(d.fleet)} · ${d.fleet.spec.waves.length} wave(s) · maxFailures ${String(d.fleet.spec.maxFailures)}${d.fleet.spec.rollbackOnFailure ? ' · rollbackOnFailure' : ''}</p>
        <${FleetActions} name=${name} state=${s} onDone=${detail.refresh} />
        <h2 data-testid="release-title">${rel ? releaseTitle(rel) : 'No fleet release yet'}</h2>
        ${rel ? html`<${FleetGrid} rel=${rel} members=${d.fleet.members} />` : html`<${MemberList} members=${d.fleet.members} />`}
        <h2>History</h2>
        <table class="history" data-testid="history">
          <thead><tr><th>Time</th><th>Release</th><th>Event</th><th>Wave</th><th>Cluster</th><th>By</th><th>Message</th></tr></thead>
          <tbody>
            ${[...d.history].reverse().slice(0, 40).map((h) => html`
              <tr>
                <td>${instant(h.at)}</td><td>${h.releaseId}</td><td>${h.type}</td><td>${h.wave ?? '-'}</td>
                <td>${h.cluster ?? '-'}</td><td>${h.by ?? '-'}</td><td>${h.message}</td>
              </tr>`)}
          </tbody>
        </table>` : null}
    </section>`;
}
