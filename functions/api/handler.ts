// Lambda entry point (infra/bundling.ts): the handler over the container's dependencies.
import { coreLambdaDeps } from '../../shared/app/coreDeps.ts';
import { createApiHandler } from './createHandler.ts';

export const handler = createApiHandler(coreLambdaDeps());
