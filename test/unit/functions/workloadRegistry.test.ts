// One list of workload kinds (shared/workloads/registry.ts): what the API accepts is what the
// reconcile has a driver for, in every composition root built from it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import { buildApiDeps } from '../../../shared/app/apiDeps.ts';
import { buildCoreDeps } from '../../../shared/app/coreDeps.ts';
import { buildAppDeps } from '../../../shared/app/lambdaDeps.ts';
import { ENV, loadConfig } from '../../../shared/app/config.ts';
import { WORKLOAD_KINDS } from '../../../shared/rollout/types.ts';
import { SUPPORTED_KINDS, WORKLOAD_DRIVERS } from '../../../shared/workloads/registry.ts';

// Clients are only constructed here, never called: no endpoint is reached.
const clientConfig = { region: 'us-east-1', endpoint: 'http://127.0.0.1:9', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } };
const clients = { dynamodb: new DynamoDBClient(clientConfig), sqs: new SQSClient(clientConfig), eventBridge: new EventBridgeClient(clientConfig) };
const config = loadConfig({
  [ENV.tableName]: 'rollouts-test',
  [ENV.queueUrl]: 'https://sqs.us-east-1.amazonaws.com/123456789012/work.fifo',
  [ENV.triggerQueueUrl]: 'https://sqs.us-east-1.amazonaws.com/123456789012/trigger',
  [ENV.eventBusName]: 'rollouts',
});

test('every registered driver is filed under its own kind, and the supported kinds are exactly those', () => {
  for (const [kind, driver] of Object.entries(WORKLOAD_DRIVERS)) assert.equal(driver?.kind, kind);
  assert.deepEqual([...SUPPORTED_KINDS].sort(), Object.keys(WORKLOAD_DRIVERS).sort());
  assert.deepEqual([...SUPPORTED_KINDS].sort(), [...WORKLOAD_KINDS].sort());
});

test('the API of every composition root accepts the registered kinds, and the reconcile runs the registered drivers', () => {
  for (const deps of [buildCoreDeps(config, { clients }), buildApiDeps(config, { clients }), buildAppDeps(config, { clients })]) {
    assert.equal(deps.api.supportedKinds, SUPPORTED_KINDS);
  }
  assert.equal(buildAppDeps(config, { clients }).reconcile.drivers, WORKLOAD_DRIVERS);
});
