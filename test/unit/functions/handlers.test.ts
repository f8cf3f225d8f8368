// The Lambda handlers through middy and Powertools, on in-memory ports: typed events in, the
// response shapes Lambda expects out, metrics emitted.
import { queueKeyName } from '../../../shared/fleet/key.ts';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LambdaFunctionURLEventWithIAMAuthorizer, SQSEvent, SQSRecord } from 'aws-lambda';
import { createApiHandler } from '../../../functions/api/createHandler.ts';
import { createReconcileHandler } from '../../../functions/reconcile/createHandler.ts';
import { createSweepHandler } from '../../../functions/sweep/createHandler.ts';
import { encodeReconcileMessage } from '../../../shared/adapters/sqs/messages.ts';
import type { ApiDeps } from '../../../shared/api/types.ts';
import { Meter } from '../../../shared/meter.ts';
import type { ReconcileDeps } from '../../../shared/reconcile/deps.ts';
import type { RolloutKey } from '../../../shared/rollout/types.ts';
import { MemoryQueue } from '../../../bench/testbed/fakes/memoryQueue.ts';
import { MemoryStateStore } from '../../support/fakes/memoryStateStore.ts';
import { testObservability } from '../../support/fakes/observability.ts';
import { lambdaContext } from '../../support/aws/lambdaContext.ts';
import { ManualClock, activeState, sampleDocument, sampleSpec } from '../../../bench/testbed/stateStoreFixtures.ts';

const web: RolloutKey = { cluster: 'prod', namespace: 'shop', name: 'web' };

function sqsRecord(messageId: string, body: string): SQSRecord {
  return {
    messageId, receiptHandle: `rh-${messageId}`, body, md5OfBody: '', eventSource: 'aws:sqs', eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:work.fifo', awsRegion: 'us-east-1',
    attributes: { ApproximateReceiveCount: '1', SentTimestamp: '0', SenderId: 'x', ApproximateFirstReceiveTimestamp: '0', MessageGroupId: 'prod/shop/web', SequenceNumber: '1' },
    messageAttributes: {},
  };
}

function functionUrlEvent(method: string, rawPath: string, body?: string, base64 = false): LambdaFunctionURLEventWithIAMAuthorizer {
  return {
    version: '2.0', routeKey: '$default', rawPath, rawQueryString: '', headers: { 'content-type': 'application/json' }, isBase64Encoded: base64,
    ...(body === undefined ? {} : { body }),
    requestContext: {
      accountId: '123456789012', apiId: 'url-id', domainName: 'url-id.lambda-url.us-east-1.on.aws', domainPrefix: 'url-id', requestId: 'r1', routeKey: '$default', stage: '$default', time: '', timeEpoch: 0,
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      authorizer: { iam: { accessKey: 'AKIA', accountId: '123456789012', callerId: 'AIDA', cognitoIdentity: null, principalOrgId: null, userArn: 'arn:aws:iam::123456789012:user/bob', userId: 'AIDA' } },
    },
  } as unknown as LambdaFunctionURLEventWithIAMAuthorizer;
}

describe('reconcile handler', () => {
  test('reports the records of a failing key as batch item failures and counts outcomes', async () => {
    const obs = testObservability();
    const handler = createReconcileHandler({
      reconcile: {} as ReconcileDeps, queue: new MemoryQueue(), clock: new ManualClock(), meter: new Meter(),
      run: async (key) => {
        if (queueKeyName(key) === 'broken') throw new Error('boom');
        return { outcome: 'progressed', phase: 'Progressing', requeueSeconds: null, wakeAt: null, previousWakeAt: null, writes: 1, counts: new Meter().snapshot() };
      },
    }, obs);
    const event: SQSEvent = { Records: [sqsRecord('m1', encodeReconcileMessage(web, 'api')), sqsRecord('m2', encodeReconcileMessage({ ...web, name: 'broken' }, 'api'))] };
    const res = await handler(event, lambdaContext('reconcile'));
    assert.deepEqual(res, { batchItemFailures: [{ itemIdentifier: 'm2' }] });
    assert.deepEqual([obs.metrics.total('Reconciles'), obs.metrics.total('ReconcileFailures'), obs.metrics.total('OutcomeProgressed')], [2, 1, 1]);
  });
});

