// The SQS and EventBridge adapters against real LocalStack: what lands on which queue,
// deduplication, batching, and the rule routing. One test needs moto (see motoServer.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { EventBridgePublisher } from '../../shared/adapters/eventbridge/publisher.ts';
import { EventPublishError } from '../../shared/adapters/eventbridge/putEvents.ts';
import { SqsReconcileQueue } from '../../shared/adapters/sqs/reconcileQueue.ts';
import { Meter } from '../../shared/meter.ts';
import { queueWatchSink } from '../../shared/watch/queueSink.ts';
import type { RolloutEvent, RolloutKey } from '../../shared/rollout/types.ts';
import { startAwsEmulator, type AwsEmulator, type Queue } from '../support/aws/emulator.ts';
import { startMotoServer } from '../support/aws/motoServer.ts';
import { EventSourceMappingPoller } from '../support/aws/sqsPoller.ts';
import { ManualClock } from '../../bench/testbed/stateStoreFixtures.ts';
import { waitFor } from '../../bench/testbed/wait.ts';

let aws: AwsEmulator;

before(async () => {
  aws = await startAwsEmulator();
});

after(async () => {
  await aws?.stop();
});

const web: RolloutKey = { cluster: 'prod', namespace: 'shop', name: 'web' };

/** Everything currently on `queue` (received and deleted), as parsed bodies with their attributes. */
async function drain(queue: Queue): Promise<{ body: Record<string, unknown>; group: string | undefined }[]> {
  const poller = new EventSourceMappingPoller(aws.sqs, queue, { region: aws.region, waitTimeSeconds: 0 });
  const out: { body: Record<string, unknown>; group: string | undefined }[] = [];
  for (;;) {
    const d = await poller.deliverOnce(async () => {});
    if (!d) return out;
    out.push(...d.event.Records.map((r) => ({ body: JSON.parse(r.body) as Record<string, unknown>, group: r.attributes.MessageGroupId })));
  }
}

function queue(clock = new ManualClock(), meter = new Meter()): SqsReconcileQueue {
  return new SqsReconcileQueue({ client: aws.sqs, queueUrl: aws.work.url, triggerQueueUrl: aws.trigger.url, clock, meter });
}

describe('SqsReconcileQueue', () => {
  test('every request for a key is its own FIFO message grouped by key, even within a second and after the first was consumed', async () => {
    const clock = new ManualClock();
    const q = queue(clock);
    await q.enqueue(web, { reason: 'api' });
    assert.deepEqual((await drain(aws.work)).map((m) => m.body.reason), ['api'], 'the first request was received and deleted');
    // Same key, reason and second: a command recorded after the first message was consumed must
    // still get its pass (SQS would drop a repeated deduplication id for 5 minutes).
    await q.enqueue(web, { reason: 'api' });
    await q.enqueue(web, { reason: 'api' });
    const messages = await drain(aws.work);
    assert.deepEqual(messages.map((m) => m.body.reason), ['api', 'api']);
    assert.deepEqual(new Set(messages.map((m) => m.group)), new Set(['prod/shop/web']));
  });

  test("the sweep's messages for a key within one second are one message: a retried tick adds no pass", async () => {
    const clock = new ManualClock();
    const q = queue(clock);
    await q.enqueueAll([web], { reason: 'sweep' });
    await q.enqueueAll([web], { reason: 'sweep' });
    clock.advance(1);
    await q.enqueueAll([web], { reason: 'sweep' });
    assert.deepEqual((await drain(aws.work)).map((m) => m.body.reason), ['sweep', 'sweep']);
  });

  test('a delayed request goes to the trigger queue, not the FIFO queue', async () => {
    await queue().enqueue(web, { reason: 'requeue', delaySeconds: 1 });
    assert.deepEqual(await drain(aws.work), []);
    const event = await waitFor(() => new EventSourceMappingPoller(aws.sqs, aws.trigger, { region: aws.region }).receive(), { message: 'the delayed message' });
    assert.deepEqual(JSON.parse(event.Records[0]?.body ?? '{}'), { ...web, reason: 'requeue' });
    await drain(aws.trigger);
  });

  test('many keys are sent ten per request', async () => {
    const meter = new Meter();
    const keys = Array.from({ length: 23 }, (_, i) => ({ ...web, name: `app-${i}` }));
    await queue(new ManualClock(), meter).enqueueAll(keys, { reason: 'sweep' });
    assert.equal(meter.get('queue.send'), 3);
    assert.deepEqual((await drain(aws.work)).map((m) => m.body.name).sort(), keys.map((k) => k.name).sort());
  });
});

