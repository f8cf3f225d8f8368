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
  resetCounts(): void;
  stop(): Promise<void>;
}

export async function startDynalite(opts: { path?: string; tableName?: string } = {}): Promise<DynaliteHarness> {
  const tableName = opts.tableName ?? 'rollouts-test';
  const dynamo = await startEmbeddedDynamo({ tableName, ...(opts.path === undefined ? {} : { path: opts.path }) });
  const counts = new Map<string, number>();

  // dynalite's handler is the server's only 'request' listener; put a counting one in front of it.
  const handlers = dynamo.server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  dynamo.server.removeAllListeners('request');
  dynamo.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const target = String(req.headers['x-amz-target'] ?? '');
    const op = target.includes('.') ? target.slice(target.indexOf('.') + 1) : target || `${req.method} (no target)`;
    counts.set(op, (counts.get(op) ?? 0) + 1);
    for (const handler of handlers) handler(req, res);
  });
  counts.clear(); // table creation is not the test's traffic

  return {
    endpoint: dynamo.endpoint,
    client: dynamo.client,
    tableName,
    requests: () => [...counts.entries()].map(([op, count]) => ({ op, count })).sort((a, b) => a.op.localeCompare(b.op)),
    requestCount: (op?: string) => (op === undefined ? [...counts.values()].reduce((a, b) => a + b, 0) : counts.get(op) ?? 0),
    resetCounts: () => counts.clear(),
    stop: () => dynamo.stop(),
  };
}
