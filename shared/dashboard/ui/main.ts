// The dashboard page: a hash router over two pages (every rollout; one rollout), polling the
// dashboard server at the interval it says (1 s in local mode, 2 s against a deployed stack).
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { RolloutKey } from '../../rollout/types.ts';
import type { DashboardConfig } from '../types.ts';
import { dashboardApi } from './api.ts';
import { html } from './html.ts';
import { ListPage } from './listPage.ts';
import { RolloutPage } from './rolloutPage.ts';

function route(hash: string): RolloutKey | null {
  const m = /^#\/rollouts\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(hash);
  return m ? { cluster: decodeURIComponent(m[1] as string), namespace: decodeURIComponent(m[2] as string), name: decodeURIComponent(m[3] as string) } : null;
}

function App() {
  const [hash, setHash] = useState(location.hash);
  const [config, setConfig] = useState<DashboardConfig | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    const onHash = () => setHash(location.hash);
    addEventListener('hashchange', onHash);
    dashboardApi.config().then(setConfig, (err: unknown) => setProblem(err instanceof Error ? err.message : String(err)));
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
