// API function: Lambda Function URL (IAM auth) → the transport-independent API core.
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, LambdaFunctionURLEventWithIAMAuthorizer, LambdaFunctionURLResult } from 'aws-lambda';
import { handleApiRequest } from '../../shared/api/handleApiRequest.ts';
import { json } from '../../shared/api/httpError.ts';
import type { CoreDeps } from '../../shared/app/coreDeps.ts';
import { createObservability, withMeteredRequests, type Observability } from '../../shared/app/observability.ts';
import { isApiResponse, toApiRequest, toFunctionUrlResult } from './functionUrlEvent.ts';

export type ApiHandlerDeps = Pick<CoreDeps, 'api' | 'meter'>;

export function createApiHandler(deps: ApiHandlerDeps, obs: Observability = createObservability('rollouts-api')) {
  const { logger, metrics } = obs;
  const api = { ...deps.api, onError: (err: unknown) => logger.error('unexpected API failure', err instanceof Error ? err : String(err)) };
  // Just before the Lambda timeout: a JSON 503 instead of the Function URL's bare 502.
  const timedOut = () => toFunctionUrlResult(json(503, { error: { message: 'the request timed out; it may or may not have been applied, and repeating it is safe' } }));
  return middy<LambdaFunctionURLEventWithIAMAuthorizer, LambdaFunctionURLResult, Error, Context>({ timeoutEarlyResponse: timedOut })
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics, { captureColdStartMetric: true }))
    .handler(async (event) => {
      const req = toApiRequest(event, api.maxBodyBytes);
      const res = isApiResponse(req) ? req : await withMeteredRequests(deps.meter, metrics, () => handleApiRequest(req, api));
      metrics.addMetric('ApiRequests', MetricUnit.Count, 1);
      if (res.status >= 400) metrics.addMetric(res.status >= 500 ? 'ApiServerErrors' : 'ApiClientErrors', MetricUnit.Count, 1);
      logger.info('api', { method: event.requestContext.http.method, path: event.rawPath, status: res.status, principal: isApiResponse(req) ? undefined : req.principal });
      return toFunctionUrlResult(res);
    });
}
