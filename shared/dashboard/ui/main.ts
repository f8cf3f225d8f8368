// The dashboard page: a hash router over four pages (every rollout; one rollout; every fleet; one
// fleet), polling the
// dashboard server at the interval it says (1 s in local mode, 2 s against a deployed stack). The
// config is polled too: in local mode the API moves to another port at each `npm start`, and the
// server follows it (shared/cli/target.ts followLocalEndpoint), so the header shows where it is now.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { RolloutKey } from '../../rollout/types.ts';
import type { DashboardConfig } from '../types.ts';
import { dashboardApi } from './api.ts';
import { usePoll } from './usePoll.ts';
import { html } from './html.ts';
import { FleetListPage } from './fleetListPage.ts';
import { FleetPage } from './fleetPage.ts';
import { ListPage } from './listPage.ts';
import { RolloutPage } from './rolloutPage.ts';

type Route = { page: 'rollouts' } | { page: 'rollout'; key: RolloutKey } | { page: 'fleets' } | { page: 'fleet'; name: string };

function route(hash: string): Route {
  const r = /^#\/rollouts\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(hash);
  if (r) return { page: 'rollout', key: { cluster: decodeURIComponent(r[1] as string), namespace: decodeURIComponent(r[2] as string), name: decodeURIComponent(r[3] as string) } };
  const f = /^#\/fleets\/([^/]+)$/.exec(hash);
  if (f) return { page: 'fleet', name: decodeURIComponent(f[1] as string) };
  return hash === '#/fleets' ? { page: 'fleets' } : { page: 'rollouts' };
}

function Page({ at, hash, pollMs }: { at: Route; hash: string; pollMs: number }) {
  switch (at.page) {
    case 'rollout': return html`<${RolloutPage} key=${hash} rolloutKey=${at.key} pollMs=${pollMs} />`;
    case 'fleet': return html`<${FleetPage} key=${hash} name=${at.name} pollMs=${pollMs} />`;
    case 'fleets': return html`<${FleetListPage} pollMs=${pollMs} />`;
    case 'rollouts': return html`<${ListPage} pollMs=${pollMs} />`;
  }
}

const CONFIG_POLL_MS = 2000;

function App() {
  const [hash, setHash] = useState(location.hash);
  const polled = usePoll(() => dashboardApi.config(), CONFIG_POLL_MS, []);
  const config: DashboardConfig | null = polled.data;
  // Before the first config only: afterwards each page shows its own polling's problem.
  const problem = config ? null : polled.error;
  useEffect(() => {
    const onHash = () => setHash(location.hash);
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  const at = route(hash);
  return html`
    <header class="top">
      <a class="brand" href="#/">serverless-rollouts</a>
      <nav class="tabs">
        <a href="#/" class=${at.page.startsWith('rollout') ? 'current' : ''} data-testid="nav-rollouts">Rollouts</a>
        <a href="#/fleets" class=${at.page.startsWith('fleet') ? 'current' : ''} data-testid="nav-fleets">Fleets</a>
      </nav>
      ${config ? html`<span class="target" data-testid="target">${config.mode === 'local' ? 'local mode' : 'deployed'} · ${config.endpoint}</span>` : null}
    </header>
    <main>
      ${problem ? html`<p class="problem" role="alert">${problem}</p>` : null}
      ${config ? html`<${Page} at=${at} hash=${hash} pollMs=${config.pollMs} />` : null}
    </main>`;
}

render(html`<${App} />`, document.getElementById('app') as HTMLElement);
