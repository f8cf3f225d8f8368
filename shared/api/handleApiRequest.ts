// The HTTP API, transport-independent: the Lambda Function URL handler and local mode's HTTP server
// both call handleApiRequest. JSON in and out; errors are {"error": {"message", "issues"?}} with
// 400 (malformed, naming the field), 404, 405, 409, 413, 422 (invalid Rollout) or 503.
import { deleteCluster, getCluster, listClusters, putCluster } from './clusterRoutes.ts';
import { FLEET_VERBS, applyFleet, deleteFleet, fleetCommandRoute, fleetHistory, fleetScope, getFleet, listFleets } from './fleetRoutes.ts';
import { COMMAND_VERBS } from './commandBodies.ts';
import { commandRoute } from './commandRoutes.ts';
import { enforceBodyLimit } from './body.ts';
import { denial, type Scope } from './authorization.ts';
import { HttpError, errorResponse } from './httpError.ts';
import { applyRollout, getRollout, listRollouts, rolloutHistory, rolloutStatus } from './rolloutRoutes.ts';
import { matchRoute, type Route } from './routes.ts';
import type { ApiDeps, ApiRequest, ApiResponse } from './types.ts';
import { rolloutWorkload } from './workloadRoutes.ts';

const ROLLOUT = '/v1/rollouts/:cluster/:namespace/:name';
const FLEET = '/v1/fleets/:name';

export const ROUTES: readonly Route[] = [
  { method: 'GET', pattern: '/v1/rollouts', verb: 'read', handle: listRollouts },
  { method: 'PUT', pattern: ROLLOUT, verb: 'apply', handle: applyRollout },
  { method: 'GET', pattern: ROLLOUT, verb: 'read', handle: getRollout },
  { method: 'DELETE', pattern: ROLLOUT, verb: 'delete', handle: commandRoute('delete') },
  { method: 'GET', pattern: `${ROLLOUT}/status`, verb: 'read', handle: rolloutStatus },
  { method: 'GET', pattern: `${ROLLOUT}/history`, verb: 'read', handle: rolloutHistory },
  { method: 'GET', pattern: `${ROLLOUT}/workload`, verb: 'read', handle: rolloutWorkload },
  ...COMMAND_VERBS.map((verb): Route => ({ method: 'POST', pattern: `${ROLLOUT}/${verb}`, verb, handle: commandRoute(verb) })),
  { method: 'GET', pattern: '/v1/clusters', verb: 'read', handle: listClusters },
  { method: 'PUT', pattern: '/v1/clusters/:name', verb: 'registerCluster', handle: putCluster },
  { method: 'GET', pattern: '/v1/clusters/:name', verb: 'read', handle: getCluster },
  { method: 'DELETE', pattern: '/v1/clusters/:name', verb: 'deregisterCluster', handle: deleteCluster },
  { method: 'GET', pattern: '/v1/fleets', verb: 'read', handle: listFleets },
  { method: 'PUT', pattern: FLEET, verb: 'apply', handle: applyFleet },
  { method: 'GET', pattern: FLEET, verb: 'read', handle: getFleet },
  { method: 'DELETE', pattern: FLEET, verb: 'delete', handle: deleteFleet },
  { method: 'GET', pattern: `${FLEET}/history`, verb: 'read', handle: fleetHistory },
  // skip decides what a member releases: the policy calls it release.
  ...FLEET_VERBS.map((verb): Route => ({ method: 'POST', pattern: `${FLEET}/${verb}`, verb: verb === 'skip' ? 'release' : verb, handle: fleetCommandRoute(verb) })),
];

export async function handleApiRequest(req: ApiRequest, deps: ApiDeps): Promise<ApiResponse> {
  try {
    const { route, params } = matchRoute(ROUTES, req.method, req.path);
    // Before any parsing: an oversized body is refused without being read into a structure.
    enforceBodyLimit(req.body, deps.maxBodyBytes);
    // Before anything is read or written: a principal outside its scope learns nothing and changes nothing.
    const denied = denial(deps.authorization, req.principal, route.verb, scopeOf(route, params, req.query));
    if (denied !== null) throw new HttpError(403, denied);
    return await route.handle({ req, params, deps });
  } catch (err) {
    const { response, unexpected } = errorResponse(err);
    if (unexpected) deps.onError?.(err, req);
    return response;
  }
}

/**
 * Where a request acts: the rollout's cluster and namespace, a cluster's name, a fleet ("fleet:<name>";
 * its members' clusters are checked by the route), or a list's filter (fleets: each is filtered).
 */
function scopeOf(route: Route, params: Record<string, string>, query: Record<string, string>): Scope {
  if (route.pattern.startsWith('/v1/clusters/')) return { cluster: params.name ?? '' };
  if (route.pattern.startsWith('/v1/fleets/')) return { cluster: fleetScope(params.name ?? '') };
  if (route.pattern === '/v1/fleets') return {};
  if (route.pattern === '/v1/rollouts' || route.pattern === '/v1/clusters') {
    return { ...(query.cluster ? { cluster: query.cluster } : {}), ...(query.namespace ? { namespace: query.namespace } : {}) };
  }
  return { cluster: params.cluster ?? '', namespace: params.namespace ?? '' };
}
