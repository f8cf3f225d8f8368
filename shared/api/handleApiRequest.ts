// The HTTP API, transport-independent: the Lambda Function URL handler and local mode's HTTP server
// both call handleApiRequest. JSON in and out; errors are {"error": {"message", "issues"?}} with
// 400 (malformed, naming the field), 404, 405, 409, 413, 422 (invalid Rollout) or 503.
import { getCluster, listClusters, putCluster } from './clusterRoutes.ts';
import { COMMAND_VERBS } from './commandBodies.ts';
import { commandRoute } from './commandRoutes.ts';
import { enforceBodyLimit } from './body.ts';
import { errorResponse } from './httpError.ts';
import { applyRollout, getRollout, listRollouts, rolloutHistory, rolloutStatus } from './rolloutRoutes.ts';
import { matchRoute, type Route } from './routes.ts';
import type { ApiDeps, ApiRequest, ApiResponse } from './types.ts';
import { rolloutWorkload } from './workloadRoutes.ts';

const ROLLOUT = '/v1/rollouts/:cluster/:namespace/:name';

export const ROUTES: readonly Route[] = [
  { method: 'GET', pattern: '/v1/rollouts', handle: listRollouts },
  { method: 'PUT', pattern: ROLLOUT, handle: applyRollout },
  { method: 'GET', pattern: ROLLOUT, handle: getRollout },
  { method: 'DELETE', pattern: ROLLOUT, handle: commandRoute('delete') },
  { method: 'GET', pattern: `${ROLLOUT}/status`, handle: rolloutStatus },
  { method: 'GET', pattern: `${ROLLOUT}/history`, handle: rolloutHistory },
  { method: 'GET', pattern: `${ROLLOUT}/workload`, handle: rolloutWorkload },
  ...COMMAND_VERBS.map((verb): Route => ({ method: 'POST', pattern: `${ROLLOUT}/${verb}`, handle: commandRoute(verb) })),
  { method: 'GET', pattern: '/v1/clusters', handle: listClusters },
  { method: 'PUT', pattern: '/v1/clusters/:name', handle: putCluster },
  { method: 'GET', pattern: '/v1/clusters/:name', handle: getCluster },
];

export async function handleApiRequest(req: ApiRequest, deps: ApiDeps): Promise<ApiResponse> {
  try {
    const { route, params } = matchRoute(ROUTES, req.method, req.path);
    // Before any parsing: an oversized body is refused without being read into a structure.
    enforceBodyLimit(req.body, deps.maxBodyBytes);
    return await route.handle({ req, params, deps });
  } catch (err) {
    const { response, unexpected } = errorResponse(err);
    if (unexpected) deps.onError?.(err, req);
    return response;
  }
}
