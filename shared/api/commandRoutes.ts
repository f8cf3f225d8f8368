// Commands: POST /v1/rollouts/{c}/{ns}/{name}/{verb} and DELETE /v1/rollouts/{c}/{ns}/{name}.
// A command is recorded on STATE with its id (client-supplied or generated) and a reconcile is
// queued; the planner applies it once. A repeated id answers 200 {duplicate: true} and changes nothing.
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { isDuplicateCommand } from '../rollout/state.ts';
import { CommandRejectedError } from '../errors.ts';
import type { Command, CommandBody, RolloutKey, WorkloadRef } from '../rollout/types.ts';
import { driverFor } from '../workloads/registry.ts';
import { jsonBody } from './body.ts';
import { parseCommand, type CommandVerb } from './commandBodies.ts';
import { requestReconcile } from './enqueue.ts';
import { HttpError, json, unprocessable } from './httpError.ts';
import { checkAgainstLiveWorkload } from './liveChecks.ts';
import { commandRejection } from './preconditions.ts';
import type { RouteContext } from './routes.ts';
import { loadExisting, refuseFleetMember } from './rolloutRoutes.ts';
import type { ApiResponse, CommandResponse } from './types.ts';
import { rolloutKeyString } from '../rollout/key.ts';

/**
 * Commands waiting in STATE at most (a delete is always taken). They wait only while passes fail
 * (an unreachable cluster); without a bound, a CI loop retrying meanwhile would grow STATE towards
 * DynamoDB's 400 KB item limit, and the first pass back would apply a pile of stale requests.
 */
export const MAX_PENDING_COMMANDS = 20;
const PENDING_RETRY_AFTER_SECONDS = 5;

export function commandRoute(verb: CommandVerb | 'delete'): (ctx: RouteContext) => Promise<ApiResponse> {
  return async ({ req, params, deps }) => {
    // The body is checked before the store is read: a malformed request costs nothing.
    const parsed = parseCommand(verb, jsonBody(req));
    const { key, spec, loaded } = await loadExisting(deps, params);
    // A member's revisions and its existence are its fleet's.
    if (verb === 'delete' || verb === 'release' || verb === 'undo') refuseFleetMember(spec, verb);
    const state = loaded.state.state;
    // A retried request whose first attempt went through is a duplicate, even if the state has
    // moved on since (the approval was consumed): answer as the first attempt did, not 409.
    if (parsed.commandId !== undefined && isDuplicateCommand(state, parsed.commandId)) {
      const reuse = idReusedFor(state.commands, parsed.commandId, parsed.body);
      if (reuse) throw new HttpError(409, `${verb} ${rolloutKeyString(key)}: commandId ${reuse}`, { issues: [{ path: 'commandId', reason: reuse }] });
      await requestReconcile(deps, key);
      return json(200, duplicate(key, parsed.commandId));
    }
    if (parsed.body.type !== 'delete' && state.commands.length >= MAX_PENDING_COMMANDS) {
      throw new HttpError(429, `${verb} ${rolloutKeyString(key)}: ${state.commands.length} commands are already waiting for the reconciler; send this one again once they are applied`, { headers: { 'retry-after': String(PENDING_RETRY_AFTER_SECONDS) } });
    }
    const rejection = commandRejection(parsed.body, spec.spec, state);
    if (rejection) throw new CommandRejectedError(`${verb} ${rolloutKeyString(key)}: ${rejection}`);
    if (parsed.body.type === 'release' && parsed.body.change.type === 'templatePatch' && !driverFor(spec.spec.workloadRef.kind).acceptsTemplatePatch) {
      throw unprocessable([{ path: 'templatePatch', reason: `is a strategic merge patch, which the apiserver refuses for a ${spec.spec.workloadRef.kind} (a custom resource): give images, or change the template with kubectl` }], undefined, 'command refused');
    }
    if (parsed.body.type === 'approve' && deps.authorization?.fourEyes && state.release?.requestedBy === req.principal) {
      throw new HttpError(403, `approve ${rolloutKeyString(key)}: four-eyes rule: ${req.principal} requested release ${state.release.id} and may not approve it; another principal must`);
    }
    const undo = await checkAgainstLiveWorkload(deps, key, spec.spec.workloadRef, parsed.body, state);
    if (parsed.dryRun) return json(200, { rollout: key, commandId: parsed.commandId ?? '', duplicate: false, dryRun: true, undo } satisfies CommandResponse);
    // An approval is for the release waiting now (checked above), never for one that replaces it later;
    // an undo goes where this answer says it goes (its revision pinned), not wherever it would later.
    const recorded = parsed.body.type === 'approve' && state.release ? { ...parsed.body, releaseId: state.release.id }
      : parsed.body.type === 'undo' && undo !== null && undo.revision > 0 ? { ...parsed.body, toRevision: undo.revision } : parsed.body;

    const command = { ...recorded, id: parsed.commandId ?? (deps.newId ?? randomUUID)(), at: deps.clock.now().toISOString(), by: req.principal } as Command;
    const outcome = await deps.store.recordCommand(key, command);
    await requestReconcile(deps, key);
    if (outcome === 'duplicate') return json(200, duplicate(key, command.id));
    const body: CommandResponse = { rollout: key, commandId: command.id, duplicate: false, command, ...(verb === 'undo' ? { undo } : {}) };
    if (verb === 'delete') body.handBack = await handBackOf(deps, key, spec.spec.workloadRef);
    return json(202, body);
  };
}

/** What the hand-back of a deleted rollout restores, from the live workload (best effort: a read failure is not the user's problem). */
async function handBackOf(deps: RouteContext['deps'], key: RolloutKey, ref: WorkloadRef): Promise<CommandResponse['handBack']> {
  const driver = driverFor(ref.kind);
  if (!deps.clusters || !driver.handBackSummary) return null;
  try {
    const client = await deps.clusters.client(key.cluster);
    const workload = await client.get({ apiVersion: driver.workload.apiVersion, kind: driver.workload.kind, namespace: key.namespace, name: ref.name });
    return workload ? { workload: `${ref.kind} ${key.namespace}/${ref.name}`, restores: driver.handBackSummary(workload) } : null;
  } catch {
    return null;
  }
}

/**
 * An idempotency key sent again with another command is a mistake, not a retry: answering
 * "duplicate" would drop the second command silently (an abort lost behind a pause). Only a command
 * still pending can be compared; a consumed id keeps just its id (STATE.appliedCommandIds).
 */
function idReusedFor(pending: readonly Command[], id: string, body: CommandBody): string | null {
  const first = pending.find((c) => c.id === id);
  if (!first) return null;
  const { id: _id, at: _at, by: _by, ...firstBody } = first;
  // What the API added when it recorded the first (an approval's release) is not the client's to repeat.
  const added = body.type === 'approve' && body.releaseId === undefined ? { releaseId: undefined } : {};
  if (isDeepStrictEqual(JSON.parse(JSON.stringify({ ...firstBody, ...added })), JSON.parse(JSON.stringify(body)))) return null;
  const what = first.type === body.type ? `another ${first.type} command` : `a ${first.type} command`;
  return `"${id}" was already used for ${what} (recorded ${first.at}); send this one with a new id`;
}

function duplicate(rollout: CommandResponse['rollout'], commandId: string): CommandResponse {
  return { rollout, commandId, duplicate: true };
}
