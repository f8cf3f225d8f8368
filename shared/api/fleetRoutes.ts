// FleetRollouts (docs/fleet.md, "What phase B builds"): PUT/GET/DELETE /v1/fleets/{name},
// GET /v1/fleets, POST /v1/fleets/{name}/{release|approve|pause|resume|abort|skip} and
// GET /v1/fleets/{name}/history. An apply is validated by parseFleetRollout (every field with its
// reason) and then against the clusters registered now (placementIssues): 422, nothing stored. A
// verb's body is checked first (400), then the fleet's own state (fleetCommandProblem: 409), then it
// is recorded once by id and the fleet's pass queued. Authorization: the route's verb on the fleet
// (scope cluster "fleet:<name>", handleApiRequest.ts), and the same verb on every member's cluster
// and namespace it reaches (an apply: the clusters it selects).
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import pMap from 'p-map';
import { CommandRejectedError, NotFoundError, ValidationError } from '../errors.ts';
import { selectableClusters, type ClusterInfo } from '../fleet/clusters.ts';
import { fleetCommandProblem } from '../fleet/commands.ts';
import { memberKey } from '../fleet/member.ts';
import { parseFleetRollout } from '../fleet/parse.ts';
import { fleetClusters, placementIssues } from '../fleet/placement.ts';
import { allMembers, isDuplicateFleetCommand } from '../fleet/state.ts';
import type { FleetCommand, FleetSpec, FleetState } from '../fleet/types.ts';
import type { HistoryEntry, LoadedFleet } from '../ports.ts';
import { denial, type ApiVerb } from './authorization.ts';
import { jsonBody, rolloutDocument } from './body.ts';
import { FLEET_VERBS, parseFleetCommand, type FleetVerb } from './fleetCommandBodies.ts';
import { HttpError, badRequest, json, unprocessable } from './httpError.ts';
import type { RouteContext } from './routes.ts';
import type { ApiDeps, ApiResponse, RolloutSummary } from './types.ts';
import { rolloutSummary } from './views.ts';

export { FLEET_VERBS };

/** The policy's scope of a fleet: rules name it as a cluster "fleet:<name>". */
export function fleetScope(name: string): string {
  return `fleet:${name}`;
}

/** Member loads in flight at once. */
const LOAD_CONCURRENCY = 8;

export interface FleetSummary {
  name: string;
  workload: FleetSpec['workload'];
  phase: FleetState['phase'];
  message: string;
  releaseId: string | null;
}

export interface FleetGetResponse {
  fleet: string;
  spec: FleetSpec;
  document: unknown;
  specVersion: number;
  state: FleetState;
  version: number;
  /** Each member Rollout as its own reconcile left it (what `fleet get` draws in the waves × clusters grid). */
  members: (RolloutSummary & { cluster: string })[];
}

export interface FleetApplyResponse {
  fleet: string;
  specVersion: number;
  unchanged: boolean;
  /** The clusters it selects now, in the waves their labels put them in. */
  clusters: string[];
}

export interface FleetHistoryResponse {
  fleet: string;
  history: HistoryEntry[];
}

export interface FleetCommandResponse {
  fleet: string;
  commandId: string;
  duplicate: boolean;
  command?: FleetCommand;
}

function fleetName(params: Record<string, string>): string {
  const name = params.name ?? '';
  if (!/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(name)) throw badRequest([{ path: 'name', reason: 'must be a FleetRollout name (a DNS-1123 subdomain)' }]);
  return name;
}

async function registered(deps: ApiDeps): Promise<ClusterInfo[]> {
  return selectableClusters(await deps.store.listClusters());
}

/** 403 unless the caller may `verb` in every member cluster and namespace. */
function requireOnMembers(deps: ApiDeps, principal: string, verb: ApiVerb, namespace: string, clusters: readonly string[]): void {
  for (const cluster of clusters) {
    const denied = denial(deps.authorization, principal, verb, { cluster, namespace });
    if (denied !== null) throw new HttpError(403, `${denied}: a fleet's ${verb} acts on its member there`);
  }
}

