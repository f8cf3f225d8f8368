// One rollout: its reason and cause, the current batch's progress, the commands, its traffic routing
// (with trafficRoutings), the steps, the revision → pod tree and the history, refreshed every poll
// without reloading the page.
import type { RolloutKey } from '../../rollout/types.ts';
import { ICON } from '../../client/symbols.ts';
import { dashboardApi } from './api.ts';
import { Actions } from './actions.ts';
import { html } from './html.ts';
import { History, Progress, RevisionTree, StatusLine, Steps } from './parts.ts';
import { TrafficRouting } from './trafficParts.ts';
import { useNow, usePoll } from './usePoll.ts';

export function RolloutPage({ rolloutKey, pollMs }: { rolloutKey: RolloutKey; pollMs: number }) {
  const id = `${rolloutKey.cluster}/${rolloutKey.namespace}/${rolloutKey.name}`;
  const detail = usePoll(() => dashboardApi.detail(rolloutKey), pollMs, [id]);
  const now = useNow();
  const d = detail.data;
  return html`
    <section>
      <p class="crumbs"><a href="#/">Rollouts</a> / ${rolloutKey.cluster} / ${rolloutKey.namespace}</p>
      <h1>${rolloutKey.name}</h1>
      ${detail.error ? html`<p class="problem" role="alert">${ICON.warning} ${detail.error}</p>` : null}
      ${d ? html`
        <${StatusLine} spec=${d.rollout.spec} state=${d.rollout.state} now=${now} />
        <p class="meta">${d.rollout.spec.workloadRef.kind}/${d.rollout.spec.workloadRef.name} · ${d.workload ? `${d.workload.replicas} replicas` : ''}</p>
        <${Progress} spec=${d.rollout.spec} state=${d.rollout.state} workload=${d.workload} />
        <${Actions} rolloutKey=${rolloutKey} state=${d.rollout.state} onDone=${detail.refresh} />
        ${d.rollout.spec.trafficRouting ? html`<h2>Traffic</h2><${TrafficRouting} spec=${d.rollout.spec} state=${d.rollout.state} traffic=${d.workload?.traffic} now=${now} />` : null}
        <div class="columns">
          <div><h2>Steps</h2><${Steps} spec=${d.rollout.spec} state=${d.rollout.state} replicas=${d.rollout.state.release?.observedReplicas ?? d.workload?.replicas ?? null} now=${now} /></div>
          <div><h2>Revisions</h2><${RevisionTree} workload=${d.workload} state=${d.rollout.state} error=${d.workloadError} now=${now} fetchedAt=${d.fetchedAt} /></div>
        </div>
        <h2>History</h2>
        <${History} entries=${d.history} />` : null}
    </section>`;
}
