// Consuming API commands. Each command applies at most once (its id is remembered); a command that
// does not fit the current state is consumed with a "Command Ignored" event rather than kept
// forever, because the user acted on a state that no longer exists.
import type { Draft } from './draft.ts';
import { EVENT } from './events.ts';
import { isMemberOf, permitApplied, permitHeld, permitRefused, revoke } from './fleetGate.ts';
import { APPLIED_COMMAND_MEMORY } from './state.ts';
import type { Command, TemplateChange } from './types.ts';
import { imagesText, undoTarget } from './undo.ts';

/** After changing the pod template: look again this soon. */
const TEMPLATE_SEEN_REQUEUE_SECONDS = 1;

export function applyCommands(d: Draft, commands: Command[]): void {
  const s = d.state;
  // Every command consumed now leaves the pending list, even when more than the memory holds are
  // consumed at once (the earliest would otherwise fall out of the memory, stay pending and be
  // applied again on every pass: soak).
  const consumed = new Set(s.appliedCommandIds);
  for (const cmd of commands) {
    if (consumed.has(cmd.id)) continue;
    // After a template change, the commands behind it wait for the pass that sees it: an undo would
    // otherwise pick its "previous revision" from before the change (the very revision just asked
    // for, rolled to every pod at once: soak), an abort would find no release to abort, and an
    // approval would apply to the release being replaced. One template change per pass.
    if (d.commandActions.some((a) => a.type === 'set-template')) break;
    d.commandId = cmd.id;
    applyOne(d, cmd);
    d.commandId = null;
    consumed.add(cmd.id);
    s.appliedCommandIds = [...s.appliedCommandIds, cmd.id].slice(-APPLIED_COMMAND_MEMORY);
  }
  s.commands = s.commands.filter((c) => !consumed.has(c.id));
}

function applyOne(d: Draft, cmd: Command): void {
  const s = d.state;
  const rel = s.release;
  const ignore = (why: string) => d.emit(EVENT.CommandIgnored, `${cmd.type} by ${cmd.by} ignored: ${why}`, cmd.by);
  switch (cmd.type) {
    case 'pause':
      if (s.userPaused) return ignore('already paused');
      s.userPaused = true;
      d.emit(EVENT.Paused, `paused by ${cmd.by}`, cmd.by);
      return;
    case 'resume':
      if (!s.userPaused) return ignore('not paused');
      s.userPaused = false;
      // Time spent paused does not count against the batch deadline (like DeploymentResumed).
      if (rel && (rel.stepState === 'Upgrading' || rel.stepState === 'Verifying')) rel.stepStartedAt = d.now.toISOString();
      d.emit(EVENT.Resumed, `resumed by ${cmd.by}`, cmd.by);
      return;
    case 'approve': {
      if (!rel || rel.kind !== 'release' || rel.finalizing) return ignore('no release is waiting for approval');
      const step = d.spec.steps[rel.stepIndex];
      if (rel.stepState !== 'StepPaused' || step?.pause.type !== 'approval') {
        return ignore(`step ${rel.stepIndex + 1} is ${rel.stepState}, not awaiting approval`);
      }
      if (cmd.stepIndex !== undefined && cmd.stepIndex !== rel.stepIndex) {
        return ignore(`approval was for step ${cmd.stepIndex + 1}, the release is at step ${rel.stepIndex + 1}`);
      }
      // An approval never carries over to a release that replaced the one it was given for (soak).
      if (cmd.releaseId !== undefined && cmd.releaseId !== rel.id) {
        return ignore(`approval was for release ${cmd.releaseId}; release ${rel.id} is waiting now`);
      }
      rel.stepState = 'StepReady';
      d.emit(EVENT.StepApproved, `step ${rel.stepIndex + 1} approved by ${cmd.by}`, cmd.by);
      return;
    }
    case 'retry':
      if (!rel || rel.failure === null) return ignore('the release has not failed');
      rel.failure = null;
      rel.stepState = 'Upgrading';
      rel.stepStartedAt = d.now.toISOString();
      rel.stepReadyAt = null;
      // A retry gives failed hooks new attempts and the step's gates a fresh analysis.
      if (rel.hooks) rel.hooks = Object.fromEntries(Object.entries(rel.hooks).filter(([, r]) => r.status !== 'Failed'));
      rel.gates = null;
      rel.failedBecause = null;
      d.emit(EVENT.Retried, `step ${rel.stepIndex + 1} retried by ${cmd.by}`, cmd.by);
      return;
    case 'abort':
      if (!rel || rel.kind !== 'release') return ignore('no release in progress');
      s.userPaused = false;
      d.startRelease('rollback', rel.stableRevision, rel.stableRevision, { id: rel.id, endPhase: 'Aborted' });
      d.emit(EVENT.RollbackStarted, `aborted by ${cmd.by}: returning every pod to the stable revision`, cmd.by);
      return;
    case 'undo': {
      // A member's revisions are its fleet's to choose: an undo here would release one no wave permitted.
      if (d.spec.fleet) return ignore(`a member of fleet ${d.spec.fleet.name} goes back with rollouts fleet abort, not undo`);
      const target = undoTarget(s, d.view, cmd.toRevision);
      if (typeof target === 'string') return ignore(target);
      const { revision } = target;
      s.userPaused = false;
      if (target.move === 'through-steps') {
        // No known-good state: its template is put back like a release's change, and the next pass
        // releases it through the Rollout's steps (detectNewRevision), as requested by this user.
        const refusal = changeTemplate(d, cmd, { type: 'revision', revision: revision.id });
        if (refusal !== null) return refuseRequest(d, `undo by ${cmd.by} failed: ${refusal}`, cmd.by);
        d.emit(EVENT.UndoStarted, `undo to revision ${revision.number} (${imagesText(revision.images)}) by ${cmd.by}: it never completed a release, so it goes through the Rollout's steps`, cmd.by);
        return;
      }
      const stable = s.stableRevision ?? d.view.templateRevision;
      d.startRelease('undo', revision.id, stable, { endPhase: 'Completed' });
      d.emit(EVENT.UndoStarted, `undo to revision ${revision.number} (${imagesText(revision.images)}) by ${cmd.by}: it completed a release, every pod moves at once`, cmd.by);
      return;
    }
    case 'delete':
      return; // handled by plan() before any other command
    case 'release': {
      const refusal = changeTemplate(d, cmd, cmd.change, cmd.startAt);
      if (refusal !== null) return refuseRequest(d, `release requested by ${cmd.by} failed: ${refusal}`, cmd.by);
      // Listed under the release it asks for (the next one), not under the one before it.
      d.emit(EVENT.ReleaseRequested, `release requested by ${cmd.by}${cmd.startAt ? `, not before ${cmd.startAt}` : ''}`, cmd.by, d.nextReleaseId());
      return;
    }
    case 'permit': {
      if (!isMemberOf(d.spec, cmd.fleet)) return ignore(`this rollout is not a member of fleet ${cmd.fleet}`);
      if (cmd.change === undefined) return permitHeld(d, cmd, ignore);
      const refusal = changeTemplate(d, cmd, cmd.change);
      if (refusal === null) return permitApplied(d, cmd, cmd.change);
      permitRefused(d, cmd, refusal);
      return refuseRequest(d, `release permitted by fleet ${cmd.fleet} failed: ${refusal}`, cmd.by);
    }
    case 'revoke':
      if (!isMemberOf(d.spec, cmd.fleet)) return ignore(`this rollout is not a member of fleet ${cmd.fleet}`);
      return revoke(d, cmd, ignore);
  }
}