export async function applyFleet({ req, params, deps }: RouteContext): Promise<ApiResponse> {
  const name = fleetName(params);
  const document = await rolloutDocument(req);
  let spec: FleetSpec;
  try {
    spec = parseFleetRollout(document);
  } catch (err) {
    if (err instanceof ValidationError) throw unprocessable(err.issues, err);
    throw err;
  }
  if (spec.name !== name) throw unprocessable([{ path: 'metadata.name', reason: `is "${spec.name}" but the URL names "${name}"` }]);
  const kinds = deps.supportedKinds;
  if (!kinds.includes(spec.workload.kind)) throw unprocessable([{ path: 'spec.workload.kind', reason: `${spec.workload.kind} is not served by this deployment (supported: ${kinds.join(', ')})` }]);
  const clusters = await registered(deps);
  const issues = placementIssues(spec, clusters);
  if (issues.length > 0) throw unprocessable(issues);
  const selected = fleetClusters(spec, clusters).map((c) => c.name);
  requireOnMembers(deps, req.principal, 'apply', spec.workload.namespace, selected);
  // A Rollout already managing the workload in a selected cluster (not this fleet's member) makes the apply fail there.
  const claimed = (await pMap(selected, async (cluster) => ({ cluster, loaded: await deps.store.load(memberKey(spec, cluster)) }), { concurrency: LOAD_CONCURRENCY }))
    .filter(({ loaded }) => loaded.spec !== null && loaded.spec.spec.fleet?.name !== name);
  if (claimed.length > 0) {
    throw new HttpError(409, `a Rollout ${spec.workload.namespace}/${name} that no fleet owns exists in ${claimed.map((c) => `cluster ${c.cluster}`).join(', ')}: delete it first, or name the fleet otherwise`);
  }

  const loaded = await deps.store.loadFleet(name);
  const previous = loaded.spec;
  if (previous && sameJson(previous.spec, spec) && sameJson(previous.document, document)) {
    await requestFleetPass(deps, name);
    return json(200, applied(name, previous.specVersion, true, selected));
  }
  if (previous && !sameJson(previous.spec.workload, spec.workload)) {
    throw unprocessable([{ path: 'spec.workload', reason: `cannot change (it is ${previous.spec.workload.kind} ${previous.spec.workload.namespace}/${previous.spec.workload.name}): delete the FleetRollout and apply it again` }]);
  }
  const specVersion = await deps.store.putFleetSpec(name, spec, document, previous?.specVersion ?? 0);
  await requestFleetPass(deps, name);
  return json(previous ? 200 : 201, applied(name, specVersion, false, selected));
}

function applied(fleet: string, specVersion: number, unchanged: boolean, clusters: string[]): FleetApplyResponse {
  return { fleet, specVersion, unchanged, clusters };
}

async function loadFleet(deps: ApiDeps, name: string): Promise<LoadedFleet & { spec: NonNullable<LoadedFleet['spec']> }> {
  const loaded = await deps.store.loadFleet(name);
  if (!loaded.spec) throw new NotFoundError(`fleet ${name} not found`);
  return loaded as LoadedFleet & { spec: NonNullable<LoadedFleet['spec']> };
}

/** The member clusters a fleet reaches now: those of its release (or its last), and those it selects. */
async function memberClusters(deps: ApiDeps, spec: FleetSpec, state: FleetState): Promise<string[]> {
  const inRelease = [state.release, state.lastRelease].flatMap((r) => (r ? allMembers(r).map((m) => m.cluster) : []));
  return [...new Set([...inRelease, ...fleetClusters(spec, await registered(deps)).map((c) => c.name)])].sort();
}

export async function getFleet({ params, deps }: RouteContext): Promise<ApiResponse> {
  const name = fleetName(params);
  const loaded = await loadFleet(deps, name);
  const clusters = await memberClusters(deps, loaded.spec.spec, loaded.state.state);
  const members = (await pMap(clusters, async (cluster) => ({ cluster, m: await deps.store.load(memberKey(loaded.spec.spec, cluster)) }), { concurrency: LOAD_CONCURRENCY }))
    .filter(({ m }) => m.spec !== null && m.spec.spec.fleet?.name === name)
    .map(({ cluster, m }) => ({ cluster, ...rolloutSummary(m.spec!.spec, m.state.state) }));
  const out: FleetGetResponse = {
    fleet: name, spec: loaded.spec.spec, document: loaded.spec.document, specVersion: loaded.spec.specVersion,
    state: loaded.state.state, version: loaded.state.version, members,
  };
  return json(200, out);
}

export async function listFleets({ req, deps }: RouteContext): Promise<ApiResponse> {
  const names = (await deps.store.listFleets()).filter((n) => denial(deps.authorization, req.principal, 'read', { cluster: fleetScope(n) }) === null);
  const fleets: FleetSummary[] = [];
  for (const l of await pMap(names, async (n) => ({ n, l: await deps.store.loadFleet(n) }), { concurrency: LOAD_CONCURRENCY })) {
    if (!l.l.spec) continue;
    const s = l.l.state.state;
    fleets.push({ name: l.n, workload: l.l.spec.spec.workload, phase: s.phase, message: s.message, releaseId: s.release?.id ?? s.lastRelease?.id ?? null });
  }
  return json(200, { fleets });
}