describe('EventBridge', () => {
  function event(i: number): RolloutEvent {
    return { type: i % 2 ? 'Batch Ready' : 'Step Started', rollout: web, releaseId: 'r1', phase: 'Progressing', stepIndex: i, message: `event ${i}`, at: '2030-01-01T00:00:00.000Z', by: null, reason: 'step 1/2: moving pods', cause: null };
  }

  test('transition events are put ten per request, detail-type = type and detail = the event', async () => {
    const meter = new Meter();
    const events = Array.from({ length: 12 }, (_, i) => event(i));
    await new EventBridgePublisher({ client: aws.eventBridge, eventBusName: aws.eventBusName, source: aws.eventSource, meter }).publish(events);
    assert.equal(meter.get('events.put'), 2);
    const received = await waitFor(async () => {
      const all = await drain(aws.published);
      return all.length > 0 ? all : null;
    }, { message: 'events on the inspection queue' });
    const more = await drain(aws.published);
    const bodies = [...received, ...more].map((m) => m.body);
    assert.equal(bodies.length, 12);
    const byStep = new Map(bodies.map((b) => [(b.detail as RolloutEvent).stepIndex, b]));
    assert.deepEqual(byStep.get(3)?.detail, event(3));
    assert.equal(byStep.get(3)?.['detail-type'], 'Batch Ready');
    assert.equal(byStep.get(3)?.source, aws.eventSource);
  });

  test('watch notices go straight to the FIFO work queue, one message per key and notice, even right after the same key\'s', async () => {
    const meter = new Meter();
    const sink = queueWatchSink(new SqsReconcileQueue({ client: aws.sqs, queueUrl: aws.work.url, triggerQueueUrl: aws.trigger.url, meter }));
    const api = { cluster: 'prod', namespace: 'shop', name: 'api' };
    await sink.send([{ ...web, reasons: ['Deployment web MODIFIED'] }, { ...api, reasons: ['ReplicaSet api-1 MODIFIED'] }]);
    // The trailing notice of the same window: a message of its own, not the first one's duplicate.
    await sink.send([{ ...web, reasons: ['ReplicaSet web-2 MODIFIED'] }]);
    assert.equal(meter.get('queue.send'), 2, 'one SendMessageBatch per notice sent');
    const messages = await drain(aws.work);
    assert.deepEqual(messages.map((m) => [m.group, m.body]).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))), [
      ['prod/shop/api', { ...api, reason: 'watch', causes: ['ReplicaSet api-1 MODIFIED'] }],
      ['prod/shop/web', { ...web, reason: 'watch', causes: ['Deployment web MODIFIED'] }],
      ['prod/shop/web', { ...web, reason: 'watch', causes: ['ReplicaSet web-2 MODIFIED'] }],
    ]);
    assert.deepEqual(await drain(aws.trigger), [], 'not through the trigger queue');
    assert.deepEqual(await drain(aws.published), [], 'watch notices are not transition events');
  });

  test('events the bus refuses fail the publish with the reason instead of being dropped', async () => {
    // On moto: LocalStack accepts a PutEvents to a bus that does not exist (motoServer.ts). moto
    // refuses the whole call; AWS fails the entry (EventPublishError): both surface.
    const moto = await startMotoServer();
    const client = new EventBridgeClient({ endpoint: moto.endpoint, region: aws.region, credentials: aws.credentials });
    try {
      const publisher = new EventBridgePublisher({ client, eventBusName: 'no-such-bus', source: aws.eventSource });
      await assert.rejects(publisher.publish([event(1)]), (err: unknown) => err instanceof EventPublishError || /no-such-bus/.test(String(err)));
    } finally {
      client.destroy();
      await moto.stop();
    }
  });
});
