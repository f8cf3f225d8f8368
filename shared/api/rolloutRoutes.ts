// Rollout documents: apply (PUT), list, get, status, history. Commands live in commandRoutes.ts.
import { isDeepStrictEqual } from 'node:util';
import pMap from 'p-map';
import { NotFoundError, ValidationError, type FieldIssue } from '../errors.ts';
import type { LoadedRollout, StoredSpec } from '../ports.ts';
import { notYetRunnable } from '../rollout/notYetRunnable.ts';
import { parseRollout } from '../rollout/spec.ts';
import type { RolloutKey, RolloutSpec } from '../rollout/types.ts';
import { denial } from './authorization.ts';
import { rolloutDocument } from './body.ts';
import { requestReconcile } from './enqueue.ts';
import { HttpError, json, unprocessable } from './httpError.ts';
import { listFilter, rolloutKeyParam } from './params.ts';
import type { RouteContext } from './routes.ts';
import type { ApiDeps, ApiResponse, ApplyResponse, GetResponse, HistoryResponse, ListResponse, RolloutSummary } from './types.ts';
import { isBeingDeleted, rolloutSummary, statusView } from './views.ts';
import { rolloutKeyString } from '../rollout/key.ts';
import { driverFor } from '../workloads/registry.ts';

/** Loads of the list route run this many at a time (one Query each). */
const LIST_CONCURRENCY = 8;

export async function applyRollout({ req, params, deps }: RouteContext): Promise<ApiResponse> {
  const key = rolloutKeyParam(params);
  const document = await rolloutDocument(req);
  const spec = parseFor(key, document);
  const issues = [...specIssues(key, spec, deps), ...(await routerIssues(spec))];
  if (issues.length === 0) await requireKnownCluster(deps, key.cluster);
  if (issues.length === 0) issues.push(...(await workloadIssues(key, spec, deps)));
  if (issues.length > 0) throw unprocessable(issues);

  const loaded = await deps.store.load(key);
  if (isBeingDeleted(loaded.state.state)) throw new HttpError(409, `${rolloutKeyString(key)} is being deleted; apply again once it is gone`);
  refuseFleetMember(loaded.spec, 'apply');
  const previous = loaded.spec;
  if (previous && loaded.state.state.release) {
    // As Kruise's validator: the workload and the number of steps are fixed while a release runs
    // (the current step index must keep meaning the same batch); replicas and pauses may change.
    const midRelease: FieldIssue[] = [];
    if (!isDeepStrictEqual(previous.spec.workloadRef, spec.workloadRef)) {
      midRelease.push({ path: 'spec.workloadRef', reason: 'cannot change while a release is in progress (abort it or wait until it ends)' });
    }
    if (previous.spec.steps.length !== spec.steps.length) {
      midRelease.push({ path: 'spec.strategy.canary.steps', reason: `the number of steps (${previous.spec.steps.length}) cannot change while a release is in progress` });
    }
    // Kruise's validateRolloutUpdate: the router and the rolling style are fixed too (the Services,
    // the route and the pods in flight were set up for them; shared/rollout/routing.ts).
    const strategyAt = previous.spec.rollingStyle === 'BlueGreen' ? 'spec.strategy.blueGreen' : 'spec.strategy.canary';
    if (!isDeepStrictEqual(previous.spec.trafficRouting ?? null, spec.trafficRouting ?? null)) {
      midRelease.push({ path: `${strategyAt}.trafficRoutings`, reason: 'cannot change while a release is in progress (abort it or wait until it ends)' });
    }
    if ((previous.spec.rollingStyle ?? 'InPlace') !== (spec.rollingStyle ?? 'InPlace')) {
      midRelease.push({ path: strategyAt, reason: `the rolling style (${previous.spec.rollingStyle ?? 'InPlace'}) cannot change while a release is in progress` });
    }
    if (midRelease.length > 0) throw unprocessable(midRelease);
  }
  if (previous && sameJson(previous.spec, spec) && sameJson(previous.document, document)) {
    await requestReconcile(deps, key);
    return json(200, applied(key, previous.specVersion, true, previous.spec));
  }
  // Conditional on the version read: a concurrent apply makes this a ConflictError (409), not a lost update.
  const specVersion = await deps.store.putSpec(key, spec, document, previous?.specVersion ?? 0);
  deps.onSpecStored?.(key);
  await requestReconcile(deps, key);
  return json(previous ? 200 : 201, applied(key, specVersion, false, spec));
}

/**
 * A fleet's member Rollout is the fleet's (docs/fleet.md, "State model"): nobody applies, deletes,
 * releases or undoes it through the API. Member verbs (approve, pause, resume, abort, retry) stay.
 */
export function refuseFleetMember(stored: StoredSpec | null, verb: string): void {
  if (!stored?.spec.fleet) return;
  const fleet = stored.spec.fleet.name;
  throw new HttpError(409, `${verb} ${rolloutKeyString(stored.spec)}: owned by fleet ${fleet}; change the FleetRollout (rollouts fleet apply, rollouts fleet release ${fleet})`);
}

export async function listRollouts({ req, deps }: RouteContext): Promise<ApiResponse> {
  const keys = await deps.store.listRollouts(listFilter(req.query));
  const summaries: RolloutSummary[] = [];
  const loaded = await pMap(keys, (k) => deps.store.load(k), { concurrency: LIST_CONCURRENCY });
  // A listed key without SPEC is a half-finished delete; it is not a rollout any more.
  for (const l of loaded) {
    // Only what the caller may read is listed (the policy's read scopes).
    if (l.spec && denial(deps.authorization, req.principal, 'read', { cluster: l.spec.spec.cluster, namespace: l.spec.spec.namespace }) === null) {
      summaries.push(rolloutSummary(l.spec.spec, l.state.state));
    }
  }
  const body: ListResponse = { rollouts: summaries };
  return json(200, body);
}

