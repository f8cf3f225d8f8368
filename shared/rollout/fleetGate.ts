// The member side of a fleet release (docs/fleet.md): a Rollout whose spec names a fleet starts
// moving pods for a new template only under a permit of that fleet. Whoever changed the template
// (the fleet's own permit, a GitOps sync in every cluster at once, kubectl), the release is held,
// with the workload already held, until a permit names it; so nothing depends on the fleet arriving
// in time. A permit is recorded on STATE with what came of it, which is what the fleet reads; a
// revoke returns the member to the revision it ran before the fleet release. Pure, like plan().
import { imagesOf, type Draft } from './draft.ts';
import { EVENT } from './events.ts';
import type { Command, Permit, PermitRecord, Release, RolloutSpec, TemplateChange } from './types.ts';

type PermitCommand = Extract<Command, { type: 'permit' }>;
type RevokeCommand = Extract<Command, { type: 'revoke' }>;

/** A release of a fleet member that its fleet has not permitted: it moves no pod. */
export function isHeldForFleet(spec: RolloutSpec, rel: Release): boolean {
  return spec.fleet != null && rel.kind === 'release' && !rel.permit;
}

/** The release does not move pods while held; the first pass that holds it says so once. */
export function holdForFleet(d: Draft, rel: Release): boolean {
  if (!isHeldForFleet(d.spec, rel)) return false;
  if (!rel.gated) {
    // `gated` also makes the permit's pass restart the batch deadline: holding is not failing to progress.
    rel.gated = true;
    d.emit(EVENT.WaitingForFleet, `revision ${rel.targetRevision} is held until fleet ${d.spec.fleet?.name ?? ''} permits it`);
  }
  return true;
}

export function isMemberOf(spec: RolloutSpec, fleet: string): boolean {
  return spec.fleet?.name === fleet;
}

function record(d: Draft, cmd: PermitCommand, status: PermitRecord['status'], extra: Partial<PermitRecord> = {}): PermitRecord {
  const p: PermitRecord = { id: cmd.id, fleet: cmd.fleet, fleetRelease: cmd.fleetRelease, status, releaseId: null, images: null, reason: null, at: d.now.toISOString(), ...extra };
  d.state.permit = p;
  return p;
}

/** A permit whose change was written to the template (commands.ts did): bound by the pass that sees it. */
export function permitApplied(d: Draft, cmd: PermitCommand, change: TemplateChange): void {
  record(d, cmd, 'Applied', { images: change.type === 'images' ? { ...change.images } : null });
  d.emit(EVENT.ReleasePermitted, `fleet ${cmd.fleet} permits its change (fleet release ${cmd.fleetRelease}); it starts once the new template is seen`, cmd.by);
}

/** A permit whose change the cluster refused (commands.ts failed the request with the reason). */
export function permitRefused(d: Draft, cmd: PermitCommand, reason: string): void {
  record(d, cmd, 'Refused', { reason });
}

/** A permit for the template the member holds: it binds when that is still the release held. */
export function permitHeld(d: Draft, cmd: PermitCommand, ignore: (why: string) => void): void {
  const rel = d.state.release;
  if (!rel || rel.kind !== 'release' || rel.targetRevision !== cmd.revision) {
    const held = rel && rel.kind === 'release' ? `revision ${rel.targetRevision} is` : 'no release is';
    const why = `the permit is for revision ${cmd.revision ?? '(none)'} but ${held} held now`;
    record(d, cmd, 'Stale', { reason: why });
    return ignore(why);
  }
  bind(d, rel, cmd);
  record(d, cmd, 'Bound', { releaseId: rel.id });
  d.emit(EVENT.ReleasePermitted, `fleet ${cmd.fleet} permits release ${rel.id} of revision ${rel.targetRevision} (fleet release ${cmd.fleetRelease})`, cmd.by);
}

function bind(_d: Draft, rel: Release, p: Permit): void {
  rel.permit = { id: p.id, fleet: p.fleet, fleetRelease: p.fleetRelease };
}

/**
 * After detection, in a pass that wrote no template: an Applied permit binds to the release of the
 * template it wrote, or, when the template did not change, tells its fleet there is nothing to
 * release. Only once the workload's controller has observed its spec: before that a changed
 * template may still read as the old revision (a StatefulSet's update revision), and "no change"
 * would open the fleet's next wave on a member that has not released.
 */
