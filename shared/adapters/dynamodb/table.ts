// The one definition of the state table (docs/architecture.md, "State model"). Plain data so the CDK stack, local mode and
// the tests all build the same table from it: no CDK import here, and the attribute types are the
// DynamoDB wire names ('S'), which are also the values of CDK's `AttributeType` enum.
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import type { CreateTableCommandInput, DynamoDBClient, TableDescription } from '@aws-sdk/client-dynamodb';
import { RolloutsError } from '../../errors.ts';

export const STATE_TABLE = {
  /** Partition key, a string: `R#<cluster>#<ns>#<name>` for rollouts, `INDEX` and `CLUSTERS` for the two catalogues. */
  partitionKey: { name: 'pk', type: 'S' },
  /** Sort key, a string: `SPEC`, `STATE`, `H#<releaseId>#<seq>`, `<cluster>#<ns>#<name>`, `C#<cluster>`. */
  sortKey: { name: 'sk', type: 'S' },
  /** On-demand: traffic is bursty (sweeps, releases) and tiny on average; nothing to provision. */
  billingMode: 'PAY_PER_REQUEST',
  /** Epoch seconds; set on history items only (90 days after the entry), so old history expires for free. */
  timeToLiveAttribute: 'expiresAt',
  /** How long history items are kept before TTL removes them. */
  historyRetentionDays: 90,
  /**
   * Sparse GSI of the rollouts the sweep must look at, so the sweep never scans. Two kinds of entry:
   *  - wake-ups: only STATE items of active releases or with a wake-up carry `dueShard`/`dueAt`
   *    (dueAt an instant). The partition is one of `shardCount` shards (hash of pk) so a large fleet
   *    is not one hot index partition, and the sweep queries the shards in parallel;
   *  - resync: every SPEC item has one permanent entry in partition `resync`, its sort key the
   *    rollout's resync phase (keys.ts, resyncPhaseRanges), never rewritten.
   */
  dueIndex: {
    name: 'due',
    partitionKey: { name: 'dueShard', type: 'S' },
    /** ISO 8601 UTC (`toISOString()`, fixed width), so string order is time order and `dueAt <= :now` works. */
    sortKey: { name: 'dueAt', type: 'S' },
    /** The sweep needs only pk (the rollout key) and dueAt (ordering), which KEYS_ONLY carries: the cheapest index. */
    projectionType: 'KEYS_ONLY',
    shardCount: 8,
  },
} as const;

export function createTableInput(tableName: string): CreateTableCommandInput {
  const t = STATE_TABLE;
  const idx = t.dueIndex;
  return {
    TableName: tableName,
    BillingMode: t.billingMode,
    AttributeDefinitions: [
      { AttributeName: t.partitionKey.name, AttributeType: t.partitionKey.type },
      { AttributeName: t.sortKey.name, AttributeType: t.sortKey.type },
      { AttributeName: idx.partitionKey.name, AttributeType: idx.partitionKey.type },
      { AttributeName: idx.sortKey.name, AttributeType: idx.sortKey.type },
    ],
    KeySchema: [
      { AttributeName: t.partitionKey.name, KeyType: 'HASH' },
      { AttributeName: t.sortKey.name, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: idx.name,
        KeySchema: [
          { AttributeName: idx.partitionKey.name, KeyType: 'HASH' },
          { AttributeName: idx.sortKey.name, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: idx.projectionType },
      },
    ],
  };
}

/** The table did not become ACTIVE in time. */
export class TableNotReadyError extends RolloutsError {}

/**
 * Create the table when it is missing and wait until it (and its index) is ACTIVE. For tests and
 * local mode; deployed tables come from the CDK stack. When the table exists this is one DescribeTable.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string, opts: { timeoutMs?: number } = {}): Promise<void> {
  let created = false;
  if ((await describe(client, tableName)) === null) {
    try {
      await client.send(new CreateTableCommand(createTableInput(tableName)));
      created = true;
    } catch (err) {
      // Someone else created it between our describe and create: just wait for it below.
      if (!(err instanceof ResourceInUseException)) throw err;
    }
  }
  await waitUntilActive(client, tableName, opts.timeoutMs ?? 120_000);
  if (created) await enableTtl(client, tableName);
}

async function describe(client: DynamoDBClient, tableName: string): Promise<TableDescription | null> {
  try {
    const out = await client.send(new DescribeTableCommand({ TableName: tableName }));
    return out.Table ?? null;
  } catch (err) {
    if (err instanceof ResourceNotFoundException) return null;
    throw err;
  }
}

// Our own poll loop: the SDK waiter's minimum delay (20 s) is far too slow for dynalite.
async function waitUntilActive(client: DynamoDBClient, tableName: string, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let delay = 20;
  for (;;) {
    const table = await describe(client, tableName);
    const indexesActive = (table?.GlobalSecondaryIndexes ?? []).every((i) => i.IndexStatus === 'ACTIVE');
    if (table?.TableStatus === 'ACTIVE' && indexesActive) return;
    if (performance.now() > deadline) throw new TableNotReadyError(`table ${tableName} is not ACTIVE after ${timeoutMs} ms (status ${table?.TableStatus ?? 'missing'})`);
    await sleep(delay);
    delay = Math.min(delay * 2, 2_000);
  }
}

// dynalite answers UnknownOperationException to UpdateTimeToLive (and never expires items); that
// is fine for tests and local mode, which only check that `expiresAt` is written.
async function enableTtl(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: STATE_TABLE.timeToLiveAttribute, Enabled: true },
    }));
  } catch (err) {
    if ((err as { name?: string }).name !== 'UnknownOperationException') throw err;
  }
}
