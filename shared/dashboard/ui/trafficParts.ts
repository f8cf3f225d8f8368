// The rollout page's traffic panel for a Rollout with trafficRoutings: the router and who serves it,
// the weight it carries now, and what the current step waits for from it (trafficModel.ts).
import type { WorkloadTraffic } from '../../api/workloadRoutes.ts';
import { formatAge } from '../../client/symbols.ts';
import type { ReleaseState, RolloutSpec } from '../../rollout/types.ts';
import { html } from './html.ts';
import { trafficPanel } from './trafficModel.ts';

export function TrafficRouting({ spec, state, traffic, now }: { spec: RolloutSpec; state: ReleaseState; traffic: WorkloadTraffic | null | undefined; now: Date }) {
  const p = trafficPanel(spec, state, traffic, now);
  if (!p) return null;
  const steps = p.now.steps.length === 0 ? '' : ` (step ${p.now.steps.join(', ')})`;
  return html`
    <dl class="traffic" data-testid="traffic">
      <dt>Router</dt><dd><code data-testid="traffic-router">${p.router}</code> (${p.provider})</dd>
      <dt>Services</dt><dd>${p.services}</dd>
      <dt>Now</dt>
      <dd data-testid="traffic-now" data-weight=${p.now.weight === null ? '' : String(p.now.weight)}>
        ${p.now.text}${steps}
        ${p.now.pending ? html`<span class="pending" data-testid="traffic-pending"> · written, not live yet: ${p.now.pending}</span>` : null}
      </dd>
      ${p.problem ? html`<dt>Problem</dt><dd class="problem" data-testid="traffic-problem">${p.problem}</dd>` : null}
      ${p.waiting ? html`
        <dt>Waiting</dt>
        <dd data-testid="traffic-waiting">${p.waiting.text}${p.waiting.graceLeftSeconds !== null
          ? html` <span class="grace" data-testid="traffic-grace">(grace period ${p.gracePeriodSeconds}s: ${formatAge(p.waiting.graceLeftSeconds)} left)</span>`
          : null}</dd>` : null}
    </dl>`;
}
