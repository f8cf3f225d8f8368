// In-process dynalite for integration tests, with a server-side request counter: every request
// is counted by its X-Amz-Target operation as the server receives it, so a test can prove what
// was (not) sent independently of the client-side Meter.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startEmbeddedDynamo } from '../../shared/adapters/dynamodb/embedded.ts';

export interface DynaliteHarness {
  endpoint: string;
  client: DynamoDBClient;
  tableName: string;
  /** Requests received since the last reset, by operation (e.g. "PutItem"), sorted by name. */
  requests(): { op: string; count: number }[];
  /** Requests of one operation, or of all when `op` is absent. */
  requestCount(op?: string): number;
  /**
   * Capacity units dynalite reported in its responses (ConsumedCapacity, as the server computed it)
   * since the last reset, by operation. Empty unless started with `captureCapacity: true`.
   */
  capacity(): Record<string, number>;
  resetCounts(): void;
  stop(): Promise<void>;
}

export async function startDynalite(opts: { path?: string; tableName?: string; captureCapacity?: boolean } = {}): Promise<DynaliteHarness> {
  const tableName = opts.tableName ?? 'rollouts-test';
  const dynamo = await startEmbeddedDynamo({ tableName, ...(opts.path === undefined ? {} : { path: opts.path }) });
  const counts = new Map<string, number>();
  const units = new Map<string, number>();

  // dynalite's handler is the server's only 'request' listener; put a counting one in front of it.
  const handlers = dynamo.server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  dynamo.server.removeAllListeners('request');
  dynamo.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const target = String(req.headers['x-amz-target'] ?? '');
    const op = target.includes('.') ? target.slice(target.indexOf('.') + 1) : target || `${req.method} (no target)`;
    counts.set(op, (counts.get(op) ?? 0) + 1);
    if (opts.captureCapacity) tallyCapacity(res, (n) => units.set(op, (units.get(op) ?? 0) + n));
    for (const handler of handlers) handler(req, res);
  });
  counts.clear(); // table creation is not the test's traffic

  return {
    endpoint: dynamo.endpoint,
    client: dynamo.client,
    tableName,
    requests: () => [...counts.entries()].map(([op, count]) => ({ op, count })).sort((a, b) => a.op.localeCompare(b.op)),
    requestCount: (op?: string) => (op === undefined ? [...counts.values()].reduce((a, b) => a + b, 0) : counts.get(op) ?? 0),
    capacity: () => Object.fromEntries([...units.entries()].sort(([a], [b]) => a.localeCompare(b))),
    resetCounts: () => {
      counts.clear();
      units.clear();
    },
    stop: () => dynamo.stop(),
  };
}

/** dynalite answers with one res.end(body): read the ConsumedCapacity of that JSON body on its way out. */
function tallyCapacity(res: ServerResponse, add: (units: number) => void): void {
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.end = ((...args: unknown[]) => {
    const [body] = args;
    if (typeof body === 'string' || Buffer.isBuffer(body)) {
      try {
        const parsed = JSON.parse(body.toString()) as { ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[] };
        const list = Array.isArray(parsed.ConsumedCapacity) ? parsed.ConsumedCapacity : parsed.ConsumedCapacity ? [parsed.ConsumedCapacity] : [];
        add(list.reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0));
      } catch {
        // not JSON (health check, CRC failure): nothing to count
      }
    }
    return end(...args);
  }) as ServerResponse['end'];
}
