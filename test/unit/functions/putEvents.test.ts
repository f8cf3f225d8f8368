// PutEvents partial failures: only the failed entries are sent again, on the client's own retry
// strategy (its attempts), permanent failures stop at once. The client is a scripted stand-in (the
// emulator never answers with partial failures) with the SDK's retry strategy at zero backoff.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PutEventsCommand, PutEventsRequestEntry, PutEventsResultEntry } from '@aws-sdk/client-eventbridge';
import { ConfiguredRetryStrategy } from '@smithy/core/retry';
import { EventPublishError, putEventsReliably, type EventBridgeSender } from '../../../shared/adapters/eventbridge/putEvents.ts';
import { Meter } from '../../../shared/meter.ts';

type Answer = (entries: PutEventsRequestEntry[]) => PutEventsResultEntry[];

/** The SDK's strategy as a client configured with 4 attempts has it, without the waits. */
const FOUR_ATTEMPTS = async () => new ConfiguredRetryStrategy(4, 0);

function client(answers: Answer[]): { client: EventBridgeSender; sent: string[][] } {
  const sent: string[][] = [];
  const fake = {
    config: { retryStrategy: FOUR_ATTEMPTS },
    send: async (command: PutEventsCommand) => {
      const entries = command.input.Entries ?? [];
      sent.push(entries.map((e) => e.DetailType ?? ''));
      const answer: Answer = answers.shift() ?? ((es) => es.map(() => ({ EventId: 'ok' })));
      const results = answer(entries);
      return { FailedEntryCount: results.filter((r) => r.ErrorCode).length, Entries: results };
    },
  };
  return { client: fake as unknown as EventBridgeSender, sent };
}

const entries = (n: number): PutEventsRequestEntry[] => Array.from({ length: n }, (_, i) => ({ DetailType: `e${i}`, Source: 's', Detail: '{}' }));
const opts = () => ({ meter: new Meter() });

describe('putEventsReliably', () => {
  test('sends in chunks of ten', async () => {
    const c = client([]);
    await putEventsReliably(c.client, entries(21), opts());
    assert.deepEqual(c.sent.map((s) => s.length), [10, 10, 1]);
  });

  test('re-sends only the entries that failed, until they are accepted', async () => {
    const c = client([
      (es) => es.map((e) => (e.DetailType === 'e1' ? { ErrorCode: 'ThrottlingException', ErrorMessage: 'slow down' } : { EventId: 'ok' })),
      (es) => es.map(() => ({ ErrorCode: 'InternalFailure' })),
    ]);
    await putEventsReliably(c.client, entries(3), opts());
    assert.deepEqual(c.sent, [['e0', 'e1', 'e2'], ['e1'], ['e1']]);
  });

  test('gives up after the last attempt with every failure named', async () => {
    const c = client(Array.from({ length: 4 }, () => (es: PutEventsRequestEntry[]) => es.map(() => ({ ErrorCode: 'InternalFailure', ErrorMessage: 'oops' }))));
    await assert.rejects(putEventsReliably(c.client, entries(2), opts()), (err: unknown) => {
      assert.ok(err instanceof EventPublishError);
      assert.deepEqual(err.failures.map((f) => f.detailType), ['e0', 'e1']);
      return true;
    });
    assert.equal(c.sent.length, 4);
  });

  test('a failure retrying cannot fix stops at once', async () => {
    const c = client([(es) => es.map(() => ({ ErrorCode: 'MalformedDetail', ErrorMessage: 'bad json' }))]);
    await assert.rejects(putEventsReliably(c.client, entries(1), opts()), EventPublishError);
    assert.equal(c.sent.length, 1);
  });
});
