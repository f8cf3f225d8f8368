// The watcher lease (shared/watch/watcherDemand.ts) as one item of the state table (pk WATCHER, sk
// LEASE): generation, until, seenAt and demandAt as epoch milliseconds. Every change is one
// UpdateItem, the competing ones conditional on the generation (and, to give the lease up, on the
// demand the holder saw), and every read is strongly consistent.
import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { NO_METER, type Meter } from '../../meter.ts';
import type { WatcherLease, WatcherLeaseView } from '../../ports.ts';
import { MeteredTable } from './metered.ts';

const KEY = { pk: { S: 'WATCHER' }, sk: { S: 'LEASE' } };
const NAMES = { '#gen': 'generation', '#until': 'until', '#seen': 'seenAt', '#demand': 'demandAt' };

export class DynamoWatcherLease implements WatcherLease {
  private readonly table: MeteredTable;

  constructor(opts: { client: DynamoDBClient; tableName: string; meter?: Meter }) {
    this.table = new MeteredTable(opts.client, opts.tableName, opts.meter ?? NO_METER);
  }

  async demand(now: Date): Promise<WatcherLeaseView> {
    const out = await this.table.updateItem({
      Key: KEY,
      UpdateExpression: 'SET #demand = :now',
      ExpressionAttributeNames: { '#demand': NAMES['#demand'] },
      ExpressionAttributeValues: { ':now': { N: String(now.getTime()) } },
      ReturnValues: 'ALL_NEW',
    });
    return view(out.Attributes);
  }

  async claim(seen: number, now: Date, untilMs: number): Promise<number | null> {
    const next = seen + 1;
    return this.conditional({
      UpdateExpression: 'SET #gen = :next, #until = :until, #seen = :now',
      ConditionExpression: seen === 0 ? 'attribute_not_exists(#gen) OR #gen = :seen' : '#gen = :seen',
      ExpressionAttributeNames: { '#gen': NAMES['#gen'], '#until': NAMES['#until'], '#seen': NAMES['#seen'] },
      ExpressionAttributeValues: { ':next': num(next), ':until': num(untilMs), ':now': num(now.getTime()), ':seen': num(seen) },
    }).then((ok) => (ok ? next : null));
  }

  heartbeat(generation: number, now: Date): Promise<boolean> {
    return this.conditional({
      UpdateExpression: 'SET #seen = :now',
      ConditionExpression: '#gen = :gen',
      ExpressionAttributeNames: { '#gen': NAMES['#gen'], '#seen': NAMES['#seen'] },
      ExpressionAttributeValues: { ':now': num(now.getTime()), ':gen': num(generation) },
    });
  }

  release(generation: number, demandAt: number, now: Date): Promise<boolean> {
    return this.conditional({
      UpdateExpression: 'SET #until = :now',
      ConditionExpression: '#gen = :gen AND #demand = :demand',
      ExpressionAttributeNames: { '#gen': NAMES['#gen'], '#until': NAMES['#until'], '#demand': NAMES['#demand'] },
      ExpressionAttributeValues: { ':now': num(now.getTime()), ':gen': num(generation), ':demand': num(demandAt) },
    });
  }

  async read(): Promise<WatcherLeaseView> {
    const out = await this.table.getItem({ Key: KEY, ConsistentRead: true });
    return view(out.Item);
  }

  private async conditional(update: Omit<Parameters<MeteredTable['updateItem']>[0], 'Key'>): Promise<boolean> {
    try {
      await this.table.updateItem({ Key: KEY, ...update });
      return true;
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return false;
      throw err;
    }
  }
}

function num(n: number): { N: string } {
  return { N: String(n) };
}

function view(item: Record<string, { N?: string }> | undefined): WatcherLeaseView {
  const n = (name: string) => Number(item?.[name]?.N ?? 0);
  return { generation: n('generation'), until: n('until'), seenAt: n('seenAt'), demandAt: n('demandAt') };
}
