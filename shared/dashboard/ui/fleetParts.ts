// Pieces of the fleet page: the fleet's phase and its blocker, and the waves × clusters grid in which
// each member shows its own status, step and reason and links to its rollout page. The same facts as
// `rollouts fleet get` (shared/cli/commands/fleet.ts drawFleet), drawn as a grid.
import type { FleetGetResponse } from '../../api/fleetRoutes.ts';
import type { RolloutSummary } from '../../api/types.ts';
import { factsOfSummary, rolloutStatus } from '../../client/status.ts';
import { ICON, formatAge } from '../../client/symbols.ts';
import type { FleetCause, FleetPhase, FleetRelease, MemberRun, MemberStatus, WaveRun, WaveState } from '../../fleet/types.ts';
import { instant } from '../../rollout/message.ts';
import { rolloutPath } from './api.ts';
import { html } from './html.ts';

type Member = RolloutSummary & { cluster: string };

/** Every glyph is one of COVERED_GLYPHS (shared/client/symbols.ts), as on the rollout pages. */
const PHASE_ICON: Record<FleetPhase, string> = {
  Idle: ICON.neutral,
  Progressing: ICON.progressing,
  Paused: ICON.paused,
  Halted: ICON.warning,
  RollingBack: ICON.progressing,
  Completed: ICON.ok,
  RolledBack: ICON.bad,
  Aborted: ICON.bad,
};

const MEMBER_ICON: Record<MemberStatus, string> = {
  Waiting: ICON.waiting,
  Permitted: ICON.waiting,
  Releasing: ICON.progressing,
  Completed: ICON.ok,
  NoChange: ICON.ok,
  Skipped: ICON.neutral,
  Failed: ICON.bad,
  RollingBack: ICON.progressing,
  RolledBack: ICON.bad,
  Left: ICON.neutral,
};

const WAVE_ICON: Record<WaveState, string> = {
  Pending: ICON.waiting,
  Releasing: ICON.progressing,
  AfterWave: ICON.paused,
  Completed: ICON.ok,
};

export function fleetPhaseText(phase: FleetPhase): string {
  return `${PHASE_ICON[phase]} ${phase}`;
}

export function FleetStatusLine({ phase, message, cause, now }: { phase: FleetPhase; message: string; cause: FleetCause | null; now: Date }) {
  return html`
    <div class="status">
      <span class=${`badge phase-${phase}`} data-testid="status" data-status=${phase}>${fleetPhaseText(phase)}</span>
      <p class="reason" data-testid="reason">${message || '-'}</p>
      ${cause ? html`
        <dl class="cause" data-testid="blocker">
          <dt>Blocker</dt><dd data-testid="blocker-kind">${cause.kind}</dd>
          ${cause.wave ? html`<dt>Wave</dt><dd data-testid="blocker-wave">${cause.wave}</dd>` : null}
          ${cause.cluster ? html`<dt>Cluster</dt><dd data-testid="blocker-cluster">${cause.cluster}</dd>` : null}
          ${cause.detail ? html`<dt>Detail</dt><dd>${cause.detail}</dd>` : null}
          ${cause.member ? html`<dt>Member's cause</dt><dd data-testid="blocker-member">${cause.member.kind}${cause.member.object ? ` ${cause.member.object}` : ''}: ${cause.member.detail}</dd>` : null}
          ${cause.since ? html`<dt>Since</dt><dd>${instant(cause.since)} (${formatAge((now.getTime() - Date.parse(cause.since)) / 1000)} ago)</dd>` : null}
          ${cause.until ? html`<dt>Until</dt><dd>${instant(cause.until)}</dd>` : null}
        </dl>` : null}
    </div>`;
}

export function releaseTitle(rel: FleetRelease): string {
  const images = rel.images ? `: ${Object.entries(rel.images).map(([c, img]) => `${c}=${img}`).join(', ')}` : rel.change === null ? ': the templates the members hold' : '';
  return `release ${rel.id} (${rel.state})${images}${rel.endReason ? ` · ${rel.endReason}` : ''}`;
}