export function settlePermit(d: Draft): void {
  const s = d.state;
  const p = s.permit;
  const rel = s.release;
  if (p?.status === 'Bound' && rel && rel.id !== p.releaseId && isHeldForFleet(d.spec, rel) && s.lastRelease?.id !== p.releaseId) {
    // A new template replaced the permitted release before it finished: the permit is spent.
    p.status = 'Stale';
    p.reason = `release ${p.releaseId ?? ''} under it was replaced by revision ${rel.targetRevision}, which waits for a new permit`;
    return;
  }
  if (!p || p.status !== 'Applied') return;
  if (rel === null) {
    if (!d.view.observed) return d.requeue(OBSERVE_REQUEUE_SECONDS);
    p.status = 'NoChange';
    p.at = d.now.toISOString();
    d.emit(EVENT.NothingToRelease, `fleet ${p.fleet}'s change leaves the pod template as it is: nothing to release (fleet release ${p.fleetRelease})`);
    return;
  }
  if (rel.kind !== 'release' || rel.targetRevision !== d.view.templateRevision) return;
  const mismatch = imagesMismatch(p.images, rel.images);
  if (mismatch !== null) {
    p.status = 'Stale';
    p.reason = `the template changed before fleet ${p.fleet}'s change was seen (${mismatch})`;
    d.emit(EVENT.PermitLapsed, `${p.reason}: revision ${rel.targetRevision} waits for a new permit`);
    return;
  }
  bind(d, rel, p);
  p.status = 'Bound';
  p.releaseId = rel.id;
  d.emit(EVENT.ReleasePermitted, `release ${rel.id} of revision ${rel.targetRevision} runs under fleet ${p.fleet}'s permit (fleet release ${p.fleetRelease})`);
}

const OBSERVE_REQUEUE_SECONDS = 1;

/** "app runs nginx:1.27, not nginx:1.28", or null when the images agree (or cannot be told). */
export function imagesMismatch(wanted: Record<string, string> | null | undefined, actual: Record<string, string> | null | undefined): string | null {
  if (!wanted || !actual || Object.keys(actual).length === 0) return null;
  const wrong = Object.entries(wanted).filter(([c, image]) => actual[c] !== image);
  if (wrong.length === 0) return null;
  return wrong.map(([c, image]) => `${c} runs ${actual[c] ?? 'nothing'}, not ${image}`).join('; ');
}

/**
 * Back to the revision the member ran before fleet release `fleetRelease`: a release under it (or
 * held for a permit) is aborted, a change written but not yet seen is put back, a release it
 * completed is rolled back to that release's stable revision. The rollback carries the fleet's
 * permit, so the fleet knows it for its own.
 */
export function revoke(d: Draft, cmd: RevokeCommand, ignore: (why: string) => void): void {
  const s = d.state;
  const rel = s.release;
  const last = s.lastRelease;
  const p = s.permit;
  const permit: Permit = { id: cmd.id, fleet: cmd.fleet, fleetRelease: cmd.fleetRelease };
  const why = `fleet ${cmd.fleet} rolls back fleet release ${cmd.fleetRelease}`;
  if (rel && rel.kind !== 'release') return ignore(`${rel.kind} ${rel.id} already returns to revision ${rel.targetRevision}`);
  if (rel && rel.permit && rel.permit.fleetRelease !== cmd.fleetRelease) return ignore(`release ${rel.id} runs under fleet release ${rel.permit.fleetRelease}`);
  if (p && p.fleetRelease === cmd.fleetRelease && p.status === 'Applied') p.status = 'Revoked';
  const start = (target: string, stable: string, id?: string) => {
    s.userPaused = false;
    const back = d.startRelease('rollback', target, stable, { ...(id === undefined ? {} : { id }), endPhase: 'Aborted' });
    back.permit = permit;
    d.emit(EVENT.RollbackStarted, `${why}: returning every pod to revision ${target}`, cmd.by);
  };
  if (rel) return start(rel.stableRevision, rel.stableRevision, rel.id);
  if (p?.status === 'Revoked' && p.fleetRelease === cmd.fleetRelease && s.stableRevision !== null) return start(s.stableRevision, s.stableRevision);
  if (last && last.kind === 'release' && last.endPhase === 'Completed' && last.permit?.fleetRelease === cmd.fleetRelease && s.stableRevision === last.targetRevision) {
    return start(last.stableRevision, last.targetRevision);
  }
  ignore(`nothing of fleet release ${cmd.fleetRelease} to roll back`);
}

/** A member records the images of its stable revision: its fleet tells by them that it already runs a release's images. */
export function recordStableImages(d: Draft, revision: string): void {
  if (!d.spec.fleet) return;
  const images = imagesOf(d.view, revision);
  d.state.stableImages = Object.keys(images).length > 0 ? images : null;
}
