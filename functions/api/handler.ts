// Lambda entry point (infra/bundling.ts): the handler over the container's dependencies, whose
// cluster access loads on the first workload request (shared/app/apiDeps.ts).
import { apiLambdaDeps } from '../../shared/app/apiDeps.ts';
import { createApiHandler } from './createHandler.ts';

export const handler = createApiHandler(apiLambdaDeps());
