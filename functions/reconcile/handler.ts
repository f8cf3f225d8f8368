// Lambda entry point (infra/bundling.ts): the handler over the container's dependencies.
import { lambdaDeps } from '../../shared/app/lambdaDeps.ts';
import { createReconcileHandler } from './createHandler.ts';

export const handler = createReconcileHandler(lambdaDeps());
