// The dashboard page: a hash router over two pages (every rollout; one rollout), polling the
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
import { ListPage } from './listPage.ts';
import { RolloutPage } from './rolloutPage.ts';

function route(hash: string): RolloutKey | null {
  const m = /^#\/rollouts\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(hash);
  return m ? { cluster: decodeURIComponent(m[1] as string), namespace: decodeURIComponent(m[2] as string), name: decodeURIComponent(m[3] as string) } : null;
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
  const key = route(hash);
  return html`
    <header class="top">
      <a class="brand" href="#/">serverless-rollouts</a>
      ${config ? html`<span class="target" data-testid="target">${config.mode === 'local' ? 'local mode' : 'deployed'} · ${config.endpoint}</span>` : null}
    </header>
    <main>
      ${problem ? html`<p class="problem" role="alert">${problem}</p>` : null}
      ${config ? (key ? html`<${RolloutPage} key=${hash} rolloutKey=${key} pollMs=${config.pollMs} />` : html`<${ListPage} pollMs=${config.pollMs} />`) : null}
    </main>`;
}

render(html`<${App} />`, document.getElementById('app') as HTMLElement);