export async function fleetHistory({ params, deps }: RouteContext): Promise<ApiResponse> {
  const name = fleetName(params);
  await loadFleet(deps, name);
  const out: FleetHistoryResponse = { fleet: name, history: await deps.store.listFleetHistory(name) };
  return json(200, out);
}

/**
 * Deleting a fleet asks each of its members to go (each hands its workload back as a deleted
 * Rollout does), then removes the fleet. Refused while a fleet release runs or rolls back: abort it,
 * or wait for it to end, first.
 */
export async function deleteFleet({ req, params, deps }: RouteContext): Promise<ApiResponse> {
  const name = fleetName(params);
  const loaded = await loadFleet(deps, name);
  const rel = loaded.state.state.release;
  if (rel !== null) throw new CommandRejectedError(`delete fleet ${name}: fleet release ${rel.id} is ${rel.state === 'RollingBack' ? 'rolling back' : 'in progress'}: abort it (rollouts fleet abort ${name}) or wait for it to end`);
  const spec = loaded.spec.spec;
  const clusters = await memberClusters(deps, spec, loaded.state.state);
  requireOnMembers(deps, req.principal, 'delete', spec.workload.namespace, clusters);
  const at = deps.clock.now().toISOString();
  const removed: string[] = [];
  for (const cluster of clusters) {
    const key = memberKey(spec, cluster);
    const member = await deps.store.load(key);
    if (member.spec?.spec.fleet?.name !== name) continue;
    await deps.store.recordCommand(key, { type: 'delete', id: `fleet-${name}-delete-${loaded.spec.specVersion}`, at, by: req.principal });
    await deps.queue.enqueue(key, { reason: 'api' });
    removed.push(cluster);
  }
  await deps.store.deleteFleet(name);
  return json(202, { fleet: name, deleted: true, members: removed });
}

/** The policy verb of a fleet verb on the members it reaches (`skip` decides what a member releases). */
export function memberVerb(verb: FleetVerb): ApiVerb {
  return verb === 'skip' ? 'release' : verb;
}

export function fleetCommandRoute(verb: FleetVerb): (ctx: RouteContext) => Promise<ApiResponse> {
  return async ({ req, params, deps }) => {
    const name = fleetName(params);
    const parsed = parseFleetCommand(verb, jsonBody(req));
    const loaded = await loadFleet(deps, name);
    const state = loaded.state.state;
    if (parsed.commandId !== undefined && isDuplicateFleetCommand(state, parsed.commandId)) {
      await requestFleetPass(deps, name);
      return json(200, { fleet: name, commandId: parsed.commandId, duplicate: true } satisfies FleetCommandResponse);
    }
    const problem = fleetCommandProblem(state, parsed.body);
    if (problem) throw new HttpError(409, `${verb} fleet ${name}: ${problem.reason}`, { issues: [{ path: problem.field, reason: problem.reason }] });
    const spec = loaded.spec.spec;
    requireOnMembers(deps, req.principal, memberVerb(verb), spec.workload.namespace, await memberClusters(deps, spec, state));
    if (parsed.body.type === 'approve' && deps.authorization?.fourEyes && state.release?.requestedBy === req.principal) {
      throw new HttpError(403, `approve fleet ${name}: four-eyes rule: ${req.principal} requested fleet release ${state.release.id} and may not approve it; another principal must`);
    }
    // An approval is for the fleet release waiting now, never for one that replaces it later.
    const body = parsed.body.type === 'approve' && state.release && parsed.body.releaseId === undefined ? { ...parsed.body, releaseId: state.release.id } : parsed.body;
    const command = { ...body, id: parsed.commandId ?? (deps.newId ?? randomUUID)(), at: deps.clock.now().toISOString(), by: req.principal } as FleetCommand;
    const outcome = await deps.store.recordFleetCommand(name, command);
    await requestFleetPass(deps, name);
    if (outcome === 'duplicate') return json(200, { fleet: name, commandId: command.id, duplicate: true } satisfies FleetCommandResponse);
    return json(202, { fleet: name, commandId: command.id, duplicate: false, command } satisfies FleetCommandResponse);
  };
}

async function requestFleetPass(deps: ApiDeps, name: string): Promise<void> {
  try {
    await deps.queue.enqueue({ fleet: name }, { reason: 'api' });
  } catch (err) {
    throw new HttpError(503, `stored, but the fleet's pass could not be queued (${err instanceof Error ? err.message : String(err)}); repeating the request is safe`, { cause: err });
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(JSON.parse(JSON.stringify(a ?? null)), JSON.parse(JSON.stringify(b ?? null)));
}