/** What the wave waits for once its members are done: the bake, the gates, the approval. */
function afterWaveText(w: WaveRun): string {
  const parts: string[] = [];
  if (w.spec.after.bakeSeconds > 0) parts.push(`bake ${formatAge(w.spec.after.bakeSeconds)}`);
  for (const g of w.gates ?? w.spec.after.gates.map((gate) => ({ name: gate.name, status: 'Pending' }))) parts.push(`gate ${g.name}: ${g.status}`);
  if (w.spec.after.approval) parts.push(w.approvedBy ? `approved by ${w.approvedBy}` : 'approval');
  return parts.length > 0 ? parts.join(' · ') : '-';
}

function MemberCell({ run, member }: { run: MemberRun; member: Member | undefined }) {
  const own = member ? rolloutStatus(factsOfSummary(member)) : null;
  return html`
    <td class=${`member member-${run.status}`} data-testid="member" data-cluster=${run.cluster} data-member-status=${run.status}>
      <div class="member-head">
        <span data-testid="member-status">${MEMBER_ICON[run.status]} ${run.status}</span>
        ${member ? html`<a data-testid="member-link" href=${`#/rollouts/${rolloutPath(member.rollout)}`}>${member.rollout.cluster}/${member.rollout.namespace}/${member.rollout.name}</a>` : html`<span class="empty">no member Rollout yet</span>`}
      </div>
      <div class="member-facts">
        <span data-testid="member-step">${member?.step ? `step ${member.step.index + 1}/${member.step.total}` : 'step -'}</span>
        ${own ? html`<span class=${`phase-${own.word}`}>${own.text}</span>` : null}
        ${run.late ? html`<span class="tag">joined late</span>` : null}
      </div>
      <p class="member-reason" data-testid="member-reason">${run.note || member?.message || '-'}</p>
    </td>`;
}

/** Waves as rows, the release's clusters as columns: a member sits in the cell of its wave. */
export function FleetGrid({ rel, members }: { rel: FleetRelease; members: Member[] }) {
  const byCluster = new Map(members.map((m) => [m.cluster, m]));
  const clusters = rel.waves.flatMap((w) => w.members.map((m) => m.cluster));
  return html`
    <div class="grid-scroll">
      <table class="fleet-grid" data-testid="fleet-grid">
        <thead><tr><th>Wave</th><th>After the wave</th>${clusters.map((c) => html`<th data-testid="grid-cluster">${c}</th>`)}</tr></thead>
        <tbody>
          ${rel.waves.map((w, i) => html`
            <tr data-testid="wave" data-wave=${w.spec.name} data-wave-state=${w.state}>
              <th class="wave-head">
                <div>${i + 1}. ${w.spec.name}</div>
                <div class=${`wave-state wave-${w.state}`} data-testid="wave-state">${WAVE_ICON[w.state]} ${w.state}</div>
                <div class="muted">at most ${String(w.spec.maxConcurrency)} at once</div>
              </th>
              <td class="after" data-testid="wave-after">${afterWaveText(w)}</td>
              ${clusters.map((c) => {
                const run = w.members.find((m) => m.cluster === c);
                return run ? html`<${MemberCell} run=${run} member=${byCluster.get(c)} />` : html`<td class="no-member">·</td>`;
              })}
            </tr>`)}
        </tbody>
      </table>
    </div>`;
}

/** Before the first fleet release: the member Rollouts the fleet has applied, each with its own state. */
export function MemberList({ members }: { members: Member[] }) {
  if (members.length === 0) return html`<p class="empty" data-testid="no-members">No member Rollouts yet: the fleet's first pass applies them.</p>`;
  return html`
    <table data-testid="member-list">
      <thead><tr><th>Cluster</th><th>Member</th><th>Status</th><th>Step</th><th>Reason</th></tr></thead>
      <tbody>
        ${members.map((m) => ({ m, status: rolloutStatus(factsOfSummary(m)) })).map(({ m, status }) => html`
          <tr data-testid="member" data-cluster=${m.cluster}>
            <td>${m.cluster}</td>
            <td><a data-testid="member-link" href=${`#/rollouts/${rolloutPath(m.rollout)}`}>${m.rollout.cluster}/${m.rollout.namespace}/${m.rollout.name}</a></td>
            <td class=${`phase-${status.word}`}>${status.text}</td>
            <td>${m.step ? `${m.step.index + 1}/${m.step.total}` : '-'}</td>
            <td class="reason">${m.message || '-'}</td>
          </tr>`)}
      </tbody>
    </table>`;
}

export function fleetWorkloadText(res: FleetGetResponse): string {
  const w = res.spec.workload;
  return `${w.kind} ${w.namespace}/${w.name}`;
}