describe('sweep handler', () => {
  test('queues every due rollout and returns the counts with the scheduled time', async () => {
    const clock = new ManualClock();
    const store = new MemoryStateStore({ clock });
    await store.putSpec(web, sampleSpec(web), sampleDocument(web), 0);
    await store.saveState(web, { state: activeState({ nextWakeAt: clock.now().toISOString() }), outbox: { history: [], events: [] } }, 0);
    const queue = new MemoryQueue();
    const obs = testObservability();
    const config = { resyncPeriodSeconds: 300, sweepIntervalSeconds: 60 };
    const res = await createSweepHandler({ store, queue, clock, meter: new Meter(), config }, obs)({ scheduledTime: '2030-01-01T00:00:00Z' }, lambdaContext('sweep'));
    assert.deepEqual({ ...res, resync: 0 }, { due: 1, resync: 0, enqueued: 1, truncated: false, scheduledTime: '2030-01-01T00:00:00Z' });
    assert.deepEqual(queue.sent, [{ key: web, delaySeconds: 0, reason: 'sweep' }], 'due and resynced at once: queued once');
    assert.equal(obs.metrics.total('DueRollouts'), 1);
  });

  test('a Healthy rollout is queued by exactly one of the ticks of each resync period (windows from scheduledTime)', async () => {
    const clock = new ManualClock();
    const store = new MemoryStateStore({ clock });
    await store.putSpec(web, sampleSpec(web), sampleDocument(web), 0);
    const queue = new MemoryQueue();
    const handler = createSweepHandler({ store, queue, clock, meter: new Meter(), config: { resyncPeriodSeconds: 300, sweepIntervalSeconds: 60 } }, testObservability());
    const resynced: number[] = [];
    for (let minute = 1; minute <= 10; minute++) {
      const scheduledTime = new Date(Date.parse('2030-01-01T00:00:00Z') + minute * 60_000).toISOString();
      // Lambda runs late, and the clock says so; the window is still the tick's own.
      clock.set(new Date(Date.parse(scheduledTime) + 7_000));
      const res = await handler({ scheduledTime }, lambdaContext('sweep'));
      if (res.resync > 0) resynced.push(minute);
    }
    assert.equal(resynced.length, 2, `resynced at minutes ${resynced.join(', ')}`);
    assert.equal((resynced[1] ?? 0) - (resynced[0] ?? 0), 5, 'one period apart');
    assert.equal(queue.sent.length, 2);
  });
});

describe('api handler', () => {
  function apiDeps(maxBodyBytes = 10_000): { deps: ApiDeps; store: MemoryStateStore } {
    const clock = new ManualClock();
    const store = new MemoryStateStore({ clock });
    return { store, deps: { store, queue: new MemoryQueue(), clock, supportedKinds: ['Deployment'], maxBodyBytes, requireRegisteredCluster: false, newId: () => 'id-1' } };
  }

  test('a base64 body is decoded and the signing principal is recorded on the command', async () => {
    const { deps, store } = apiDeps();
    await store.putSpec(web, sampleSpec(web), sampleDocument(web), 0);
    const handler = createApiHandler({ api: deps, meter: new Meter() }, testObservability());
    const body = Buffer.from(JSON.stringify({ commandId: 'c-1' })).toString('base64');
    const res = await handler(functionUrlEvent('POST', '/v1/rollouts/prod/shop/web/pause', body, true), lambdaContext('api'));
    assert.equal(typeof res === 'object' && res.statusCode, 202);
    const [cmd] = (await store.load(web)).state.state.commands;
    assert.deepEqual([cmd?.id, cmd?.by], ['c-1', 'arn:aws:iam::123456789012:user/bob']);
  });

  test('an oversized base64 body is refused with 413 before it is decoded', async () => {
    const { deps } = apiDeps(16);
    const handler = createApiHandler({ api: deps, meter: new Meter() }, testObservability());
    const body = Buffer.from('x'.repeat(17)).toString('base64');
    const res = await handler(functionUrlEvent('PUT', '/v1/rollouts/prod/shop/web', body, true), lambdaContext('api'));
    assert.deepEqual(typeof res === 'object' ? [res.statusCode, res.headers?.['content-type']] : res, [413, 'application/json']);
  });

  test('a request still running when the Lambda is about to time out is answered with a JSON 503', async () => {
    const { deps, store } = apiDeps();
    store.listRollouts = () => new Promise(() => {}); // a store that never answers
    const res = await createApiHandler({ api: deps, meter: new Meter() }, testObservability())(functionUrlEvent('GET', '/v1/rollouts'), lambdaContext('api', { timeoutMs: 50 }));
    assert.equal(typeof res === 'object' && res.statusCode, 503);
  });

  test('answers in the Function URL result shape', async () => {
    const { deps } = apiDeps();
    const obs = testObservability();
    const res = await createApiHandler({ api: deps, meter: new Meter() }, obs)(functionUrlEvent('GET', '/v1/rollouts'), lambdaContext('api'));
    assert.deepEqual(res, { statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{"rollouts":[]}', isBase64Encoded: false });
    assert.equal(obs.metrics.total('ApiRequests'), 1);
  });
});
