// The fleet's one-line reason and its structured cause: every waiting state names its blocker, the
// wave, the cluster and the member's own reason (its pod, gate, window, approval). Composed from
// the state and this pass's blockers, with instants rather than durations, so a pass that finds the
// same blocker rewrites nothing.
import type { Cause } from '../rollout/cause.ts';
import { gateRunsText } from '../rollout/gates.ts';
import { instant } from '../rollout/message.ts';
import { currentWave, waveLabel } from './commands.ts';
import type { FleetDraft } from './draft.ts';
import { describeSelector } from './labels.ts';
import { fleetClusters } from './placement.ts';
import { DONE, allMembers } from './state.ts';
import type { FleetCause, FleetCauseKind, FleetRelease, MemberRun, WaveRun } from './types.ts';

export interface FleetReason {
  message: string;
  cause: FleetCause | null;
}

export function explainFleet(d: FleetDraft): FleetReason {
  const s = d.state;
  const rel = s.release;
  const name = d.spec.name;
  if (!rel) {
    if (fleetClusters(d.spec, d.clusters).length === 0) {
      const detail = `spec.clusterSelector (${describeSelector(d.spec.clusterSelector)}) selects no registered cluster`;
      return reason(detail, cause('NoClusters', null, null, detail));
    }
    if (s.userPaused) return reason(`paused: the next fleet release waits for rollouts fleet resume ${name}`, cause('Paused', null, null, `rollouts fleet resume ${name}`));
    const last = s.lastRelease;
    if (!last) return reason(`no fleet release yet (rollouts fleet release ${name} --image <container>=<image>, or change the template in every cluster)`, null);
    return reason(`fleet release ${last.id} ${last.state.toLowerCase()}${last.endReason ? `: ${last.endReason}` : ''}`, null);
  }
  if (rel.state === 'Halted') return reason(`fleet release ${rel.id} halted: ${rel.endReason ?? ''}`, cause('Halted', null, null, rel.endReason ?? 'halted'));
  if (rel.state === 'RollingBack') {
    const pending = allMembers(rel).filter((m) => m.revoked && m.status === 'RollingBack');
    const first = pending[0];
    const base = `rolling back fleet release ${rel.id} (${rel.endReason ?? ''})`;
    if (!first) return reason(base, null);
    return reason(`${base}: cluster ${first.cluster}: ${first.note}${more(pending)}`, memberCause('Member', null, first));
  }
  const at = currentWave(rel);
  if (s.userPaused) {
    const where = at ? ` at ${waveLabel(rel, at.index)}` : '';
    return reason(`paused${where} (rollouts fleet resume ${name})`, cause('Paused', at?.wave.spec.name ?? null, null, `rollouts fleet resume ${name}`));
  }
  if (!at) {
    const late = allMembers(rel).filter((m) => m.late && !DONE.has(m.status));
    const first = late[0];
    if (!first) return reason(`fleet release ${rel.id}: finishing`, null);
    return reason(`fleet release ${rel.id}: cluster ${first.cluster}, which joined late, ${first.status.toLowerCase()}: ${first.note}${more(late)}`, memberCause('Member', null, first));
  }
  const label = `fleet release ${rel.id}, ${waveLabel(rel, at.index)}`;
  return at.wave.state === 'AfterWave' ? afterWaveReason(d, rel, at.wave, label) : releasingReason(d, at.wave, label);
}

function releasingReason(d: FleetDraft, wave: WaveRun, label: string): FleetReason {
  const open = wave.members.filter((m) => !DONE.has(m.status));
  const moving = open.filter((m) => m.status === 'Permitted' || m.status === 'Releasing');
  const first = moving[0] ?? open[0];
  if (!first) return reason(`${label}: every member done`, null);
  const blocker = d.blockers.get(first.cluster);
  if (first.unreachableSince !== null) {
    const until = new Date(Date.parse(first.unreachableSince) + d.spec.unreachableDeadlineSeconds * 1000).toISOString();
    const text = `${label}: cluster ${first.cluster} unreachable since ${instant(first.unreachableSince)}; it counts as failed at ${instant(until)}: ${first.note}${more(open)}`;
    return reason(text, { ...memberCause('ClusterUnreachable', wave, first), since: first.unreachableSince, until });
  }
  if (first.status === 'Waiting') {
    const kind = blocker?.kind ?? 'Concurrency';
    return reason(`${label}: cluster ${first.cluster} waits: ${first.note}${more(open)}`, { ...memberCause(kind, wave, first), until: blocker?.until ?? null });
  }
  return reason(`${label}: cluster ${first.cluster} ${first.status.toLowerCase()}: ${first.note}${more(open)}`, { ...memberCause('Member', wave, first), since: first.permittedAt });
}

function afterWaveReason(d: FleetDraft, rel: FleetRelease, wave: WaveRun, label: string): FleetReason {
  const after = wave.spec.after;
  const from = wave.membersDoneAt ?? rel.startedAt;
  const runs = wave.gates ?? [];
  if (runs.some((r) => r.status === 'Running')) {
    const a = gateRunsText(runs, after.gates);
    return reason(`${label}: released; ${a.text}`, { ...cause('Gate', wave.spec.name, null, a.gate?.lastValue ?? 'first check pending'), since: from });
  }
  const bakeEnds = new Date(Date.parse(from) + after.bakeSeconds * 1000).toISOString();
  const approval = after.approval && wave.approvedBy === null;
  if (d.now.getTime() < Date.parse(bakeEnds)) {
    const then = approval ? `, then approval (rollouts fleet approve ${d.spec.name})` : wave.approvedBy ? ` (approved by ${wave.approvedBy})` : '';
    return reason(`${label}: released; baking until ${instant(bakeEnds)}${then}`, { ...cause('Bake', wave.spec.name, null, `bake of ${after.bakeSeconds}s`), since: from, until: bakeEnds });
  }
  if (approval) {
    return reason(`${label}: released; awaiting approval since ${instant(from)} (rollouts fleet approve ${d.spec.name})`, { ...cause('Approval', wave.spec.name, null, `rollouts fleet approve ${d.spec.name}`), since: from });
  }
  return reason(`${label}: released`, null);
}

function more(members: readonly MemberRun[]): string {
  return members.length > 1 ? `; and ${members.length - 1} more` : '';
}

function reason(message: string, c: FleetCause | null): FleetReason {
  return { message, cause: c };
}

function cause(kind: FleetCauseKind, wave: string | null, cluster: string | null, detail: string, member: Cause | null = null): FleetCause {
  return { kind, wave, cluster, detail, since: null, until: null, member };
}

function memberCause(kind: FleetCauseKind, wave: WaveRun | null, m: MemberRun): FleetCause {
  return cause(kind, wave?.spec.name ?? null, m.cluster, m.note, m.cause);
}