/**
 * Write a requested template change (a `release`, or a fleet's permit that carries one), or say why
 * it cannot be written: the cluster refused it (the pipeline records the apiserver's reason on the
 * command), or it names a container the live template does not have.
 */
function changeTemplate(d: Draft, cmd: { by: string; refusal?: string | undefined }, change: TemplateChange, startAt?: string): string | null {
  const s = d.state;
  const refusal = cmd.refusal ?? unknownContainers(d, change);
  // The cluster will not take this template (or no longer has the container): the request fails
  // now, with the reason, rather than jamming every later pass (issue 13).
  if (refusal !== null) return refusal;
  s.scheduledStartAt = startAt ?? null;
  s.requestedBy = cmd.by;
  // A rollback or undo that has not put its template back yet would overwrite this change with
  // it: the new template wins, and the next pass starts its release (detectNewRevision).
  if (s.release && !s.release.templateSet) s.release.templateSet = true;
  d.commandActions.push({ type: 'set-template', change });
  // The new template is seen by the next pass; do not count on its watch event alone (a rollout
  // applied a moment ago may not be watched yet).
  d.requeue(TEMPLATE_SEEN_REQUEUE_SECONDS);
  return null;
}

function refuseRequest(d: Draft, text: string, by: string): void {
  d.state.refusal = text;
  d.state.phase = 'Failed';
  d.emit(EVENT.ReleaseFailed, text, by);
}

/**
 * An image change naming a container the live template does not have would ADD a container (a
 * strategic merge by name); `kubectl set image` refuses it, and so do we. The API checks it when
 * the command is given; this catches a template that changed in between.
 */
function unknownContainers(d: Draft, change: TemplateChange): string | null {
  if (change.type !== 'images') return null;
  const live = d.view.revisions.find((r) => r.id === d.view.templateRevision)?.images;
  if (!live) return null;
  const unknown = Object.keys(change.images).filter((c) => !(c in live));
  if (unknown.length === 0) return null;
  return `container${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} not found in the live pod template (containers: ${Object.keys(live).join(', ') || 'none'})`;
}