export async function getRollout({ params, deps }: RouteContext): Promise<ApiResponse> {
  const { key, spec, loaded } = await loadExisting(deps, params);
  const body: GetResponse = {
    rollout: key, specVersion: spec.specVersion, spec: spec.spec, document: spec.document, state: loaded.state.state, version: loaded.state.version,
  };
  return json(200, body);
}

export async function rolloutStatus({ params, deps }: RouteContext): Promise<ApiResponse> {
  const { spec, loaded } = await loadExisting(deps, params);
  return json(200, statusView(spec, loaded.state));
}

export async function rolloutHistory({ params, deps }: RouteContext): Promise<ApiResponse> {
  const { key } = await loadExisting(deps, params);
  const body: HistoryResponse = { rollout: key, history: await deps.store.listHistory(key) };
  return json(200, body);
}

/** The rollout named by the path, or 404. */
export async function loadExisting(deps: ApiDeps, params: Record<string, string>): Promise<{ key: RolloutKey; spec: StoredSpec; loaded: LoadedRollout }> {
  const key = rolloutKeyParam(params);
  const loaded = await deps.store.load(key);
  if (!loaded.spec) throw new NotFoundError(`rollout ${rolloutKeyString(key)} not found`);
  return { key, spec: loaded.spec, loaded };
}

function parseFor(key: RolloutKey, document: unknown): RolloutSpec {
  try {
    return parseRollout(document, { cluster: key.cluster, namespace: key.namespace });
  } catch (err) {
    if (err instanceof ValidationError) throw unprocessable(err.issues, err);
    throw err;
  }
}

/** Checks beyond the document itself: it must name what the URL names, and we must have a driver for it. */
function specIssues(key: RolloutKey, spec: RolloutSpec, deps: ApiDeps): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (spec.name !== key.name) issues.push({ path: 'metadata.name', reason: `is "${spec.name}" but the URL names "${key.name}"` });
  if (spec.namespace !== key.namespace) issues.push({ path: 'metadata.namespace', reason: `is "${spec.namespace}" but the URL names "${key.namespace}"` });
  if (!deps.supportedKinds.includes(spec.workloadRef.kind)) issues.push({ path: 'spec.workloadRef.kind', reason: 'not supported yet' });
  issues.push(...notYetRunnable(spec));
  if (deps.partitionRefusal && spec.deploymentStrategy === 'Partition') { // only a Deployment's spec has one
    issues.push({ path: 'spec.deploymentStrategy', reason: `Partition cannot complete here: ${deps.partitionRefusal}` });
  }
  return issues;
}

/** What the Rollout's router cannot do of what its steps ask; the providers load only for a routed Rollout (cold starts). */
async function routerIssues(spec: RolloutSpec): Promise<FieldIssue[]> {
  if (!spec.trafficRouting) return [];
  const { providerIssues } = await import('../traffic/registry.ts');
  return providerIssues(spec);
}

/**
 * What the workload's driver refuses as it stands (a Recreate Deployment), read once from the live
 * cluster. Best effort: without cluster access, or when the read fails or the workload does not
 * exist yet (a GitOps apply may come first), the reconcile reports it as Degraded instead.
 */
async function workloadIssues(key: RolloutKey, spec: RolloutSpec, deps: ApiDeps): Promise<FieldIssue[]> {
  const driver = driverFor(spec.workloadRef.kind);
  const check = driver.applyCheck?.(spec) ?? null;
  if (!deps.clusters || check === null) return [];
  let workload;
  try {
    const client = await deps.clusters.client(key.cluster);
    workload = await client.get({ apiVersion: driver.workload.apiVersion, kind: driver.workload.kind, namespace: key.namespace, name: spec.workloadRef.name });
  } catch {
    return [];
  }
  return workload ? check(workload) : [];
}

/**
 * 404 naming the cluster when this API cannot reach a cluster of that name (local mode: not one it
 * serves; deployed, or local mode with several clusters: not registered, e.g. deregistered), 409
 * when it is leaving. Nothing is stored either way.
 */
async function requireKnownCluster(deps: ApiDeps, cluster: string): Promise<void> {
  if (deps.clusterNames !== undefined && !deps.clusterNames.includes(cluster)) {
    const reason = `cluster "${cluster}" is not registered (this API serves ${deps.clusterNames.map((c) => `"${c}"`).join(', ')})`;
    throw new HttpError(404, reason, { issues: [{ path: 'cluster', reason }] });
  }
  const reg = await deps.store.getCluster(cluster);
  if (reg === null && deps.requireRegisteredCluster) {
    const reason = `cluster "${cluster}" is not registered (PUT /v1/clusters/${cluster} first)`;
    throw new HttpError(404, reason, { issues: [{ path: 'cluster', reason }] });
  }
  // A cluster being deregistered takes no new rollout: it is handing its workloads back (shared/fleet/leave.ts).
  if (reg?.leaving !== undefined) {
    const why = `cluster "${cluster}" is being deregistered (since ${reg.leaving.since}, by ${reg.leaving.by}); register it again (PUT /v1/clusters/${cluster}) to apply rollouts to it`;
    throw new HttpError(409, why, { issues: [{ path: 'cluster', reason: why }] });
  }
}

function applied(key: RolloutKey, specVersion: number, unchanged: boolean, spec: RolloutSpec): ApplyResponse {
  return { rollout: key, specVersion, unchanged, spec };
}

/** Equal as stored: DynamoDB (and the JSON copy of the fake) drop undefined fields. */
function sameJson(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(JSON.parse(JSON.stringify(a ?? null)), JSON.parse(JSON.stringify(b ?? null)));
}

