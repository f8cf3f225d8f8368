// The part of the composition root every function needs: configuration, clock, meter, the state
// store (DynamoDB) and the reconcile queue (SQS), and the API's dependencies over them. Kept apart
// from lambdaDeps.ts so the sweep bundle does not carry the Kubernetes client (about half of a
// bundle, and of its cold-start load time); the API evaluates it only on first use (apiDeps.ts).
// AWS clients get no endpoint: the SDK reads AWS_ENDPOINT_URL(_<SERVICE>) itself (LocalStack, moto);
// they retry as configured in shared/adapters/aws/retryConfig.ts.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { awsRetryConfig } from '../adapters/aws/retryConfig.ts';
import { DynamoStateStore } from '../adapters/dynamodb/stateStore.ts';
import { SqsReconcileQueue } from '../adapters/sqs/reconcileQueue.ts';
import type { ApiDeps } from '../api/types.ts';
import { loadConfig, type Config } from './config.ts';
import { Meter } from '../meter.ts';
import type { Clock, StateStore } from '../ports.ts';
import { SUPPORTED_KINDS } from '../workloads/registry.ts';
import type { BatchingQueue } from '../ports.ts';
import { SYSTEM_CLOCK } from '../clock.ts';

export interface CoreDeps {
  config: Config;
  clock: Clock;
  /** Process-wide request counter; handlers report per-invocation differences as metrics. */
  meter: Meter;
  store: StateStore;
  queue: BatchingQueue;
  api: ApiDeps;
  /** The client the store uses, for other items of the same table (the watcher lease). */
  dynamodb: DynamoDBClient;
}

export interface CoreBuildOptions {
  clients?: { dynamodb?: DynamoDBClient; sqs?: SQSClient };
  clock?: Clock;
  meter?: Meter;
}

export function buildCoreDeps(config: Config, opts: CoreBuildOptions = {}): CoreDeps {
  const clock = opts.clock ?? SYSTEM_CLOCK;
  const meter = opts.meter ?? new Meter();
  const dynamodb = opts.clients?.dynamodb ?? new DynamoDBClient(awsRetryConfig());
  const store = new DynamoStateStore({ client: dynamodb, tableName: config.tableName, meter, clock });
  const queue = new SqsReconcileQueue({ client: opts.clients?.sqs ?? new SQSClient(awsRetryConfig()), queueUrl: config.queueUrl, triggerQueueUrl: config.triggerQueueUrl, clock, meter });
  return {
    config, clock, meter, store, queue, dynamodb,
    api: {
      store, queue, clock, supportedKinds: SUPPORTED_KINDS, maxBodyBytes: config.maxBodyBytes, requireRegisteredCluster: true,
      ...(config.apiAuthorization ? { authorization: config.apiAuthorization } : {}),
    },
  };
}

let containerDeps: CoreDeps | undefined;

/** The container's core dependencies, built on first use from process.env (cold start). */
export function coreLambdaDeps(): CoreDeps {
  containerDeps ??= buildCoreDeps(loadConfig(process.env));
  return containerDeps;
}
