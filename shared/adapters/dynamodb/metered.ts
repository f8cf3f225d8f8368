// The few DynamoDB calls the state store makes, each counted into the Meter: one `ddb.read` or
// `ddb.write` per request sent, and `ddb.rcu`/`ddb.wcu` from the ConsumedCapacity the response
// reports (ReturnConsumedCapacity TOTAL). dynalite reports it too, computed from item sizes with
// DynamoDB's rules: reads in 4 KB units (summed over the items of a Query, then rounded up), halved
// when eventually consistent; writes in 1 KB units, the larger of the old and new item.
// Two corrections toward what AWS bills: a request is never free (an empty Query or a GetItem of a
// missing item still costs 1 RCU, 0.5 eventually consistent, where dynalite says 0), and a failed
// conditional write costs at least 1 WCU. Not modelled: the extra WCU AWS charges for writing the
// due-index (dynalite leaves index writes out of ConsumedCapacity).
import { setTimeout as sleep } from 'node:timers/promises';
import {
  BatchWriteItemCommand,
  ConditionalCheckFailedException,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type {
  BatchWriteItemCommandInput,
  ConsumedCapacity,
  DeleteItemCommandInput,
  DynamoDBClient,
  GetItemCommandInput,
  GetItemCommandOutput,
  PutItemCommandInput,
  QueryCommandInput,
  QueryCommandOutput,
  UpdateItemCommandInput,
  UpdateItemCommandOutput,
  WriteRequest,
} from '@aws-sdk/client-dynamodb';
import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';
import { TransientError } from '../../errors.ts';
import type { Meter } from '../../meter.ts';
import type { Item } from './items.ts';

type Own<T> = Omit<T, 'TableName' | 'ReturnConsumedCapacity'>;

/** DynamoDB kept returning UnprocessedItems (throttling) after every retry. */
export class UnprocessedItemsError extends TransientError {}

/** DynamoDB still throttled, failed or timed out after the SDK's own retries (shared/adapters/aws/retryConfig.ts). */
export class StoreUnavailableError extends TransientError {}

const BATCH_SIZE = 25;
const BATCH_ATTEMPTS = 6;

export class MeteredTable {
  constructor(
    private readonly client: DynamoDBClient,
    readonly tableName: string,
    private readonly meter: Meter,
  ) {}

  async getItem(input: Own<GetItemCommandInput>): Promise<GetItemCommandOutput> {
    this.meter.add('ddb.read');
    const out = await guarded(() => this.client.send(new GetItemCommand({ ...input, TableName: this.tableName, ReturnConsumedCapacity: 'TOTAL' })));
    this.addUnits('ddb.rcu', out.ConsumedCapacity, input.ConsistentRead ? 1 : 0.5);
    return out;
  }

  async query(input: Own<QueryCommandInput>): Promise<QueryCommandOutput> {
    this.meter.add('ddb.read');
    const out = await guarded(() => this.client.send(new QueryCommand({ ...input, TableName: this.tableName, ReturnConsumedCapacity: 'TOTAL' })));
    this.addUnits('ddb.rcu', out.ConsumedCapacity, input.ConsistentRead ? 1 : 0.5);
    return out;
  }

  /** Every item of a Query, following LastEvaluatedKey (one request per page), stopping once `max` items are in. */
  async queryAll(input: Own<QueryCommandInput>, max = Infinity): Promise<Item[]> {
    const items: Item[] = [];
    let start: Item | undefined;
    do {
      const out = await this.query({ ...input, ExclusiveStartKey: start });
      items.push(...(out.Items ?? []));
      start = out.LastEvaluatedKey;
    } while (start !== undefined && items.length < max);
    return items;
  }

  async putItem(input: Own<PutItemCommandInput>): Promise<void> {
    await this.write(async () => {
      const out = await guarded(() => this.client.send(new PutItemCommand({ ...input, TableName: this.tableName, ReturnConsumedCapacity: 'TOTAL' })));
      return out.ConsumedCapacity;
    });
  }

  async deleteItem(input: Own<DeleteItemCommandInput>): Promise<void> {
    await this.write(async () => {
      const out = await guarded(() => this.client.send(new DeleteItemCommand({ ...input, TableName: this.tableName, ReturnConsumedCapacity: 'TOTAL' })));
      return out.ConsumedCapacity;
    });
  }

  /** BatchWriteItem in chunks of 25, re-sending UnprocessedItems with exponential backoff. */
  async batchWrite(requests: WriteRequest[]): Promise<void> {
    for (let i = 0; i < requests.length; i += BATCH_SIZE) {
      let pending = requests.slice(i, i + BATCH_SIZE);
      for (let attempt = 1; pending.length > 0; attempt++) {
        if (attempt > BATCH_ATTEMPTS) {
          throw new UnprocessedItemsError(`${pending.length} writes to ${this.tableName} still unprocessed after ${BATCH_ATTEMPTS} attempts`);
        }
        if (attempt > 1) await sleep(25 * 2 ** attempt);
        const input: BatchWriteItemCommandInput = { RequestItems: { [this.tableName]: pending }, ReturnConsumedCapacity: 'TOTAL' };
        let unprocessed: WriteRequest[] = [];
        await this.write(async () => {
          const out = await guarded(() => this.client.send(new BatchWriteItemCommand(input)));
          unprocessed = out.UnprocessedItems?.[this.tableName] ?? [];
          return out.ConsumedCapacity;
        });
        pending = unprocessed;
      }
    }
  }

  /** UpdateItem, returning its output (e.g. ReturnValues ALL_NEW). */
  async updateItem(input: Own<UpdateItemCommandInput>): Promise<UpdateItemCommandOutput> {
    let out: UpdateItemCommandOutput | undefined;
    await this.write(async () => {
      out = await this.client.send(new UpdateItemCommand({ ...input, TableName: this.tableName, ReturnConsumedCapacity: 'TOTAL' }));
      return out.ConsumedCapacity;
    });
    return out as UpdateItemCommandOutput;
  }

  private async write(send: () => Promise<ConsumedCapacity | ConsumedCapacity[] | undefined>): Promise<void> {
    this.meter.add('ddb.write');
    try {
      this.addUnits('ddb.wcu', await send(), 1);
    } catch (err) {
      // A failed condition is still billed (by the size of the existing item, at least 1 WCU), but
      // the error carries no ConsumedCapacity: count the 1-unit lower bound.
      if (err instanceof ConditionalCheckFailedException) this.meter.add('ddb.wcu', 1);
      throw err;
    }
  }

  private addUnits(key: 'ddb.rcu' | 'ddb.wcu', capacity: ConsumedCapacity | ConsumedCapacity[] | undefined, minimum: number): void {
    const list = Array.isArray(capacity) ? capacity : capacity ? [capacity] : [];
    const units = list.reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
    this.meter.add(key, Math.max(units, minimum));
  }
}

/**
 * One command through the client (which retries by itself). A failure the SDK classifies as
 * throttling, transient or a server error, once its retries are spent, becomes a TransientError;
 * anything else (a failed condition, a validation error) is passed on as it is.
 */
async function guarded<T>(send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (err) {
    throw transientStoreError(err) ?? err;
  }
}

/** The TransientError for a DynamoDB failure that may pass, or null for any other failure. */
export function transientStoreError(err: unknown): StoreUnavailableError | null {
  if (!(err instanceof Error)) return null;
  const sdk = err as Parameters<typeof isTransientError>[0];
  if (!isThrottlingError(sdk) && !isTransientError(sdk) && !isServerError(sdk)) return null;
  const attempts = (err as { $metadata?: { attempts?: number } }).$metadata?.attempts;
  return new StoreUnavailableError(`DynamoDB: ${err.name}: ${err.message}${attempts ? ` (after ${attempts} attempts)` : ''}`, { cause: err });
}
